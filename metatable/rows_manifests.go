package metatable

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg"
)

// manifestRow is one manifest of a manifest list: a row of the manifests
// table, or of all_manifests with the snapshot whose list it is in.
type manifestRow struct {
	mf        *iceberg.ManifestFile
	spec      iceberg.PartitionSpec
	partType  *iceberg.StructType // the spec's partition type
	reference int64
}

// manifestColumns are the columns of the manifests and all_manifests
// tables (ManifestsTable, AllManifestsTable): the counts of data files
// for a data manifest and of delete files for a delete manifest, each 0
// for the other kind, and the partition summaries' bounds as the
// transform's human strings.
var manifestColumns = columns[*manifestRow]{
	idManifestContent:  func(r *manifestRow, _ iceberg.Type) (any, error) { return int32(r.mf.Content), nil },
	idManifestPath:     func(r *manifestRow, _ iceberg.Type) (any, error) { return r.mf.Path, nil },
	idManifestLength:   func(r *manifestRow, _ iceberg.Type) (any, error) { return r.mf.Length, nil },
	idManifestSpecID:   func(r *manifestRow, _ iceberg.Type) (any, error) { return int32(r.mf.SpecID), nil },
	idManifestSnapshot: func(r *manifestRow, _ iceberg.Type) (any, error) { return r.mf.AddedSnapshotID, nil },
	idAddedData:        fileCount(iceberg.ManifestContentData, func(mf *iceberg.ManifestFile) int64 { return mf.AddedFilesCount }),
	idExistingData:     fileCount(iceberg.ManifestContentData, func(mf *iceberg.ManifestFile) int64 { return mf.ExistingFilesCount }),
	idDeletedData:      fileCount(iceberg.ManifestContentData, func(mf *iceberg.ManifestFile) int64 { return mf.DeletedFilesCount }),
	idAddedDeletes:     fileCount(iceberg.ManifestContentDeletes, func(mf *iceberg.ManifestFile) int64 { return mf.AddedFilesCount }),
	idExistingDeletes:  fileCount(iceberg.ManifestContentDeletes, func(mf *iceberg.ManifestFile) int64 { return mf.ExistingFilesCount }),
	idDeletedDeletes:   fileCount(iceberg.ManifestContentDeletes, func(mf *iceberg.ManifestFile) int64 { return mf.DeletedFilesCount }),
	idSummaries:        summaries,
	idReferenceSnapshot: func(r *manifestRow, _ iceberg.Type) (any, error) {
		return r.reference, nil
	},
	idManifestKey: func(r *manifestRow, _ iceberg.Type) (any, error) {
		if r.mf.KeyMetadata == nil {
			return nil, nil
		}
		return r.mf.KeyMetadata, nil
	},
}

// fileCount is a count column of manifests of one content; a count the
// list does not record (v1, -1) is null.
func fileCount(content iceberg.ManifestContent, count func(*iceberg.ManifestFile) int64) valueFunc[*manifestRow] {
	return func(r *manifestRow, _ iceberg.Type) (any, error) {
		if r.mf.Content != content {
			return int32(0), nil
		}
		n := count(r.mf)
		if n < 0 {
			return nil, nil
		}
		return int32(n), nil
	}
}

// summaries is partition_summaries: per field of the manifest's spec,
// whether it holds nulls and NaNs and its bounds as human strings ("null"
// for a bound the list does not record, as Java's toHumanString of null).
func summaries(r *manifestRow, t iceberg.Type) (any, error) {
	if r.mf.Partitions == nil {
		return nil, nil
	}
	elem := t.(*iceberg.ListType).Element.(*iceberg.StructType)
	out := make([]any, len(r.mf.Partitions))
	for i, s := range r.mf.Partitions {
		if i >= len(r.spec.Fields) {
			return nil, fmt.Errorf("manifest %s has %d partition summaries, its spec %d %d fields", r.mf.Path, len(r.mf.Partitions), r.spec.ID, len(r.spec.Fields))
		}
		pf, ft := r.spec.Fields[i], r.partType.Fields[i].Type
		m := make(map[int]any, len(elem.Fields))
		for _, f := range elem.Fields {
			var err error
			switch f.ID {
			case 10:
				m[f.ID] = s.ContainsNull
			case 11:
				if s.ContainsNaN != nil {
					m[f.ID] = *s.ContainsNaN
				}
			case 12:
				m[f.ID], err = humanBound(pf, ft, s.LowerBound)
			case 13:
				m[f.ID], err = humanBound(pf, ft, s.UpperBound)
			}
			if err != nil {
				return nil, fmt.Errorf("manifest %s: partition field %s: %w", r.mf.Path, pf.Name, err)
			}
		}
		out[i] = m
	}
	return out, nil
}

// humanBound is a summary bound as Java's manifests table shows it.
func humanBound(f iceberg.PartitionField, t iceberg.Type, b []byte) (string, error) {
	if b == nil {
		return iceberg.HumanString(f.Transform, t, nil), nil
	}
	v, err := iceberg.DecodeValue(t, b)
	if err != nil {
		return "", err
	}
	return iceberg.HumanString(f.Transform, t, v), nil
}

// readManifestRows streams the manifests table (the snapshot's manifest
// list) or a unit of all_manifests (the lists of its snapshots).
func readManifestRows(ctx context.Context, s *scanState, u Unit, emit func(arrow.RecordBatch) error, o *options) error {
	w, err := newRowWriter(ctx, s, manifestColumns, emit, o)
	if err != nil {
		return err
	}
	defer w.release()
	snaps := []*iceberg.Snapshot{s.snap}
	if s.kind == AllManifests {
		snaps = snaps[:0]
		for _, id := range u.Snapshots {
			snap, ok := s.t.Metadata.SnapshotByID(id)
			if !ok {
				return fmt.Errorf("%w: all_manifests: snapshot %d is not in the table's metadata", ErrInvalidUnit, id)
			}
			snaps = append(snaps, snap)
		}
	}
	types := map[int]*iceberg.StructType{}
	for _, snap := range snaps {
		if snap == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		mfs, err := manifestList(ctx, s.t, snap, o)
		if err != nil {
			return err
		}
		o.stats.hold(len(mfs))
		for i := range mfs {
			spec, ok := s.t.Metadata.SpecByID(mfs[i].SpecID)
			if !ok {
				return fmt.Errorf("manifest %s: %w: partition spec %d is not in the table metadata", mfs[i].Path, iceberg.ErrInvalidMetadata, mfs[i].SpecID)
			}
			pt, ok := types[spec.ID]
			if !ok {
				pt = spec.PartitionType(s.t.Metadata.CurrentSchema())
				types[spec.ID] = pt
			}
			if err := w.add(&manifestRow{mf: &mfs[i], spec: spec, partType: pt, reference: snap.SnapshotID}); err != nil {
				return err
			}
		}
		o.stats.release(len(mfs))
	}
	return w.flush()
}
