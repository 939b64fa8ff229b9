package datafile

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
)

// The spec's v3 unknown type is always null and has no storage in data
// files, and variant needs Parquet's VARIANT annotation, which arrow-go
// does not write. fileFields returns the fields a data file stores: the
// table's without unknown columns (in structs too); changed tells whether
// any were dropped. A variant, or an unknown inside a list or map, is an
// error.
func fileFields(fields []iceberg.NestedField) (out []iceberg.NestedField, changed bool, err error) {
	for _, f := range fields {
		switch t := f.Type.(type) {
		case iceberg.UnknownType:
			changed = true
			continue
		case iceberg.VariantType:
			return nil, false, fmt.Errorf("column %s: writing variant columns is not supported", f.Name)
		case *iceberg.StructType:
			kids, ch, err := fileFields(t.Fields)
			if err != nil {
				return nil, false, fmt.Errorf("column %s: %w", f.Name, err)
			}
			if ch {
				changed = true
				f.Type = &iceberg.StructType{Fields: kids}
			}
		case *iceberg.ListType, *iceberg.MapType:
			if hasUnknown(t) {
				return nil, false, fmt.Errorf("column %s: an unknown or variant type inside a list or map cannot be written", f.Name)
			}
		}
		out = append(out, f)
	}
	return out, changed, nil
}

func hasUnknown(t iceberg.Type) bool {
	switch t := t.(type) {
	case iceberg.UnknownType, iceberg.VariantType:
		return true
	case *iceberg.StructType:
		for _, f := range t.Fields {
			if hasUnknown(f.Type) {
				return true
			}
		}
	case *iceberg.ListType:
		return hasUnknown(t.Element)
	case *iceberg.MapType:
		return hasUnknown(t.Key) || hasUnknown(t.Value)
	}
	return false
}

// pruneBatch returns batch (in the table's Arrow schema) without its
// unknown columns, as the file schema fs has them; the caller releases it.
func pruneBatch(batch arrow.RecordBatch, table []iceberg.NestedField, fs *arrow.Schema) arrow.RecordBatch {
	cols := pruneColumns(batch.Columns(), table)
	out := array.NewRecordBatch(fs, cols, batch.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// pruneColumns drops the unknown fields of cols (of fields); each result
// is a new reference.
func pruneColumns(cols []arrow.Array, fields []iceberg.NestedField) []arrow.Array {
	var out []arrow.Array
	for i, f := range fields {
		switch t := f.Type.(type) {
		case iceberg.UnknownType:
			continue
		case *iceberg.StructType:
			if hasUnknownField(t) {
				out = append(out, pruneStruct(cols[i].(*array.Struct), t))
				continue
			}
		}
		cols[i].Retain()
		out = append(out, cols[i])
	}
	return out
}

func hasUnknownField(t *iceberg.StructType) bool {
	for _, f := range t.Fields {
		if _, ok := f.Type.(iceberg.UnknownType); ok {
			return true
		}
		if st, ok := f.Type.(*iceberg.StructType); ok && hasUnknownField(st) {
			return true
		}
	}
	return false
}

// pruneStruct rebuilds a struct array without its unknown children, over
// the same validity and offset.
func pruneStruct(s *array.Struct, t *iceberg.StructType) arrow.Array {
	// Raw children span the struct's offset, as its validity does.
	raw := make([]arrow.Array, len(t.Fields))
	for i, d := range s.Data().Children() {
		raw[i] = array.MakeFromData(d)
	}
	kids := pruneColumns(raw, t.Fields)
	for _, r := range raw {
		r.Release()
	}
	pruned, _, _ := fileFields(t.Fields) // checked when the writer was made
	dt, _ := iceberg.ArrowType(&iceberg.StructType{Fields: pruned})
	kidData := make([]arrow.ArrayData, len(kids))
	for i, k := range kids {
		kidData[i] = k.Data()
	}
	d := s.Data()
	data := array.NewData(dt, s.Len(), d.Buffers()[:1], kidData, s.NullN(), d.Offset())
	for _, k := range kids {
		k.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}
