package writer

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// maintenanceReaders bounds the manifests read at once by maintenance.
const maintenanceReaders = 4

// Kinds of removed files (RemovedFile.Kind).
const (
	kindData            = "data"
	kindPositionDeletes = "position-deletes"
	kindEqualityDeletes = "equality-deletes"
	kindManifest        = "manifest"
	kindManifestList    = "manifest-list"
	kindMetadata        = "metadata"
	kindStatistics      = "statistics"
	kindOther           = "other"
)

func contentKind(c iceberg.FileContent) string {
	switch c {
	case iceberg.FileContentPositionDeletes:
		return kindPositionDeletes
	case iceberg.FileContentEqualityDeletes:
		return kindEqualityDeletes
	}
	return kindData
}

// snapshotManifests returns the manifests of s: its manifest list's
// entries, or for a v1 snapshot without a list the manifests it names.
func snapshotManifests(ctx context.Context, t *catalog.Table, s *iceberg.Snapshot) ([]iceberg.ManifestFile, error) {
	if s.ManifestList == "" {
		return manifest.FromPaths(s, func(p string) (io.ReadCloser, error) {
			b, err := fileio.ReadAll(ctx, t.IO, p, maxManifestBytes)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(strings.NewReader(string(b))), nil
		})
	}
	b, err := fileio.ReadAll(ctx, t.IO, s.ManifestList, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", s.ManifestList, s.SnapshotID, err)
	}
	mfs, err := manifest.ReadList(strings.NewReader(string(b)), t.Metadata.FormatVersion, s)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s of snapshot %d: %w", s.ManifestList, s.SnapshotID, err)
	}
	return mfs, nil
}

// manifestSet is the manifests (by location) and manifest lists of a set
// of snapshots.
type manifestSet struct {
	lists     map[string]bool
	manifests map[string]iceberg.ManifestFile
}

// collectManifests reads the manifest lists of snaps, a few at a time.
// With skipMissing, a list that is not found is left out instead of
// failing the call.
func collectManifests(ctx context.Context, t *catalog.Table, snaps []iceberg.Snapshot, skipMissing bool) (manifestSet, error) {
	out := manifestSet{lists: map[string]bool{}, manifests: map[string]iceberg.ManifestFile{}}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(maintenanceReaders)
	for i := range snaps {
		s := &snaps[i]
		g.Go(func() error {
			mfs, err := snapshotManifests(ctx, t, s)
			if skipMissing && isNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if s.ManifestList != "" {
				out.lists[s.ManifestList] = true
			}
			for _, mf := range mfs {
				out.manifests[mf.Path] = mf
			}
			return nil
		})
	}
	return out, g.Wait()
}

// manifestEntries reads every manifest of mfs, a few at a time, and calls
// visit with each manifest's entries (one call at a time). With
// skipMissing, a manifest that is not found is not visited.
func manifestEntries(ctx context.Context, t *catalog.Table, mfs map[string]iceberg.ManifestFile, skipMissing bool, visit func(mf iceberg.ManifestFile, entries []iceberg.ManifestEntry)) error {
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(maintenanceReaders)
	for _, mf := range mfs {
		g.Go(func() error {
			entries, err := readManifest(ctx, t, mf)
			if skipMissing && isNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			visit(mf, entries)
			return nil
		})
	}
	return g.Wait()
}

