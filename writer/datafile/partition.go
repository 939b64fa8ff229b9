package datafile

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

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

// tuples returns each row's partition tuple and a grouping key for it.
func (p *partitioner) tuples(batch arrow.RecordBatch) ([][]any, []string, error) {
	n := int(batch.NumRows())
	tuples := make([][]any, n)
	for i := range tuples {
		tuples[i] = make([]any, len(p.fields))
	}
	for j := range p.fields {
		f := &p.fields[j]
		if f.unused {
			continue
		}
		col, parents := f.sourceColumn(batch)
		for i := 0; i < n; i++ {
			if col.IsNull(i) || anyNull(parents, i) {
				continue
			}
			v, err := literalAt(col, i, f.src)
			if err != nil {
				return nil, nil, fmt.Errorf("partition field %s: %w", f.name, err)
			}
			out, err := iceberg.ApplyTransform(f.tr, f.src, v)
			if err != nil {
				return nil, nil, fmt.Errorf("partition field %s: %w", f.name, err)
			}
			tuples[i][j] = out
		}
	}
	keys := make([]string, n)
	var sb strings.Builder
	for i, t := range tuples {
		sb.Reset()
		for j, v := range t {
			if v == nil {
				sb.WriteString("\x00N")
				continue
			}
			b, err := iceberg.EncodeValue(p.resType[j], v)
			if err != nil {
				return nil, nil, fmt.Errorf("partition field %s: %w", p.fields[j].name, err)
			}
			sb.WriteString("\x00V")
			sb.WriteString(strconv.Itoa(len(b)))
			sb.WriteByte(':')
			sb.Write(b)
		}
		keys[i] = sb.String()
	}
	return tuples, keys, nil
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
		parts[i] = escapePath(f.Name) + "=" + escapePath(humanString(f.Transform, src, v))
	}
	return strings.Join(parts, "/")
}

// escapePath encodes as Java's URLEncoder does (form encoding: a space is
// "+"), which is what Iceberg Java puts in partition paths.
func escapePath(s string) string { return url.QueryEscape(s) }

// humanString renders a partition value as the transform's
// toHumanString: t is the partition field's result type.
func humanString(tr iceberg.Transform, t iceberg.Type, v any) string {
	if v == nil {
		return "null"
	}
	switch tr.(type) {
	case iceberg.YearTransform:
		if y, ok := v.(int32); ok {
			return fmt.Sprintf("%04d", 1970+int(y))
		}
	case iceberg.MonthTransform:
		if m, ok := v.(int32); ok {
			y, mo := floorDivMod(int(m), 12)
			return fmt.Sprintf("%04d-%02d", 1970+y, mo+1)
		}
	case iceberg.DayTransform:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
		}
	case iceberg.HourTransform:
		if h, ok := v.(int32); ok {
			return time.Unix(int64(h)*3600, 0).UTC().Format("2006-01-02-15")
		}
	case iceberg.BucketTransform:
		return fmt.Sprint(v)
	}
	return humanValue(t, v)
}

// humanValue renders a value of type t as Java's Transform.toHumanString
// does for identity and truncate.
func humanValue(t iceberg.Type, v any) string {
	switch t := t.(type) {
	case iceberg.DateType:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
		}
	case iceberg.TimeType:
		if us, ok := v.(int64); ok {
			return javaLocalTime(time.UnixMicro(us).UTC())
		}
	case iceberg.TimestampType:
		if us, ok := v.(int64); ok {
			ts := time.UnixMicro(us).UTC()
			return ts.Format("2006-01-02") + "T" + javaLocalTime(ts)
		}
	case iceberg.TimestampTzType:
		if us, ok := v.(int64); ok {
			ts := time.UnixMicro(us).UTC()
			return ts.Format("2006-01-02") + "T" + javaLocalTime(ts) + "Z"
		}
	case iceberg.TimestampNsType:
		if ns, ok := v.(int64); ok {
			ts := time.Unix(0, ns).UTC()
			return ts.Format("2006-01-02") + "T" + javaLocalTime(ts)
		}
	case iceberg.TimestampTzNsType:
		if ns, ok := v.(int64); ok {
			ts := time.Unix(0, ns).UTC()
			return ts.Format("2006-01-02") + "T" + javaLocalTime(ts) + "Z"
		}
	case iceberg.DecimalType:
		if d, ok := v.(decimal128.Num); ok {
			return decimalString(d, t.Scale)
		}
	case iceberg.BinaryType, iceberg.FixedType:
		if b, ok := v.([]byte); ok {
			return base64.StdEncoding.EncodeToString(b)
		}
	case iceberg.UUIDType:
		switch u := v.(type) {
		case [16]byte:
			return iceberg.FormatUUID(u)
		case []byte:
			if len(u) == 16 {
				return iceberg.FormatUUID([16]byte(u))
			}
		}
	}
	return fmt.Sprint(v)
}

// javaLocalTime formats a time of day as java.time.LocalTime.toString:
// HH:mm, then :ss unless seconds and fraction are zero, then the fraction
// in groups of three digits.
func javaLocalTime(ts time.Time) string {
	s := ts.Format("15:04")
	sec, ns := ts.Second(), ts.Nanosecond()
	if sec == 0 && ns == 0 {
		return s
	}
	s += fmt.Sprintf(":%02d", sec)
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += fmt.Sprintf(".%03d", ns/1_000_000)
	case ns%1000 == 0:
		s += fmt.Sprintf(".%06d", ns/1000)
	default:
		s += fmt.Sprintf(".%09d", ns)
	}
	return s
}

// decimalString formats an unscaled decimal as Java's BigDecimal.toString
// for the scales Iceberg allows (0 to 38, never negative: plain notation
// except when the adjusted exponent is below -6).
func decimalString(d decimal128.Num, scale int) string {
	unscaled := d.BigInt()
	digits := new(big.Int).Abs(unscaled).String()
	neg := unscaled.Sign() < 0
	adjusted := len(digits) - 1 - scale
	var s string
	switch {
	case scale == 0:
		s = digits
	case adjusted >= -6:
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		s = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	default:
		// Scientific notation, as BigDecimal prints 0.0000001 as 1E-7.
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "E" + strconv.Itoa(adjusted)
	}
	if neg {
		s = "-" + s
	}
	return s
}

func floorDivMod(a, b int) (int, int) {
	q, r := a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}
