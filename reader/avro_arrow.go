package reader

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// How Avro types map to Arrow (spec: Avro, Appendix A), and goavro's
// native values decoded into Arrow builders of those types.

// nonNull returns the one non-null branch of a union of null and a type,
// and whether the value may be null.
func nonNull(s *avro.Schema) (*avro.Schema, bool, error) {
	if s.Type != "union" {
		return s, s.Type == "null", nil
	}
	var branch *avro.Schema
	nullable := false
	for _, b := range s.Branches {
		switch {
		case b.Type == "null":
			nullable = true
		case branch != nil:
			return nil, false, fmt.Errorf("%w: union of several non-null types", ErrUnsupported)
		default:
			branch = b
		}
	}
	if branch == nil {
		return &avro.Schema{Type: "null"}, true, nil
	}
	return branch, nullable, nil
}

// maxAvroDepth bounds nesting, since Avro allows recursive types.
const maxAvroDepth = 64

// avroArrowField describes an Avro field as the Arrow field it decodes to.
func avroArrowField(name string, id int, s *avro.Schema, depth int) (arrow.Field, error) {
	if depth > maxAvroDepth {
		return arrow.Field{}, fmt.Errorf("%w: avro schema nested deeper than %d", ErrUnsupported, maxAvroDepth)
	}
	s, nullable, err := nonNull(s)
	if err != nil {
		return arrow.Field{}, err
	}
	f := arrow.Field{Name: name, Nullable: nullable}
	if id >= 0 {
		f.Metadata = arrow.NewMetadata([]string{iceberg.ArrowFieldIDKey}, []string{strconv.Itoa(id)})
	}
	idProp := func(key string) int {
		if v, ok := s.IntProp(key); ok {
			return v
		}
		return -1
	}
	switch {
	case s.Type == "null":
		f.Type, f.Nullable = arrow.Null, true
	case s.Type == "boolean":
		f.Type = arrow.FixedWidthTypes.Boolean
	case s.Type == "int" && s.Logical == "date":
		f.Type = arrow.FixedWidthTypes.Date32
	case s.Type == "int" && s.Logical == "time-millis":
		f.Type = arrow.FixedWidthTypes.Time32ms
	case s.Type == "int":
		f.Type = arrow.PrimitiveTypes.Int32
	case s.Type == "long" && s.Logical == "time-micros":
		f.Type = arrow.FixedWidthTypes.Time64us
	case s.Type == "long" && s.Logical != "":
		f.Type = avroTimestamp(s)
		if f.Type == nil {
			f.Type = arrow.PrimitiveTypes.Int64
		}
	case s.Type == "long":
		f.Type = arrow.PrimitiveTypes.Int64
	case s.Type == "float":
		f.Type = arrow.PrimitiveTypes.Float32
	case s.Type == "double":
		f.Type = arrow.PrimitiveTypes.Float64
	case (s.Type == "bytes" || s.Type == "fixed") && s.Logical == "decimal":
		if s.Precision < 1 || s.Precision > 38 {
			return f, fmt.Errorf("%w: decimal precision %d", ErrUnsupported, s.Precision)
		}
		f.Type = &arrow.Decimal128Type{Precision: int32(s.Precision), Scale: int32(s.Scale)}
	case s.Type == "bytes":
		f.Type = arrow.BinaryTypes.Binary
	case s.Type == "fixed":
		f.Type = &arrow.FixedSizeBinaryType{ByteWidth: s.Size}
	case s.Type == "string" || s.Type == "enum":
		f.Type = arrow.BinaryTypes.String
	case s.Type == "record":
		fields := make([]arrow.Field, len(s.Fields))
		for i, c := range s.Fields {
			if fields[i], err = avroArrowField(c.Name, c.ID(), c.Type, depth+1); err != nil {
				return f, fmt.Errorf("field %q: %w", c.Name, err)
			}
		}
		f.Type = arrow.StructOf(fields...)
	case s.Type == "array" && s.Logical == "map":
		kv, _, err := nonNull(s.Items)
		if err != nil || kv.Type != "record" || len(kv.Fields) != 2 {
			return f, fmt.Errorf("%w: map array whose items are not key/value records", ErrSchemaMismatch)
		}
		key, err := avroArrowField("key", kv.Fields[0].ID(), kv.Fields[0].Type, depth+1)
		if err != nil {
			return f, err
		}
		val, err := avroArrowField("value", kv.Fields[1].ID(), kv.Fields[1].Type, depth+1)
		if err != nil {
			return f, err
		}
		key.Nullable = false
		f.Type = arrow.MapOfFields(key, val)
	case s.Type == "array":
		elem, err := avroArrowField("element", idProp("element-id"), s.Items, depth+1)
		if err != nil {
			return f, err
		}
		f.Type = arrow.ListOfField(elem)
	case s.Type == "map":
		key := arrow.Field{Name: "key", Type: arrow.BinaryTypes.String}
		if id := idProp("key-id"); id >= 0 {
			key.Metadata = arrow.NewMetadata([]string{iceberg.ArrowFieldIDKey}, []string{strconv.Itoa(id)})
		}
		val, err := avroArrowField("value", idProp("value-id"), s.Values, depth+1)
		if err != nil {
			return f, err
		}
		f.Type = arrow.MapOfFields(key, val)
	default:
		return f, fmt.Errorf("%w: avro type %s", ErrUnsupported, s.Type)
	}
	return f, nil
}