// unreachableFiles returns the files that expired snapshots reference and
// no remaining snapshot does, as Iceberg Java's ReachableFileCleanup finds
// them: manifest lists of expired snapshots, manifests no remaining
// snapshot lists, and the data and delete files of those manifests that
// are not live in any remaining manifest. A file is live for a snapshot
// exactly when one of its manifests has an ADDED or EXISTING entry for
// it, so the remaining manifests' live entries are all that must stay.
//
// An expired snapshot's list or manifest that is already gone is skipped:
// a concurrent expiry that removed the same snapshot cleaned it first, and
// what cannot be read is not deleted. A remaining snapshot's file that is
// gone fails the call with an error that wraps fileio.ErrNotFound, since
// without it nothing proves a candidate unreferenced.
func unreachableFiles(ctx context.Context, t *catalog.Table, expired, remaining []iceberg.Snapshot) ([]RemovedFile, error) {
	gone, err := collectManifests(ctx, t, expired, true)
	if err != nil {
		return nil, err
	}
	kept, err := collectManifests(ctx, t, remaining, false)
	if err != nil {
		return nil, err
	}
	var out []RemovedFile
	for l := range gone.lists {
		if !kept.lists[l] {
			out = append(out, RemovedFile{Location: l, Kind: kindManifestList})
		}
	}
	candidates := map[string]iceberg.ManifestFile{}
	for p, mf := range gone.manifests {
		if _, ok := kept.manifests[p]; !ok {
			candidates[p] = mf
			size := mf.Length
			if size < 0 {
				size = 0
			}
			out = append(out, RemovedFile{Location: p, Kind: kindManifest, Size: size})
		}
	}
	if len(candidates) == 0 {
		return out, nil
	}
	files := map[string]RemovedFile{}
	if err := manifestEntries(ctx, t, candidates, true, func(_ iceberg.ManifestFile, entries []iceberg.ManifestEntry) {
		for _, e := range entries {
			df := e.DataFile
			files[df.Path] = RemovedFile{Location: df.Path, Kind: contentKind(df.Content), Size: df.FileSize}
		}
	}); err != nil {
		return nil, err
	}
	// Every remaining manifest is read: a file can be carried as EXISTING
	// into any later manifest.
	if err := manifestEntries(ctx, t, kept.manifests, false, func(_ iceberg.ManifestFile, entries []iceberg.ManifestEntry) {
		for _, e := range entries {
			if e.Status != iceberg.EntryDeleted {
				delete(files, e.DataFile.Path)
			}
		}
	}); err != nil {
		return nil, err
	}
	for _, f := range files {
		out = append(out, f)
	}
	return out, nil
}

// removeAll deletes files a few at a time, counting them by kind; a file
// already gone counts as removed (another expiry got there first). One
// that cannot be removed is counted as "failed" and the others are still
// removed, as Java's cleanup goes on; the error then names the first
// failure and how many there were.
func removeAll(ctx context.Context, fio fileio.FileIO, files []RemovedFile) (removed []RemovedFile, counts map[string]int, err error) {
	counts = map[string]int{}
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, maintenanceReaders)
	for _, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := fileio.Remove(ctx, fio, f.Location)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && !isNotFound(err) {
				counts["failed"]++
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			removed = append(removed, f)
			counts[f.Kind]++
		}()
	}
	wg.Wait()
	sortRemoved(removed)
	if firstErr != nil {
		err = fmt.Errorf("%d of %d files could not be removed (remove_orphan_files reclaims them), the first: %w", counts["failed"], len(files), firstErr)
	}
	return removed, counts, err
}

func countKinds(files []RemovedFile) map[string]int {
	counts := map[string]int{}
	for _, f := range files {
		counts[f.Kind]++
	}
	return counts
}

// expiredStatistics returns the statistics files that base lists for
// expired snapshots and that no statistics entry of a remaining snapshot
// in kept still names.
func expiredStatistics(base, kept *iceberg.TableMetadata, expired map[int64]bool) ([]RemovedFile, error) {
	gone, err := statisticsOf(base)
	if err != nil {
		return nil, err
	}
	stay, err := statisticsOf(kept)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, s := range stay {
		if !expired[s.SnapshotID] {
			keep[normalizeLocation(s.Path)] = true
		}
	}
	var out []RemovedFile
	seen := map[string]bool{}
	for _, s := range gone {
		n := normalizeLocation(s.Path)
		if expired[s.SnapshotID] && !keep[n] && !seen[n] {
			seen[n] = true
			out = append(out, RemovedFile{Location: s.Path, Kind: kindStatistics, Size: s.Size})
		}
	}
	return out, nil
}
