package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// purgeWorkers bounds the manifests read, and the files deleted, at once
// by a purge.
const purgeWorkers = 8

// maxManifestBytes bounds what one manifest or manifest list read by a
// purge may take into memory.
const maxManifestBytes = 1 << 30

// TableFiles is what a purge of a table deletes, in the order it deletes
// them: the data and delete files first and the current metadata file
// last, so a purge cut short leaves a table whose remaining files its
// metadata still reaches.
type TableFiles struct {
	// Content is the data and delete files every manifest names, in any
	// status (a DELETED entry's file is still there for older snapshots).
	Content []string
	// Manifests is the manifests of every snapshot.
	Manifests []string
	// ManifestLists is the manifest list of every snapshot.
	ManifestLists []string
	// Metadata is the metadata files of the metadata log, then the
	// statistics and partition-statistics files.
	Metadata []string
	// Current is the current metadata file.
	Current string
}

// All returns every file of f, in deletion order.
func (f TableFiles) All() []string {
	out := make([]string, 0, len(f.Content)+len(f.Manifests)+len(f.ManifestLists)+len(f.Metadata)+1)
	out = append(out, f.Content...)
	out = append(out, f.Manifests...)
	out = append(out, f.ManifestLists...)
	out = append(out, f.Metadata...)
	if f.Current != "" {
		out = append(out, f.Current)
	}
	return out
}

// PurgeFiles returns the files a purge of the table deletes: those it
// reaches (ReachableFiles), without its data and delete files when its
// gc.enabled is false, as Iceberg Java's CatalogUtil.dropTableData keeps
// them then (they may be shared with another table).
//
// A manifest list or manifest that is already gone is passed over (what it
// named cannot be found, and there is nothing of it to delete), so a table
// whose files were partly lost can still be purged; one that is there but
// cannot be read fails the purge before anything is deleted.
func PurgeFiles(ctx context.Context, fio fileio.FileIO, md *iceberg.TableMetadata, metadataLocation string) (TableFiles, error) {
	files, err := reachable(ctx, fio, md, metadataLocation, true)
	if err == nil && !gcEnabled(md) {
		files.Content = nil
	}
	return files, err
}

// ReachableFiles returns the files the metadata md, read from
// metadataLocation, reaches, as Iceberg Java's CatalogUtil.dropTableData
// finds them, and as orphan file removal must keep them: every snapshot's manifest list and manifests,
// every file those manifests name, the metadata log, the statistics and
// partition-statistics files, and metadataLocation. Nothing is listed, so
// files of another table below the same folder are never among them.
// Manifest lists and manifests are read through fio a few at a time; one
// that cannot be read, a missing one included, fails the call, since a
// purge must not run on a table whose files it cannot all find.
func ReachableFiles(ctx context.Context, fio fileio.FileIO, md *iceberg.TableMetadata, metadataLocation string) (TableFiles, error) {
	return reachable(ctx, fio, md, metadataLocation, false)
}

// reachable is ReachableFiles; with skipMissing a manifest list or
// manifest that does not exist counts as empty.
func reachable(ctx context.Context, fio fileio.FileIO, md *iceberg.TableMetadata, metadataLocation string, skipMissing bool) (TableFiles, error) {
	var out TableFiles
	manifests, lists, err := snapshotsManifests(ctx, fio, md, skipMissing)
	if err != nil {
		return out, err
	}
	out.ManifestLists = lists
	for _, mf := range manifests {
		out.Manifests = append(out.Manifests, mf.Path)
	}
	if out.Content, err = manifestsContent(ctx, fio, manifests, skipMissing); err != nil {
		return out, err
	}
	for _, e := range md.MetadataLog {
		out.Metadata = append(out.Metadata, e.MetadataFile)
	}
	stats, err := statisticsPaths(md)
	if err != nil {
		return out, err
	}
	out.Metadata = append(out.Metadata, stats...)
	out.Current = metadataLocation
	return out, nil
}

// RemoveFiles deletes the files of a dropped table that ReachableFiles
// found, and no other: Iceberg Java's CatalogUtil.dropTableData. Groups go
// in their order, each a few files at a time, the current metadata file
// last. A file already gone is not an error, and one that cannot be
// deleted does not stop the others (as Java carries on), the error then
// naming the first failure and how many there were.
func RemoveFiles(ctx context.Context, fio fileio.FileIO, files TableFiles) error {
	var failed int
	var first error
	for _, group := range [][]string{files.Content, files.Manifests, files.ManifestLists, files.Metadata, {files.Current}} {
		n, err := removeEach(ctx, fio, group)
		failed += n
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("purge: %d of %d files could not be deleted, the first: %w", failed, len(files.All()), first)
	}
	return nil
}