// avroTimestamp returns the Arrow type of a long with a timestamp logical
// type; Iceberg marks timestamptz with "adjust-to-utc": true.
func avroTimestamp(s *avro.Schema) arrow.DataType {
	var unit arrow.TimeUnit
	local := false
	switch s.Logical {
	case "timestamp-millis":
		unit = arrow.Millisecond
	case "timestamp-micros":
		unit = arrow.Microsecond
	case "timestamp-nanos":
		unit = arrow.Nanosecond
	case "local-timestamp-millis":
		unit, local = arrow.Millisecond, true
	case "local-timestamp-micros":
		unit, local = arrow.Microsecond, true
	case "local-timestamp-nanos":
		unit, local = arrow.Nanosecond, true
	default:
		return nil
	}
	if utc, _ := s.Props["adjust-to-utc"].(bool); utc && !local {
		return &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
	}
	return &arrow.TimestampType{Unit: unit}
}

// appendAvro appends one goavro native value (decoded without logical
// types) of Avro type s to b, whose type avroArrowField gave.
func appendAvro(b array.Builder, s *avro.Schema, v any) error {
	if s.Type == "union" {
		if v == nil {
			b.AppendNull()
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return fmt.Errorf("union value %T", v)
		}
		for _, x := range m {
			v = x
		}
		var err error
		if s, _, err = nonNull(s); err != nil {
			return err
		}
	}
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("value %T for avro type %s into %s", v, s.Type, b.Type()) }
	switch b := b.(type) {
	case *array.NullBuilder:
		b.AppendNull()
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Int32Builder:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Date32Builder:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		b.Append(arrow.Date32(x))
	case *array.Time32Builder:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		b.Append(arrow.Time32(x))
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Time64Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(arrow.Time64(x))
	case *array.TimestampBuilder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(arrow.Timestamp(x))
	case *array.Float32Builder:
		x, ok := v.(float32)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Float64Builder:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.StringBuilder:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.BinaryBuilder:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.FixedSizeBinaryBuilder:
		x, ok := v.([]byte)
		if !ok || len(x) != s.Size {
			return bad()
		}
		b.Append(x)
	case *array.Decimal128Builder:
		x, ok := v.([]byte)
		if !ok || len(x) > 16 {
			return bad()
		}
		b.Append(iceberg.DecimalFromBigEndian(x))
	case *array.StructBuilder:
		m, ok := v.(map[string]any)
		if !ok || s.Type != "record" {
			return bad()
		}
		b.Append(true)
		for i, f := range s.Fields {
			if err := appendAvro(b.FieldBuilder(i), f.Type, m[f.Name]); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
	case *array.MapBuilder:
		return appendAvroMap(b, s, v)
	case *array.ListBuilder:
		items, ok := v.([]any)
		if !ok || s.Type != "array" {
			return bad()
		}
		b.Append(true)
		for _, e := range items {
			if err := appendAvro(b.ValueBuilder(), s.Items, e); err != nil {
				return err
			}
		}
	default:
		return bad()
	}
	return nil
}

// appendAvroMap appends an Avro map (keys in sorted order, since goavro
// returns a Go map) or an Iceberg key/value array with logicalType "map".
func appendAvroMap(b *array.MapBuilder, s *avro.Schema, v any) error {
	switch s.Type {
	case "map":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("map value %T", v)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.Append(true)
		kb := b.KeyBuilder().(*array.StringBuilder)
		for _, k := range keys {
			kb.Append(k)
			if err := appendAvro(b.ItemBuilder(), s.Values, m[k]); err != nil {
				return err
			}
		}
		return nil
	case "array":
		items, ok := v.([]any)
		kv, _, err := nonNull(s.Items)
		if !ok || err != nil {
			return fmt.Errorf("map array value %T", v)
		}
		b.Append(true)
		for _, e := range items {
			if u, isUnion := e.(map[string]any); isUnion && s.Items.Type == "union" && len(u) == 1 {
				for _, x := range u {
					e = x
				}
			}
			entry, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("map entry %T", e)
			}
			if err := appendAvro(b.KeyBuilder(), kv.Fields[0].Type, entry[kv.Fields[0].Name]); err != nil {
				return err
			}
			if err := appendAvro(b.ItemBuilder(), kv.Fields[1].Type, entry[kv.Fields[1].Name]); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("map from avro type %s", s.Type)
}
