package writer

import (
	"context"
	"fmt"
	"strconv"
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
	objectStore := md.Properties[propObjectStorage] == "true"
	partitionedPaths := md.Properties[propObjectStoragePartitioned] != "false"
	loc := func(partitionPath string) string {
		name := names.next("parquet")
		switch {
		case objectStore && (!partitionedPaths || partitionPath == ""):
			return dir + "/" + entropyDirs(name) + "-" + name
		case objectStore:
			return dir + "/" + entropyDirs(name) + "/" + partitionPath + "/" + name
		case partitionPath == "":
			return dir + "/" + name
		}
		return dir + "/" + partitionPath + "/" + name
	}
	dw, err := datafile.New(ctx, t.IO, md.CurrentSchema(), spec, loc, datafile.Options{Properties: md.Properties, Allocator: w.mem})
	if err != nil {
		return nil, fmt.Errorf("table %s: start data files: %w", t.Identifier, err)
	}
	return dw, nil
}

// Object storage layout properties (Java's ObjectStoreLocationProvider).
const (
	propObjectStorage            = "write.object-storage.enabled"
	propObjectStoragePartitioned = "write.object-storage.partitioned-paths"
)

// entropyDirs is Java's ObjectStoreLocationProvider.computeHash: the low
// 20 bits of the file name's murmur3 hash in binary, leading zeros kept,
// as three folders of 4 bits and one of 8 ("0101/1100/0011/10010110"), so
// that files spread over an object store's key prefixes.
func entropyDirs(name string) string {
	h, _ := iceberg.HashValue(iceberg.StringType{}, name) // a string always hashes
	bits := strconv.FormatUint(uint64(uint32(h)|1<<31), 2)
	bits = bits[len(bits)-20:]
	return bits[0:4] + "/" + bits[4:8] + "/" + bits[8:12] + "/" + bits[12:]
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