// removeEach deletes locs a few at a time and returns how many could not
// be deleted and the first such error; a file not found counts as deleted.
func removeEach(ctx context.Context, fio fileio.FileIO, locs []string) (failed int, first error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, purgeWorkers)
	for _, loc := range locs {
		if loc == "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := fileio.Remove(ctx, fio, loc)
			if err == nil || errors.Is(err, fileio.ErrNotFound) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			failed++
			if first == nil {
				first = fmt.Errorf("delete %s: %w", loc, err)
			}
		}()
	}
	wg.Wait()
	return failed, first
}

// gcEnabled reports the table property gc.enabled, true unless set to
// anything but "true" (Java's Boolean.parseBoolean, case aside).
func gcEnabled(md *iceberg.TableMetadata) bool {
	v, ok := md.Properties["gc.enabled"]
	return !ok || strings.EqualFold(v, "true")
}

// snapshotsManifests reads every snapshot's manifest list, a few at a
// time, and returns the distinct manifests (by location, in snapshot
// order) and manifest lists.
func snapshotsManifests(ctx context.Context, fio fileio.FileIO, md *iceberg.TableMetadata, skipMissing bool) ([]iceberg.ManifestFile, []string, error) {
	perSnapshot := make([][]iceberg.ManifestFile, len(md.Snapshots))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(purgeWorkers)
	for i := range md.Snapshots {
		g.Go(func() error {
			mfs, err := snapshotManifests(gctx, fio, md.FormatVersion, &md.Snapshots[i])
			if skipMissing && errors.Is(err, fileio.ErrNotFound) {
				return nil
			}
			perSnapshot[i] = mfs
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var manifests []iceberg.ManifestFile
	var lists []string
	seen := map[string]bool{}
	for i, mfs := range perSnapshot {
		if l := md.Snapshots[i].ManifestList; l != "" && !seen[l] {
			seen[l] = true
			lists = append(lists, l)
		}
		for _, mf := range mfs {
			if !seen[mf.Path] {
				seen[mf.Path] = true
				manifests = append(manifests, mf)
			}
		}
	}
	return manifests, lists, nil
}

// snapshotManifests returns the manifests of s: its manifest list's
// entries, or for a v1 snapshot without a list the manifests it names.
func snapshotManifests(ctx context.Context, fio fileio.FileIO, formatVersion int, s *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	if s.ManifestList == "" {
		mfs, err := manifest.FromPaths(s, func(p string) (io.ReadCloser, error) {
			b, err := fileio.ReadAll(ctx, fio, p, maxManifestBytes)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(strings.NewReader(string(b))), nil
		})
		if err != nil {
			return nil, fmt.Errorf("read manifests of snapshot %d: %w", s.SnapshotID, err)
		}
		return mfs, nil
	}
	b, err := fileio.ReadAll(ctx, fio, s.ManifestList, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", s.ManifestList, s.SnapshotID, err)
	}
	mfs, err := manifest.ReadList(strings.NewReader(string(b)), formatVersion, s)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", s.ManifestList, s.SnapshotID, err)
	}
	return mfs, nil
}

// manifestsContent reads manifests a few at a time and returns the
// distinct files their entries name, in manifest order.
func manifestsContent(ctx context.Context, fio fileio.FileIO, manifests []iceberg.ManifestFile, skipMissing bool) ([]string, error) {
	perManifest := make([][]string, len(manifests))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(purgeWorkers)
	for i, mf := range manifests {
		g.Go(func() error {
			b, err := fileio.ReadAll(gctx, fio, mf.Path, maxManifestBytes)
			if skipMissing && errors.Is(err, fileio.ErrNotFound) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read manifest %s: %w", mf.Path, err)
			}
			// Only the paths are wanted: no partition types, no metrics.
			entries, err := manifest.Read(strings.NewReader(string(b)), mf, nil, manifest.WithMetrics(iceberg.MetricColumns{}))
			if err != nil {
				return fmt.Errorf("read manifest %s: %w", mf.Path, err)
			}
			paths := make([]string, len(entries))
			for j, e := range entries {
				paths[j] = e.DataFile.Path
			}
			perManifest[i] = paths
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, paths := range perManifest {
		for _, p := range paths {
			// Deletion vectors of one commit share a Puffin file.
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// statisticsPaths returns the files of md's statistics and partition
// statistics entries; an entry naming no file is invalid metadata.
func statisticsPaths(md *iceberg.TableMetadata) ([]string, error) {
	var out []string
	for _, list := range [][]iceberg.StatisticsFile{md.Statistics, md.PartitionStatistics} {
		for _, e := range list {
			var f struct {
				Path string `json:"statistics-path"`
			}
			if err := json.Unmarshal(e.JSON, &f); err != nil || f.Path == "" {
				return nil, fmt.Errorf("%w: statistics entry of snapshot %d names no file", iceberg.ErrInvalidMetadata, e.SnapshotID)
			}
			out = append(out, f.Path)
		}
	}
	return out, nil
}
