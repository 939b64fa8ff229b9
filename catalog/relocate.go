package catalog

import (
	"path"

	"github.com/iceflight/iceflight/fileio"
)

// Relocate points t at the folder its metadata file is in when that file
// lies outside the location its metadata records: a table copied, or
// registered with a catalog, away from where it was written still names
// its data and manifests under the old location. The recorded location is
// then mapped to the folder that holds the metadata file's "metadata/"
// folder (the parent of its parent), relative locations are resolved
// against that folder, and t.Location becomes it, as a directory catalog
// does for the tables it finds (see Directory.tableRules).
//
// Catalogs without folders (REST, SQL) call it on every table they load.
// It is safe for them because it only redirects into the storage where
// the metadata file itself is, through t.IO: nothing becomes readable
// that the catalog's FileIO could not already read by location. A table
// whose metadata file is not in a folder named "metadata", or whose
// metadata records no location, is left as it is.
func Relocate(t *Table) {
	if t.Metadata == nil || t.Metadata.Location == "" {
		return
	}
	rule, ok := relocation(t.MetadataLocation, t.Metadata.Location)
	if !ok {
		return
	}
	t.IO = fileio.Remap(t.IO, rule).WithBase(rule.To)
	t.Location = rule.To
	t.rules = []fileio.Rule{rule}
}

// relocation returns the rule that maps recorded, a table's recorded
// location, to the folder above the "metadata/" folder that holds
// metadataFile, when metadataFile lies outside recorded.
func relocation(metadataFile, recorded string) (fileio.Rule, bool) {
	// A relative metadata location names no place of its own.
	if _, ok := fileio.CleanLocation(metadataFile); !ok || fileio.Under(metadataFile, recorded) {
		return fileio.Rule{}, false
	}
	metaDir, ok := parentLocation(metadataFile)
	if !ok || path.Base(metaDir) != "metadata" {
		return fileio.Rule{}, false
	}
	folder, ok := parentLocation(metaDir)
	if !ok || folder == "." {
		return fileio.Rule{}, false
	}
	return fileio.Rule{From: recorded, To: folder}, true
}
