package writer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// defaultOrphanAge is how old a file must be before remove_orphan_files
// takes it for an orphan: Iceberg Java's and ClickHouse's 3 days, so that
// the files of a commit still being written are never taken.
const defaultOrphanAge = 3 * 24 * time.Hour

// RemoveOrphanFiles deletes the files below the table's location (or
// req.Location, which must lie in it) that no metadata of the table
// references (see referencedFiles) and that are older than req.OlderThan
// (default 3 days ago). Locations compare after normalisation (s3, s3a and
// s3n are one; local spellings are one; trailing slashes and "." segments
// do not count) and after the table's location mapping. It refuses, with
// an error wrapping fileio.ErrUnsupportedScheme, a store that cannot list
// folders; a file of unknown age is never removed.
func (w *Writer) RemoveOrphanFiles(ctx context.Context, id catalog.Identifier, req OrphanRequest) (*MaintenanceResult, error) {
	now := w.now()
	olderThan := req.OlderThan
	if olderThan.IsZero() {
		olderThan = now.Add(-defaultOrphanAge)
	}
	if olderThan.After(now) {
		return nil, fmt.Errorf("remove orphan files of %s: %w: older_than %s is in the future", id, ErrInvalidArgument, olderThan.UTC().Format(time.RFC3339))
	}
	t, err := w.load(ctx, id)
	if err != nil {
		return nil, err
	}
	root := tableLocation(t)
	if req.Location != "" {
		loc := strings.TrimRight(req.Location, "/")
		if !fileio.Under(normalizeLocation(loc), normalizeLocation(root)) && !fileio.Under(loc, root) {
			return nil, fmt.Errorf("remove orphan files of %s: %w: location %s is not inside the table location %s", id, ErrInvalidArgument, req.Location, root)
		}
		root = loc
	}
	// List first: a store that cannot list is refused before anything
	// else is read.
	var files []listedFile
	if err := listTree(ctx, t.IO, root, &files); err != nil {
		if errors.Is(err, fileio.ErrUnsupportedScheme) {
			return nil, fmt.Errorf("remove orphan files of %s: the storage of %s cannot list folders, so orphans cannot be found: %w", id, root, err)
		}
		return nil, fmt.Errorf("remove orphan files of %s: %w", id, err)
	}
	refs, err := referencedFiles(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("remove orphan files of %s: %w", id, err)
	}
	var orphans []RemovedFile
	for _, f := range files {
		if refs[normalizeLocation(f.location)] || f.name == "version-hint.text" {
			continue
		}
		if f.modTime.IsZero() || !f.modTime.Before(olderThan) {
			continue
		}
		orphans = append(orphans, RemovedFile{Location: f.location, Kind: orphanKind(f.location), Size: f.size})
	}
	sortRemoved(orphans)
	if req.DryRun {
		if orphans == nil {
			orphans = []RemovedFile{}
		}
		return &MaintenanceResult{DryRun: true, Removed: orphans, Counts: countKinds(orphans)}, nil
	}
	removed, counts, err := removeAll(ctx, t.IO, orphans)
	if removed == nil {
		removed = []RemovedFile{}
	}
	res := &MaintenanceResult{Removed: removed, Counts: counts}
	if err != nil {
		return res, fmt.Errorf("remove orphan files of %s: %w", id, err)
	}
	return res, nil
}

// listedFile is one file found below the table location.
type listedFile struct {
	location, name string
	size           int64
	modTime        time.Time
}

// listTree appends every file below dir, depth first.
func listTree(ctx context.Context, fio fileio.FileIO, dir string, out *[]listedFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := fileio.ReadDir(ctx, fio, dir)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		loc := strings.TrimRight(dir, "/") + "/" + e.Name
		if e.IsDir {
			if err := listTree(ctx, fio, loc, out); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, listedFile{location: loc, name: e.Name, size: e.Size, modTime: e.ModTime})
	}
	return nil
}

// orphanKind guesses what an unreferenced file was from its name, as the
// Iceberg writers name them.
func orphanKind(loc string) string {
	name := loc[strings.LastIndex(loc, "/")+1:]
	inMetadata := strings.Contains(loc, "/metadata/")
	switch {
	case strings.HasSuffix(name, ".metadata.json") || strings.HasSuffix(name, ".metadata.json.gz") || strings.HasSuffix(name, ".gz.metadata.json"):
		return kindMetadata
	case strings.HasSuffix(name, ".stats") || strings.HasSuffix(name, ".puffin") && inMetadata:
		return kindStatistics
	case inMetadata && strings.HasPrefix(name, "snap-") && strings.HasSuffix(name, ".avro"):
		return kindManifestList
	case inMetadata && strings.HasSuffix(name, ".avro"):
		return kindManifest
	case strings.HasSuffix(name, ".parquet") || strings.HasSuffix(name, ".orc") || strings.HasSuffix(name, ".avro") || strings.HasSuffix(name, ".puffin"):
		return kindData
	}
	return kindOther
}
