package writer

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/writer/datafile"
)

// liveFiles are a snapshot's live data and delete files, by recorded
// location.
type liveFiles struct {
	data    map[string]iceberg.ManifestEntry
	deletes []iceberg.ManifestEntry
}

// branchHead returns the snapshot a branch points at; for a branch that
// does not exist yet, the current snapshot it will fork from, as Java's
// SnapshotUtil.latestSnapshot (nil for a table without snapshots).
func branchHead(md *iceberg.TableMetadata, branch string) (*iceberg.Snapshot, error) {
	if branch == "" {
		branch = mainBranch
	}
	ref, ok := md.Refs[branch]
	if !ok {
		return md.CurrentSnapshot(), nil
	}
	if ref.Type == iceberg.RefTag {
		return nil, fmt.Errorf("%w: %q is a tag, not a branch", ErrInvalidArgument, branch)
	}
	s, ok := md.SnapshotByID(ref.SnapshotID)
	if !ok {
		return nil, fmt.Errorf("%w: branch %q points to missing snapshot %d", iceberg.ErrInvalidMetadata, branch, ref.SnapshotID)
	}
	return s, nil
}

// readLive reads every manifest of a snapshot and returns its live files.
func readLive(ctx context.Context, t *catalog.Table, s *iceberg.Snapshot) (*liveFiles, error) {
	out := &liveFiles{data: map[string]iceberg.ManifestEntry{}}
	if s == nil {
		return out, nil
	}
	p := &producer{t: t, md: t.Metadata}
	mfs, err := p.readList(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, mf := range mfs {
		entries, err := readManifest(ctx, t, mf)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Status == iceberg.EntryDeleted {
				continue
			}
			if e.DataFile.Content == iceberg.FileContentData {
				out.data[e.DataFile.Path] = e
			} else {
				out.deletes = append(out.deletes, e)
			}
		}
	}
	return out, nil
}

// fileNames numbers the data files of one writer: <uuid>-<n>.parquet,
// the uuid fresh per writer so that attempts and writers never collide.
type fileNames struct {
	prefix string
	n      atomic.Int64
}

func (f *fileNames) next(ext string) string {
	return fmt.Sprintf("%s-%05d.%s", f.prefix, f.n.Add(1)-1, ext)
}

// newDataWriter starts data files of the table's current schema and
// default spec at <data>/<partition>/<uuid>-<n>.parquet.
func (w *Writer) newDataWriter(ctx context.Context, t *catalog.Table) (*datafile.Writer, error) {
	md := t.Metadata
	spec, ok := md.SpecByID(md.DefaultSpecID)
	if !ok {
		return nil, fmt.Errorf("table %s: %w: no default partition spec %d", t.Identifier, iceberg.ErrInvalidMetadata, md.DefaultSpecID)
	}
	dir := dataDir(t)
	names := &fileNames{prefix: newUUID()}
	loc := func(partitionPath string) string {
		if partitionPath == "" {
			return dir + "/" + names.next("parquet")
		}
		return dir + "/" + partitionPath + "/" + names.next("parquet")
	}
	dw, err := datafile.New(ctx, t.IO, md.CurrentSchema(), spec, loc, datafile.Options{Properties: md.Properties, Allocator: w.mem})
	if err != nil {
		return nil, fmt.Errorf("table %s: start data files: %w", t.Identifier, err)
	}
	return dw, nil
}

// paths returns the locations of files.
func paths(files []iceberg.DataFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// removeDataFiles deletes the files of a write that did not commit.
func (w *Writer) removeDataFiles(ctx context.Context, fio fileio.FileIO, files []iceberg.DataFile) {
	w.removeFiles(context.WithoutCancel(ctx), fio, paths(files))
}
