package reader

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Spec: Reserved Field IDs. Metadata columns are asked for by their
// reserved ids in the projected schema (iceberg.MetadataColumn gives their
// fields). _file, _pos, _spec_id, _partition and _deleted are computed from
// the task; the v3 row-lineage columns _row_id and
// _last_updated_sequence_number may be stored in data files and are read
// like any column, then completed by inheritance (spec: Row Lineage).

// colKind says where an output column comes from.
type colKind int

const (
	colRead        colKind = iota // a column of the read batch
	colConst                      // _file, _spec_id, _partition, _deleted
	colStorage                    // _size, _time, _etag: told by the store
	colPos                        // _pos
	colRowID                      // _row_id
	colLastUpdated                // _last_updated_sequence_number
)

// metadataKind returns how the column with reserved id id is produced, and
// whether it is computed rather than read.
func metadataKind(id int) (colKind, bool) {
	switch id {
	case iceberg.FieldIDFilePath, iceberg.FieldIDSpecID, iceberg.FieldIDPartition, iceberg.FieldIDIsDeleted:
		return colConst, true
	case iceberg.FieldIDFileSize, iceberg.FieldIDFileModified, iceberg.FieldIDFileETag:
		return colStorage, true
	case iceberg.FieldIDRowPosition:
		return colPos, true
	case iceberg.FieldIDRowID:
		return colRowID, false
	case iceberg.FieldIDLastUpdatedSequenceNumber:
		return colLastUpdated, false
	}
	return colRead, false
}

// metadataValue returns the task's value of a constant metadata column as
// a Go literal of the field's type.
func metadataValue(f iceberg.NestedField, task *Task) (any, error) {
	switch f.ID {
	case iceberg.FieldIDFilePath:
		return recordedPath(task), nil
	case iceberg.FieldIDSpecID:
		return task.SpecID, nil
	case iceberg.FieldIDIsDeleted:
		// Deleted rows are removed, so every row served is live.
		return false, nil
	case iceberg.FieldIDPartition:
		st, ok := f.Type.(*iceberg.StructType)
		if !ok {
			return nil, fmt.Errorf("%w: _partition of %s has type %s, want a struct", ErrInvalidTask, task.Path, f.Type)
		}
		return partitionValue(st, task)
	}
	return nil, fmt.Errorf("%w: field %d is not a constant metadata column", ErrInvalidTask, f.ID)
}

// storageValue returns the value of a storage metadata column of the open
// file f, whose first read has been made: its length, and what its store
// said of it (fileio.InfoOf); a value the store did not tell is null.
func storageValue(id int, f fileio.File) any {
	if id == iceberg.FieldIDFileSize {
		return f.Size()
	}
	// Asked only now: a store may spend a request to tell it (GCS).
	info, _ := fileio.InfoOf(f)
	switch id {
	case iceberg.FieldIDFileModified:
		if info.ModTime.IsZero() {
			return nil
		}
		return info.ModTime.UnixMicro()
	case iceberg.FieldIDFileETag:
		if info.ETag == "" {
			return nil
		}
		return info.ETag
	}
	return nil
}

// recordedPath is the data file's path as metadata records it: what
// position deletes name and _file reports.
func recordedPath(task *Task) string {
	if p := task.FilePath; p != "" {
		return p
	}
	return task.Path
}

// partitionValue builds the _partition struct from the task's partition
// JSON, an object keyed by partition field name. A field the file's spec
// does not have is null. Values are read in the spec's JSON single-value
// form, and dates, times and timestamps also as plain numbers (days and
// microseconds or nanoseconds), the form transforms produce.
func partitionValue(st *iceberg.StructType, task *Task) (map[int]any, error) {
	out := make(map[int]any, len(st.Fields))
	if task.PartitionJSON == "" {
		return out, nil
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader([]byte(task.PartitionJSON)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: partition of %s: %v", ErrInvalidTask, task.Path, err)
	}
	for _, f := range st.Fields {
		v, ok := raw[f.Name]
		if !ok {
			continue
		}
		lit, err := partitionLiteral(f.Type, v)
		if err != nil {
			return nil, fmt.Errorf("%w: partition field %q of %s: %v", ErrInvalidTask, f.Name, task.Path, err)
		}
		out[f.ID] = lit
	}
	return out, nil
}

func partitionLiteral(t iceberg.Type, v json.RawMessage) (any, error) {
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		switch t.(type) {
		case iceberg.DateType:
			i, err := n.Int64()
			return int32(i), err
		case iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
			return n.Int64()
		}
	}
	return iceberg.ParseJSONValue(t, v)
}

// positionColumn returns the file positions of the rows kept: pos+i for
// each kept index i, or every row of n when keep is nil.
func positionColumn(mem memory.Allocator, pos int64, keep []int32, n int) arrow.Array {
	buf := memory.NewResizableBuffer(mem)
	defer buf.Release()
	buf.Resize(n * 8)
	vals := arrow.Int64Traits.CastFromBytes(buf.Bytes())
	if keep == nil {
		for i := range vals {
			vals[i] = pos + int64(i)
		}
	} else {
		for i, k := range keep {
			vals[i] = pos + int64(k)
		}
	}
	return newArray(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
}

// lineageColumn completes a row-lineage column: a stored non-null value
// wins, else the inherited one: first_row_id + _pos for _row_id, the data
// sequence number for _last_updated_sequence_number. As in Iceberg Java, a
// file without first_row_id (v2, or written before row lineage) has null
// lineage whatever it stores. stored is the read column (already filtered
// to the kept rows), or nil.
func lineageColumn(mem memory.Allocator, kind colKind, stored arrow.Array, task *Task, pos int64, keep []int32, n int) (arrow.Array, error) {
	if task.FirstRowID == nil {
		return array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Int64, n), nil
	}
	var have *array.Int64
	if stored != nil && stored.NullN() < stored.Len() {
		var ok bool
		if have, ok = stored.(*array.Int64); !ok {
			return nil, fmt.Errorf("read %s: lineage column is %s (internal error)", task.Path, stored.DataType())
		}
	}
	buf := memory.NewResizableBuffer(mem)
	defer buf.Release()
	buf.Resize(n * 8)
	vals := arrow.Int64Traits.CastFromBytes(buf.Bytes())
	first, seq := *task.FirstRowID, task.DataSequenceNumber
	for i := range vals {
		switch {
		case have != nil && have.IsValid(i):
			vals[i] = have.Value(i)
		case kind == colLastUpdated:
			vals[i] = seq
		case keep == nil:
			vals[i] = first + pos + int64(i)
		default:
			vals[i] = first + pos + int64(keep[i])
		}
	}
	return newArray(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0), nil
}
