package planner

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/panics"
)

// Incremental is a range of snapshots whose appended data files a scan
// reads, as Iceberg Java's IncrementalAppendScan plans them: the snapshots
// after FromSnapshotID up to and including ToSnapshotID along
// ToSnapshotID's ancestry, of which only those whose operation is
// "append" contribute, each with the data files its own manifests record
// as ADDED by it. Delete files are not applied, and rows are read with
// the table's current schema.
type Incremental struct {
	// FromSnapshotID is the exclusive start. It must be the parent of a
	// snapshot in ToSnapshotID's ancestry (it may have expired since);
	// nil starts at the oldest ancestor.
	FromSnapshotID *int64
	// ToSnapshotID is the inclusive end.
	ToSnapshotID int64
}

// appendScan is an Incremental resolved against a table's metadata.
type appendScan struct {
	// to is the end snapshot.
	to *iceberg.Snapshot
	// snapshots are the append snapshots of the range, newest first; ids
	// holds their ids.
	snapshots []*iceberg.Snapshot
	ids       map[int64]bool
}

// resolve finds the append snapshots of the range; nil for no range. A
// range combined with a snapshot selection, and a start that is not an
// ancestor of the end, are errors wrapping ErrInvalidRequest; an end that
// is not in the metadata wraps iceberg.ErrSnapshotNotFound.
func (inc *Incremental) resolve(md *iceberg.TableMetadata, sel Selection) (*appendScan, error) {
	if inc == nil {
		return nil, nil
	}
	if sel != (Selection{}) {
		return nil, fmt.Errorf("%w: an incremental scan reads a range of snapshots: it takes no snapshot_id, as_of_timestamp_ms or ref", ErrInvalidRequest)
	}
	byID := make(map[int64]*iceberg.Snapshot, len(md.Snapshots))
	for i := range md.Snapshots {
		byID[md.Snapshots[i].SnapshotID] = &md.Snapshots[i]
	}
	to, ok := byID[inc.ToSnapshotID]
	if !ok {
		return nil, fmt.Errorf("%w: end snapshot %d", iceberg.ErrSnapshotNotFound, inc.ToSnapshotID)
	}
	a := &appendScan{to: to, ids: map[int64]bool{}}
	reached := false
	// The walk ends at the start, at the oldest snapshot still in the
	// metadata, or, in metadata whose parents loop, after as many steps
	// as there are snapshots.
	for s, steps := to, 0; s != nil && steps < len(md.Snapshots); steps++ {
		if s.Operation() == "append" {
			a.snapshots = append(a.snapshots, s)
			a.ids[s.SnapshotID] = true
		}
		if s.ParentSnapshotID == nil {
			break
		}
		parent := *s.ParentSnapshotID
		// Java checks the start against parents, not snapshots, so that an
		// expired start still bounds the range, and the end is never its
		// own start.
		if inc.FromSnapshotID != nil && parent == *inc.FromSnapshotID {
			reached = true
			break
		}
		s = byID[parent]
	}
	if inc.FromSnapshotID != nil && !reached {
		return nil, fmt.Errorf("%w: start snapshot %d is not an ancestor of end snapshot %d", ErrInvalidRequest, *inc.FromSnapshotID, inc.ToSnapshotID)
	}
	return a, nil
}

// keep narrows an entry filter to the files the range's appends added.
func (a *appendScan) keep(next func(iceberg.PartitionSpec, *iceberg.ManifestEntry) bool) func(iceberg.PartitionSpec, *iceberg.ManifestEntry) bool {
	return func(spec iceberg.PartitionSpec, e *iceberg.ManifestEntry) bool {
		return e.Status == iceberg.EntryAdded && a.ids[e.SnapshotID] && next(spec, e)
	}
}

// appendManifests returns the data manifests that the range's append
// snapshots wrote themselves (their added_snapshot_id), each once, read
// from the snapshots' manifest lists: a manifest an append wrote may since
// have been rewritten away from later lists. Manifests of other snapshots
// count as skipped.
func (p *Planner) appendManifests(ctx context.Context, t Table, a *appendScan, stats *Stats) ([]iceberg.ManifestFile, error) {
	lists := make([][]iceberg.ManifestFile, len(a.snapshots))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.concurrency)
	for i, snap := range a.snapshots {
		g.Go(panics.Func(fmt.Sprintf("read the manifest list of snapshot %d", snap.SnapshotID), func() error {
			mfs, err := p.manifests(gctx, t, snap)
			if err != nil {
				return fmt.Errorf("snapshot %d: %w", snap.SnapshotID, err)
			}
			lists[i] = mfs
			return nil
		}))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []iceberg.ManifestFile
	for _, mfs := range lists {
		for _, mf := range mfs {
			if seen[mf.Path] {
				continue
			}
			seen[mf.Path] = true
			if mf.Content != iceberg.ManifestContentData || !a.ids[mf.AddedSnapshotID] {
				stats.ManifestsSkipped++
				continue
			}
			out = append(out, mf)
		}
	}
	return out, nil
}
