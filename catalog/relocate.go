package catalog

import (
	"context"
	"path"
	"strings"

	"github.com/iceflight/iceflight/fileio"
)

// Relocate points t at the folder its metadata file is in when that file
// lies outside the location its metadata records: a table copied, or
// registered with a catalog, away from where it was written still names
// its data and manifests under the old location. The recorded location is
// then mapped to the folder that holds the metadata file's "metadata/"
// folder (the parent of its parent), relative locations are resolved
// against that folder, and t.Location becomes it, as a directory catalog
// does for the tables it finds (see Directory.tableRules); sibling data
// roots copied into the folder's _siblings/ are mapped too (folderRules).
//
// Catalogs without folders (REST, SQL) call it on every table they load.
// It is safe for them because it only redirects into the storage where
// the metadata file itself is, through t.IO: nothing becomes readable
// that the catalog's FileIO could not already read by location. A table
// whose metadata file is not in a folder named "metadata", or whose
// metadata records no location, is left as it is.
func Relocate(ctx context.Context, t *Table) {
	if t.Metadata == nil || t.Metadata.Location == "" {
		return
	}
	rule, ok := relocation(t.MetadataLocation, t.Metadata.Location)
	if !ok {
		return
	}
	list := func(ctx context.Context, dir string) ([]fileio.Entry, error) { return fileio.ReadDir(ctx, t.IO, dir) }
	rules := folderRules(ctx, rule.From, rule.To, joinLocation, list)
	t.IO = fileio.Remap(t.IO, rules...).WithBase(rule.To)
	t.Location = rule.To
	t.rules = rules
}

// folderRules returns the rules that map the files of a table recorded at
// location into folder, where it is now: location → folder, then for
// every folder <folder>/_siblings/<X> that list finds, <parent of
// location>/<X> → <folder>/_siblings/<X>, for tables that wrote data under
// sibling roots (write.data.path) that were copied next to the table.
// join joins a folder and a name as the storage spells paths.
func folderRules(ctx context.Context, location, folder string, join func(dir, name string) string,
	list func(ctx context.Context, dir string) ([]fileio.Entry, error)) []fileio.Rule {
	rules := []fileio.Rule{{From: location, To: folder}}
	parent, ok := parentLocation(location)
	if !ok {
		return rules
	}
	siblings := join(folder, "_siblings")
	entries, err := list(ctx, siblings)
	if err != nil {
		// No siblings folder (or none that can be listed): the table's
		// files are all below its own location.
		return rules
	}
	for _, e := range entries {
		if e.IsDir {
			rules = append(rules, fileio.Rule{
				From: strings.TrimRight(parent, "/") + "/" + e.Name,
				To:   join(siblings, e.Name),
			})
		}
	}
	return rules
}

// joinLocation joins a folder location and a name with "/", as every
// location a catalog without folders hands out is spelled.
func joinLocation(dir, name string) string { return strings.TrimRight(dir, "/") + "/" + name }

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
