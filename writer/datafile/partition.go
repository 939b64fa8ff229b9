package datafile

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
)

// partitioner computes each row's partition tuple with the spec's
// transforms.
type partitioner struct {
	spec    iceberg.PartitionSpec
	fields  []partField
	resType []iceberg.Type // result type of each spec field
}

type partField struct {
	path   []int // column indices from the batch down through structs
	src    iceberg.Type
	tr     iceberg.Transform
	name   string
	unused bool // void transform: always null
}

func newPartitioner(schema *iceberg.Schema, spec iceberg.PartitionSpec) (*partitioner, error) {
	p := &partitioner{spec: spec}
	for _, f := range spec.Fields {
		pf := partField{tr: f.Transform, name: f.Name}
		if _, void := f.Transform.(iceberg.VoidTransform); void {
			pf.unused = true
			src, _ := schema.FieldByID(f.SourceID)
			p.resType = append(p.resType, f.Transform.ResultType(src.Type))
			p.fields = append(p.fields, pf)
			continue
		}
		path, src, ok := structPath(schema.Fields, f.SourceID)
		if !ok {
			return nil, fmt.Errorf("partition field %s: source column %d is not in the schema (or is inside a list or map)", f.Name, f.SourceID)
		}
		if !iceberg.CanTransform(f.Transform, src) {
			return nil, fmt.Errorf("partition field %s: transform %v cannot apply to %v", f.Name, f.Transform, src)
		}
		pf.path, pf.src = path, src
		p.fields = append(p.fields, pf)
		p.resType = append(p.resType, f.Transform.ResultType(src))
	}
	return p, nil
}

// structPath finds field id among fields, descending only through structs.
func structPath(fields []iceberg.NestedField, id int) ([]int, iceberg.Type, bool) {
	for i, f := range fields {
		if f.ID == id {
			return []int{i}, f.Type, true
		}
		if st, ok := f.Type.(*iceberg.StructType); ok {
			if rest, t, ok := structPath(st.Fields, id); ok {
				return append([]int{i}, rest...), t, true
			}
		}
	}
	return nil, nil, false
}

// sourceColumn returns the array a partition field reads and, for fields
// inside structs, the struct arrays above it (a null struct makes its
// children null).
func (f *partField) sourceColumn(batch arrow.RecordBatch) (arrow.Array, []arrow.Array) {
	col := batch.Column(f.path[0])
	var parents []arrow.Array
	for _, i := range f.path[1:] {
		parents = append(parents, col)
		col = col.(*array.Struct).Field(i)
	}
	return col, parents
}

func anyNull(parents []arrow.Array, i int) bool {
	for _, p := range parents {
		if p.IsNull(i) {
			return true
		}
	}
	return false
}

// literalAt returns value i of a column in the table's Arrow types as the
// iceberg literal of its type t (literal.go).
func literalAt(col arrow.Array, i int, t iceberg.Type) (any, error) {
	switch a := col.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.Date32:
		return int32(a.Value(i)), nil
	case *array.Time64:
		return int64(a.Value(i)), nil
	case *array.Timestamp:
		return int64(a.Value(i)), nil
	case *array.Decimal128:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...), nil
	case *array.FixedSizeBinary:
		v := a.Value(i)
		if _, uuid := t.(iceberg.UUIDType); uuid && len(v) == 16 {
			return [16]byte(v), nil
		}
		return append([]byte(nil), v...), nil
	}
	return nil, fmt.Errorf("no partition value for Arrow type %v", col.DataType())
}

// PartitionPath returns the partition tuple's path in Iceberg's form
// (Java's PartitionSpec.partitionToPath): name=value per field, joined
// by "/", with the transform's human string URL-encoded and "null" for
// a null. partType is spec.PartitionType(schema).
func PartitionPath(spec iceberg.PartitionSpec, partType *iceberg.StructType, tuple []any) string {
	if len(spec.Fields) == 0 {
		return ""
	}
	parts := make([]string, len(spec.Fields))
	for i, f := range spec.Fields {
		var src iceberg.Type = iceberg.UnknownType{}
		if i < len(partType.Fields) {
			src = partType.Fields[i].Type
		}
		var v any
		if i < len(tuple) {
			v = tuple[i]
		}
		parts[i] = escapePath(f.Name) + "=" + escapePath(iceberg.HumanString(f.Transform, src, v))
	}
	return strings.Join(parts, "/")
}

// escapePath encodes as Java's URLEncoder.encode(s, UTF-8) does, which is
// what Iceberg Java puts in partition paths: letters, digits and ".-*_"
// stay, a space is "+", every other byte of the UTF-8 form is %XX.
func escapePath(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
