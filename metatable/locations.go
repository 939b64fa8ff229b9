package metatable

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// Locations returns every file Read of u opens besides the metadata file,
// as the table's metadata records them: the manifest lists and manifests.
// A server that hands a unit to another process checks them first, as it
// checks the data files of a scan, since the reader of the unit opens them
// unchecked. Only the partitions table's unit needs a file read to know
// them (its snapshot's manifest list).
func Locations(ctx context.Context, t Table, u Unit, opts ...Option) ([]string, error) {
	o := newOptions(opts)
	snapshot := func(id *int64) (*iceberg.Snapshot, error) {
		if id == nil {
			return nil, nil
		}
		snap, ok := t.Metadata.SnapshotByID(*id)
		if !ok {
			return nil, fmt.Errorf("%w: %w: snapshot %d", ErrInvalidUnit, iceberg.ErrSnapshotNotFound, *id)
		}
		return snap, nil
	}
	lists := func(snap *iceberg.Snapshot) []string {
		if snap.ManifestList == "" {
			return snap.Manifests
		}
		return []string{snap.ManifestList}
	}
	var out []string
	switch {
	case u.Kind.fileKind():
		for _, m := range u.Manifests {
			out = append(out, m.Path)
		}
	case u.Kind == AllManifests:
		for _, id := range u.Snapshots {
			snap, err := snapshot(&id)
			if err != nil {
				return nil, err
			}
			out = append(out, lists(snap)...)
		}
	case u.Kind == Manifests || u.Kind == Partitions:
		snap, err := snapshot(u.SnapshotID)
		if err != nil || snap == nil {
			return nil, err
		}
		out = lists(snap)
		if u.Kind == Partitions {
			mfs, err := manifestList(ctx, t, snap, o)
			if err != nil {
				return nil, err
			}
			for _, mf := range mfs {
				out = append(out, mf.Path)
			}
		}
	}
	return out, nil
}
