package writer

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// statisticsFile is a statistics or partition-statistics file of the
// table metadata.
type statisticsFile struct {
	SnapshotID int64  `json:"snapshot-id"`
	Path       string `json:"statistics-path"`
	Size       int64  `json:"file-size-in-bytes"`
}

// statisticsOf returns the statistics and partition statistics files md
// lists. An entry whose path cannot be read is an error: maintenance must
// never lose track of a file.
func statisticsOf(md *iceberg.TableMetadata) ([]statisticsFile, error) {
	var out []statisticsFile
	for _, list := range [][]iceberg.StatisticsFile{md.Statistics, md.PartitionStatistics} {
		for _, e := range list {
			var f statisticsFile
			if err := json.Unmarshal(e.JSON, &f); err != nil || f.Path == "" {
				return nil, fmt.Errorf("%w: statistics entry of snapshot %d names no file", iceberg.ErrInvalidMetadata, e.SnapshotID)
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// referencedFiles returns, by normalised location, every file the table's
// metadata reaches (catalog.ReachableFiles: the current metadata file and
// those of its metadata log, the manifest lists and manifests of every
// snapshot, every data and delete file any manifest names, DELETED
// entries too, since a reader of an older snapshot may still be planning
// with them, and the statistics files). Locations are mapped as the
// table's IO maps them, so a relocated table compares the files where
// they are.
func referencedFiles(ctx context.Context, t *catalog.Table) (map[string]bool, error) {
	files, err := catalog.ReachableFiles(ctx, t.IO, t.Metadata, t.MetadataLocation)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, loc := range files.All() {
		if loc != "" {
			seen[normalizeLocation(mapLocation(t, loc))] = true
		}
	}
	return seen, nil
}

// mapLocation returns where a recorded location really is, as t.IO maps
// it (a relocated table's metadata names its old place).
func mapLocation(t *catalog.Table, loc string) string {
	if m, ok := t.IO.(interface{ Map(string) string }); ok {
		return m.Map(loc)
	}
	return loc
}

// normalizeLocation spells a location one way for comparison: s3a and s3n
// are s3 (Hadoop's names for the same buckets), every local spelling
// ("/a", "file:/a", "file:///a", "file://localhost/a") is the bare path,
// the scheme is lower case, and the path is cleaned of "." and ".."
// segments, duplicate and trailing slashes.
func normalizeLocation(loc string) string {
	scheme := fileio.Scheme(loc)
	switch scheme {
	case "":
		if strings.HasPrefix(loc, "/") {
			return path.Clean(loc)
		}
		return loc
	case "file":
		if p, err := fileio.LocalPath(loc); err == nil {
			return path.Clean(p)
		}
	case "s3a", "s3n":
		scheme = "s3"
	}
	rest := loc[strings.Index(loc, ":")+1:]
	authority := ""
	if strings.HasPrefix(rest, "//") {
		var p string
		authority, p, _ = strings.Cut(rest[2:], "/")
		rest = "/" + p
	}
	return scheme + "://" + authority + path.Clean("/"+rest)
}
