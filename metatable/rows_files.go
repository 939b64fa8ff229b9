package metatable

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// Field ids of the data_file struct (Iceberg Java's DataFile) and of the
// manifest entry around it (ManifestEntry).
const (
	idDataFileContent     = 134
	idDataFilePath        = 100
	idDataFileFormat      = 101
	idDataFileSpecID      = 141
	idDataFilePartition   = 102
	idDataFileRecords     = 103
	idDataFileSize        = 104
	idColumnSizes         = 108
	idValueCounts         = 109
	idNullValueCounts     = 110
	idNaNValueCounts      = 137
	idLowerBounds         = 125
	idUpperBounds         = 128
	idKeyMetadata         = 131
	idSplitOffsets        = 132
	idEqualityIDs         = 135
	idSortOrderID         = 140
	idFirstRowID          = 142
	idReferencedDataFile  = 143
	idContentOffset       = 144
	idContentSize         = 145
	idEntryStatus         = 0
	idEntrySnapshotID     = 1
	idEntryDataFile       = 2
	idEntrySequenceNumber = 3
	idEntryFileSequence   = 4
)

// fileRow is a manifest entry of a files or entries table.
type fileRow struct {
	e *iceberg.ManifestEntry
	// spec is the entry's manifest's spec.
	spec *iceberg.PartitionSpec
}

// fileColumns returns the columns of a files or entries table whose full
// schema is full, for a table whose current schema is table.
func fileColumns(kind Kind, table *iceberg.Schema, full *iceberg.Schema) columns[*fileRow] {
	union := map[int]bool{}
	if f, ok := full.FieldByID(idDataFilePartition); ok {
		for _, pf := range f.Type.(*iceberg.StructType).Fields {
			union[pf.ID] = true
		}
	}
	file := columns[*fileRow]{
		idDataFileContent: func(r *fileRow, _ iceberg.Type) (any, error) { return int32(r.e.DataFile.Content), nil },
		idDataFilePath:    func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.DataFile.Path, nil },
		idDataFileFormat:  func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.DataFile.Format, nil },
		idDataFileSpecID:  func(r *fileRow, _ iceberg.Type) (any, error) { return int32(r.e.DataFile.SpecID), nil },
		idDataFilePartition: func(r *fileRow, _ iceberg.Type) (any, error) {
			// The tuple of the file's spec, placed by field id in the
			// table's partition type; fields of other specs are null.
			m := make(map[int]any, len(union))
			for i, f := range r.spec.Fields {
				if union[f.FieldID] && i < len(r.e.DataFile.Partition) {
					m[f.FieldID] = r.e.DataFile.Partition[i]
				}
			}
			return m, nil
		},
		idDataFileRecords: func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.DataFile.RecordCount, nil },
		idDataFileSize:    func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.DataFile.FileSize, nil },
		idColumnSizes:     countsColumn(func(f *iceberg.DataFile) iceberg.ColumnCounts { return f.ColumnSizes }),
		idValueCounts:     countsColumn(func(f *iceberg.DataFile) iceberg.ColumnCounts { return f.ValueCounts }),
		idNullValueCounts: countsColumn(func(f *iceberg.DataFile) iceberg.ColumnCounts { return f.NullValueCounts }),
		idNaNValueCounts:  countsColumn(func(f *iceberg.DataFile) iceberg.ColumnCounts { return f.NaNValueCounts }),
		idLowerBounds:     boundsColumn(func(f *iceberg.DataFile) iceberg.ColumnBounds { return f.LowerBounds }),
		idUpperBounds:     boundsColumn(func(f *iceberg.DataFile) iceberg.ColumnBounds { return f.UpperBounds }),
		idKeyMetadata:     func(r *fileRow, _ iceberg.Type) (any, error) { return optBytes(r.e.DataFile.KeyMetadata), nil },
		idSplitOffsets:    func(r *fileRow, _ iceberg.Type) (any, error) { return list(r.e.DataFile.SplitOffsets, identity), nil },
		idEqualityIDs:     func(r *fileRow, _ iceberg.Type) (any, error) { return list(r.e.DataFile.EqualityIDs, toInt32), nil },
		idSortOrderID:     func(r *fileRow, _ iceberg.Type) (any, error) { return optInt(r.e.DataFile.SortOrderID), nil },
		idFirstRowID:      func(r *fileRow, _ iceberg.Type) (any, error) { return optLong(r.e.DataFile.FirstRowID), nil },
		idReferencedDataFile: func(r *fileRow, _ iceberg.Type) (any, error) {
			return optString(r.e.DataFile.ReferencedDataFile), nil
		},
		idContentOffset: func(r *fileRow, _ iceberg.Type) (any, error) { return optLong(r.e.DataFile.ContentOffset), nil },
		idContentSize:   func(r *fileRow, _ iceberg.Type) (any, error) { return optLong(r.e.DataFile.ContentSizeInBytes), nil },
	}
	rm := full.Fields[len(full.Fields)-1]
	readable := readableColumns(table, rm.Type.(*iceberg.StructType))
	metrics := func(r *fileRow, t iceberg.Type) (any, error) { return readableMetricsValue(r.e.DataFile, readable, t) }
	if !kind.entryKind() {
		file[rm.ID] = metrics
		return file
	}
	return columns[*fileRow]{
		idEntryStatus:         func(r *fileRow, _ iceberg.Type) (any, error) { return int32(r.e.Status), nil },
		idEntrySnapshotID:     func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.SnapshotID, nil },
		idEntrySequenceNumber: func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.SequenceNumber, nil },
		idEntryFileSequence:   func(r *fileRow, _ iceberg.Type) (any, error) { return r.e.FileSequenceNumber, nil },
		idEntryDataFile: func(r *fileRow, t iceberg.Type) (any, error) {
			st := t.(*iceberg.StructType)
			m := make(map[int]any, len(st.Fields))
			for _, f := range st.Fields {
				v, err := file[f.ID](r, f.Type)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				m[f.ID] = v
			}
			return m, nil
		},
		rm.ID: metrics,
	}
}

