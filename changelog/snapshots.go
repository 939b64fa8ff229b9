package changelog

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// rangeSnapshot is a snapshot of the range with its ordinal.
type rangeSnapshot struct {
	snap    *iceberg.Snapshot
	ordinal int
}

// walkRange returns the snapshots after from (exclusive; nil for the
// oldest ancestor) up to to (inclusive) along to's ancestry, oldest first,
// without the replace snapshots, which change no rows (Java's
// BaseIncrementalChangelogScan leaves them out, and they take no ordinal).
// A snapshot of the range missing from the metadata is ErrSnapshotExpired;
// from, like Java's start, is checked against parent ids, so it may itself
// have expired. Without from the range begins at the oldest ancestor still
// in the metadata.
func walkRange(md *iceberg.TableMetadata, from *int64, to int64) ([]rangeSnapshot, error) {
	byID := make(map[int64]*iceberg.Snapshot, len(md.Snapshots))
	for i := range md.Snapshots {
		byID[md.Snapshots[i].SnapshotID] = &md.Snapshots[i]
	}
	s, ok := byID[to]
	if !ok {
		return nil, fmt.Errorf("%w: end snapshot %d", ErrSnapshotNotFound, to)
	}
	if from != nil && *from == to {
		return nil, nil
	}
	var newestFirst []*iceberg.Snapshot
	for steps := 0; ; steps++ {
		if steps > len(md.Snapshots) {
			return nil, fmt.Errorf("%w: the parents of snapshot %d loop", ErrInvalidRequest, to)
		}
		newestFirst = append(newestFirst, s)
		if s.ParentSnapshotID == nil {
			if from != nil {
				return nil, fmt.Errorf("%w: start snapshot %d is not an ancestor of end snapshot %d", ErrInvalidRequest, *from, to)
			}
			break
		}
		parent := *s.ParentSnapshotID
		if from != nil && parent == *from {
			break
		}
		next, ok := byID[parent]
		if !ok && from == nil {
			// Without a start the range begins at the oldest snapshot
			// still in the metadata, as Java's does.
			break
		}
		if !ok {
			return nil, fmt.Errorf("%w: snapshot %d, parent of %d, is not in the metadata, so the range from %d to %d cannot be read",
				ErrSnapshotExpired, parent, s.SnapshotID, *from, to)
		}
		s = next
	}
	var out []rangeSnapshot
	for i := len(newestFirst) - 1; i >= 0; i-- {
		if newestFirst[i].Operation() == "replace" {
			continue
		}
		out = append(out, rangeSnapshot{snap: newestFirst[i], ordinal: len(out)})
	}
	return out, nil
}
