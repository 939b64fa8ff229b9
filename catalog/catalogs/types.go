package catalogs

// types are the catalog kinds by the value of a catalog's "type"
// property, one line each. A catalog package joins by adding its opener
// here, such as "rest": openREST for catalog/rest.
var types = map[string]Opener{
	"directory": openDirectory,
	"glue":      openGlue,
	"hive":      openHive,
	"rest":      openREST,
	"sql":       openSQL,
}