// countsColumn is a map<int, long> metric column.
func countsColumn(get func(*iceberg.DataFile) iceberg.ColumnCounts) valueFunc[*fileRow] {
	return func(r *fileRow, _ iceberg.Type) (any, error) {
		c := get(&r.e.DataFile)
		if c == nil {
			return nil, nil
		}
		m := iceberg.MapLiteral{Keys: make([]any, len(c)), Values: make([]any, len(c))}
		for i, e := range c {
			m.Keys[i], m.Values[i] = int32(e.ID), e.Count
		}
		return m, nil
	}
}

// boundsColumn is a map<int, binary> bound column.
func boundsColumn(get func(*iceberg.DataFile) iceberg.ColumnBounds) valueFunc[*fileRow] {
	return func(r *fileRow, _ iceberg.Type) (any, error) {
		b := get(&r.e.DataFile)
		if b == nil {
			return nil, nil
		}
		m := iceberg.MapLiteral{Keys: make([]any, len(b)), Values: make([]any, len(b))}
		for i, e := range b {
			m.Keys[i], m.Values[i] = int32(e.ID), e.Value
		}
		return m, nil
	}
}

// readableMetricsValue is a file's readable_metrics as projected to t:
// per column its counts and its bounds decoded as the column's type, each
// null where the file has none (MetricsUtil.readableMetricsStruct).
func readableMetricsValue(df iceberg.DataFile, readable map[int]readableColumn, t iceberg.Type) (any, error) {
	st := t.(*iceberg.StructType)
	out := make(map[int]any, len(st.Fields))
	for _, col := range st.Fields {
		rc, ok := readable[col.ID]
		if !ok {
			continue
		}
		ms := col.Type.(*iceberg.StructType)
		m := make(map[int]any, len(ms.Fields))
		for _, f := range ms.Fields {
			var v any
			var err error
			switch metricIndex(f.Name) {
			case metricColumnSize:
				v = countOf(df.ColumnSizes, rc.sourceID)
			case metricValueCount:
				v = countOf(df.ValueCounts, rc.sourceID)
			case metricNullCount:
				v = countOf(df.NullValueCounts, rc.sourceID)
			case metricNaNCount:
				v = countOf(df.NaNValueCounts, rc.sourceID)
			case metricLowerBound:
				v, err = boundOf(df.LowerBounds, rc)
			case metricUpperBound:
				v, err = boundOf(df.UpperBounds, rc)
			}
			if err != nil {
				return nil, fmt.Errorf("%s of column %s: %w", f.Name, col.Name, err)
			}
			m[f.ID] = v
		}
		out[col.ID] = m
	}
	return out, nil
}

// metricIndex is the position in readableMetrics of the metric named name;
// -1 for none.
func metricIndex(name string) int {
	for i, m := range readableMetrics {
		if m.name == name {
			return i
		}
	}
	return -1
}

func countOf(c iceberg.ColumnCounts, id int) any {
	if n, ok := c.Get(id); ok {
		return n
	}
	return nil
}

// boundOf decodes a column's bound as the column's current type (a bound
// written before a promotion widens).
func boundOf(b iceberg.ColumnBounds, rc readableColumn) (any, error) {
	raw, ok := b.Get(rc.sourceID)
	if !ok {
		return nil, nil
	}
	switch rc.typ.(type) {
	case iceberg.UnknownType:
		return nil, nil
	case iceberg.GeometryType, iceberg.GeographyType:
		return append([]byte(nil), raw...), nil
	}
	return iceberg.DecodeValue(rc.typ, raw)
}

func optBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func optInt(p *int) any {
	if p == nil {
		return nil
	}
	return int32(*p)
}

// list is a list column's literal; nil stays null.
func list[E any](s []E, conv func(E) any) any {
	if s == nil {
		return nil
	}
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = conv(v)
	}
	return out
}

func identity(v int64) any { return v }

func toInt32(v int) any { return int32(v) }
