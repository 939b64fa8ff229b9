package metatable

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg"
)

// The partitions table (PartitionsTable) sums the live data and delete
// files of a snapshot by partition: one pass over its manifests, one at a
// time, into one record per partition. What a read holds is those records
// and one manifest's entries: it grows with the table's partitions, never
// with its files, and the table is one unit since every manifest may add
// to every partition.
//
// A partition is the file's tuple placed in the table's partition type by
// field id (fields of other specs null) together with how many of the
// type's fields the file's spec has: Java's key is a StructProjection
// whose comparator orders by that count first, so a spec-0 file with a
// null in a field only spec 1 has is in another partition than a spec-1
// file with the same values.

// partitionRow is one partition's sums.
type partitionRow struct {
	partition               map[int]any
	specID                  int32
	dataRecords, dataSize   int64
	dataFiles               int32
	posRecords, eqRecords   int64
	posFiles, eqFiles       int32
	lastUpdatedAt, lastSnap int64
	updated                 bool
}

// add counts a live file, added by snap (nil once expired): the partition
// takes the spec of the file of its latest commit, the first such file on
// a tie.
func (p *partitionRow) add(f *iceberg.DataFile, snap *iceberg.Snapshot) {
	if snap != nil {
		at := snap.TimestampMs * 1000
		if !p.updated || at > p.lastUpdatedAt {
			p.specID, p.lastUpdatedAt, p.lastSnap, p.updated = int32(f.SpecID), at, snap.SnapshotID, true
		}
	}
	switch f.Content {
	case iceberg.FileContentData:
		p.dataRecords += f.RecordCount
		p.dataFiles++
		p.dataSize += f.FileSize
	case iceberg.FileContentPositionDeletes:
		p.posRecords += f.RecordCount
		p.posFiles++
	case iceberg.FileContentEqualityDeletes:
		p.eqRecords += f.RecordCount
		p.eqFiles++
	}
}

// partitionColumns are the partitions table's.
var partitionColumns = columns[*partitionRow]{
	idPartition:        func(r *partitionRow, _ iceberg.Type) (any, error) { return r.partition, nil },
	idPartitionSpec:    func(r *partitionRow, _ iceberg.Type) (any, error) { return r.specID, nil },
	idRecordCount:      func(r *partitionRow, _ iceberg.Type) (any, error) { return r.dataRecords, nil },
	idFileCount:        func(r *partitionRow, _ iceberg.Type) (any, error) { return r.dataFiles, nil },
	idDataSizeTotal:    func(r *partitionRow, _ iceberg.Type) (any, error) { return r.dataSize, nil },
	idPosDeleteRecords: func(r *partitionRow, _ iceberg.Type) (any, error) { return r.posRecords, nil },
	idPosDeleteFiles:   func(r *partitionRow, _ iceberg.Type) (any, error) { return r.posFiles, nil },
	idEqDeleteRecords:  func(r *partitionRow, _ iceberg.Type) (any, error) { return r.eqRecords, nil },
	idEqDeleteFiles:    func(r *partitionRow, _ iceberg.Type) (any, error) { return r.eqFiles, nil },
	idLastUpdatedAt: func(r *partitionRow, _ iceberg.Type) (any, error) {
		if !r.updated {
			return nil, nil
		}
		return r.lastUpdatedAt, nil
	},
	idLastUpdatedSnap: func(r *partitionRow, _ iceberg.Type) (any, error) {
		if !r.updated {
			return nil, nil
		}
		return r.lastSnap, nil
	},
}

// readPartitions streams the partitions table of the scan's snapshot.
func readPartitions(ctx context.Context, s *scanState, emit func(arrow.RecordBatch) error, o *options) error {
	if s.snap == nil {
		return nil
	}
	pt, err := partitionType(s.t.Metadata)
	if err != nil {
		return err
	}
	pruner, err := newManifestPruner(s)
	if err != nil {
		return err
	}
	mfs, err := manifestList(ctx, s.t, s.snap, o)
	if err != nil {
		return err
	}
	var order []*partitionRow
	byKey := map[string]*partitionRow{}
	defer func() { o.stats.release(len(order)) }()
	for i := range mfs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ok, err := pruner.keep(&mfs[i]); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		spec, _ := s.t.Metadata.SpecByID(mfs[i].SpecID)
		entries, err := manifestEntries(ctx, s.t, refOf(mfs[i]), iceberg.MetricsOf(), o)
		if err != nil {
			return err
		}
		o.stats.hold(len(entries))
		for k := range entries {
			e := &entries[k]
			if e.Status == iceberg.EntryDeleted {
				continue
			}
			key, partition, err := partitionKey(pt, spec, e.DataFile.Partition)
			if err != nil {
				o.stats.release(len(entries))
				return fmt.Errorf("manifest %s: %w", mfs[i].Path, err)
			}
			row, ok := byKey[key]
			if !ok {
				row = &partitionRow{partition: partition}
				byKey[key] = row
				order = append(order, row)
				o.stats.hold(1)
			}
			snap, _ := s.t.Metadata.SnapshotByID(e.SnapshotID)
			row.add(&e.DataFile, snap)
		}
		o.stats.release(len(entries))
	}
	return writeAll(ctx, s, partitionColumns, emit, o, len(order), func(i int) *partitionRow { return order[i] })
}

// partitionKey places a file's tuple of spec in the table's partition type
// and returns it as a map by field id, and as a key that equal partitions
// share.
func partitionKey(pt *iceberg.StructType, spec iceberg.PartitionSpec, tuple []any) (string, map[int]any, error) {
	pos := make(map[int]int, len(spec.Fields))
	for i, f := range spec.Fields {
		pos[f.FieldID] = i
	}
	var key strings.Builder
	present := 0
	m := make(map[int]any, len(pt.Fields))
	for _, f := range pt.Fields {
		i, ok := pos[f.ID]
		if !ok {
			key.WriteByte(0)
			continue
		}
		present++
		var v any
		if i < len(tuple) {
			v = tuple[i]
		}
		if v == nil {
			key.WriteByte(1)
			continue
		}
		m[f.ID] = v
		b, err := keyBytes(f.Type, v)
		if err != nil {
			return "", nil, fmt.Errorf("partition field %s: %w", f.Name, err)
		}
		key.WriteByte(2)
		key.Write(binary.AppendUvarint(nil, uint64(len(b))))
		key.Write(b)
	}
	return fmt.Sprint(present) + ":" + key.String(), m, nil
}

// keyBytes is a partition value's bytes for a key: its single-value
// serialization, with every NaN the same NaN, as Java's comparators hold
// NaNs equal (and -0 apart from 0).
func keyBytes(t iceberg.Type, v any) ([]byte, error) {
	switch f := v.(type) {
	case float32:
		if f != f {
			v = float32(math.NaN())
		}
	case float64:
		if math.IsNaN(f) {
			v = math.NaN()
		}
	}
	return iceberg.EncodeValue(t, v)
}
