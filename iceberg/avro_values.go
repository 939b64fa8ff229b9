package iceberg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// This file models the writer's Avro schema of a manifest or manifest list
// (goavro's canonical schema drops the "field-id" properties that the spec
// keys on), reaches into goavro's native values through that model, and
// converts them to Iceberg literals.

// avroSchema is the part of an Avro schema that decoding needs, with the
// Iceberg "field-id" properties that goavro drops.
type avroSchema struct {
	kind     string // null, boolean, int, long, float, double, bytes, string, record, enum, array, map, fixed, union
	logical  string
	name     string // full name of a named type
	size     int    // fixed
	scale    int    // decimal
	prec     int    // decimal
	fields   []avroField
	items    *avroSchema // array
	values   *avroSchema // map
	branches []*avroSchema
}

type avroField struct {
	name string
	id   int // -1 without a field-id
	typ  *avroSchema
}

func parseAvroSchema(raw []byte) (*avroSchema, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: avro schema: %v", ErrInvalidMetadata, err)
	}
	s, err := buildAvroSchema(v, "", map[string]*avroSchema{})
	if err != nil {
		return nil, fmt.Errorf("%w: avro schema: %v", ErrInvalidMetadata, err)
	}
	return s, nil
}

func buildAvroSchema(v any, ns string, named map[string]*avroSchema) (*avroSchema, error) {
	switch v := v.(type) {
	case string:
		switch v {
		case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
			return &avroSchema{kind: v}, nil
		}
		if s, ok := named[v]; ok {
			return s, nil
		}
		if s, ok := named[ns+"."+v]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("unknown type %q", v)
	case []any:
		u := &avroSchema{kind: "union"}
		for _, b := range v {
			bs, err := buildAvroSchema(b, ns, named)
			if err != nil {
				return nil, err
			}
			u.branches = append(u.branches, bs)
		}
		return u, nil
	case map[string]any:
		return buildAvroObject(v, ns, named)
	}
	return nil, fmt.Errorf("unexpected schema element %T", v)
}

func buildAvroObject(m map[string]any, ns string, named map[string]*avroSchema) (*avroSchema, error) {
	kind, ok := m["type"].(string)
	if !ok { // {"type": {...}}: a nested definition
		return buildAvroSchema(m["type"], ns, named)
	}
	s := &avroSchema{kind: kind}
	s.logical, _ = m["logicalType"].(string)
	s.prec, _ = jsonInt(m["precision"])
	s.scale, _ = jsonInt(m["scale"])
	s.size, _ = jsonInt(m["size"])
	switch kind {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
		return s, nil
	case "array":
		items, err := buildAvroSchema(m["items"], ns, named)
		s.items = items
		return s, err
	case "map":
		values, err := buildAvroSchema(m["values"], ns, named)
		s.values = values
		return s, err
	case "record", "error", "enum", "fixed":
	default: // {"type": "SomeName"}: a reference to a named type
		return buildAvroSchema(kind, ns, named)
	}
	name, _ := m["name"].(string)
	if space, ok := m["namespace"].(string); ok && !strings.Contains(name, ".") {
		ns = space
	}
	s.name = name
	if ns != "" && !strings.Contains(name, ".") {
		s.name = ns + "." + name
	}
	if i := strings.LastIndex(s.name, "."); i >= 0 {
		ns = s.name[:i]
	}
	named[s.name], named[name] = s, s
	if kind == "enum" || kind == "fixed" {
		return s, nil
	}
	s.kind = "record"
	fields, _ := m["fields"].([]any)
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		fname, _ := fm["name"].(string)
		ft, err := buildAvroSchema(fm["type"], ns, named)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", fname, err)
		}
		id, ok := jsonInt(fm["field-id"])
		if !ok {
			id = -1
		}
		s.fields = append(s.fields, avroField{name: fname, id: id, typ: ft})
	}
	return s, nil
}

// jsonInt reads an integer property, written as a number or a string.
func jsonInt(v any) (int, bool) {
	switch v := v.(type) {
	case float64:
		return int(v), true
	case string:
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil {
			return n, true
		}
	}
	return 0, false
}

// field finds a record field by field id, else by the first matching name.
func (s *avroSchema) field(id int, names ...string) (avroField, bool) {
	if s == nil || s.kind != "record" {
		return avroField{}, false
	}
	if id >= 0 {
		for _, f := range s.fields {
			if f.id == id {
				return f, true
			}
		}
	}
	for _, n := range names {
		for _, f := range s.fields {
			if f.name == n {
				return f, true
			}
		}
	}
	return avroField{}, false
}

// avroSlot is a resolved record field: where to find one value in goavro's
// map of a record, and its schema.
type avroSlot struct {
	name string
	typ  *avroSchema
}

// slot resolves a record field; the zero slot stands for an absent field.
func (s *avroSchema) slot(id int, names ...string) avroSlot {
	f, ok := s.field(id, names...)
	if !ok {
		return avroSlot{}
	}
	return avroSlot{name: f.name, typ: f.typ}
}

func (sl avroSlot) present() bool { return sl.typ != nil }

// get returns the slot's value in a record with unions resolved: nil for an
// absent field or a null, and the schema of the branch taken.
func (sl avroSlot) get(rec map[string]any) (any, *avroSchema, error) {
	if !sl.present() {
		return nil, nil, nil
	}
	v, err := avroUnwrap(rec[sl.name], sl.typ)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", sl.name, err)
	}
	return v.val, v.typ, nil
}

type avroValue struct {
	val any
	typ *avroSchema
}

// avroUnwrap resolves goavro's union form, a one-entry map from the branch's
// type name to the value.
func avroUnwrap(v any, s *avroSchema) (avroValue, error) {
	if s == nil || s.kind != "union" {
		return avroValue{v, s}, nil
	}
	if v == nil {
		return avroValue{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return avroValue{}, fmt.Errorf("%w: union value %T", ErrInvalidMetadata, v)
	}
	var key string
	var inner any
	for key, inner = range m {
	}
	var match *avroSchema
	for _, b := range s.branches {
		switch {
		case b.kind == "null":
			continue
		case b.name != "" && (b.name == key || strings.HasSuffix(b.name, "."+key) || strings.HasSuffix(key, "."+b.name)):
			match = b
		case b.name == "" && (key == b.kind || strings.HasPrefix(key, b.kind+".")):
			match = b
		}
		if match != nil {
			break
		}
	}
	if match == nil {
		return avroValue{}, fmt.Errorf("%w: union branch %q not in schema", ErrInvalidMetadata, key)
	}
	return avroValue{inner, match}, nil
}

// avroRecord returns a record value as goavro's map.
func avroRecord(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: expected a record, got %T", ErrInvalidMetadata, v)
	}
	return m, nil
}

// avroLong reads an Avro int or long.
func avroLong(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case int32:
		return int64(v), nil
	}
	return 0, fmt.Errorf("%w: expected an int or long, got %T", ErrInvalidMetadata, v)
}

// avroLiteral converts a goavro native value (its union resolved, s the
// branch schema) to the Iceberg literal of type t, in the project-wide
// representation (see literal.go). goavro turns logical types into
// time.Time, time.Duration and *big.Rat; they are turned back exactly. A nil
// or unknown t takes the type from the Avro schema alone, as for a partition
// field whose source column was dropped. Nil stays nil.
func avroLiteral(v any, s *avroSchema, t Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	if s == nil {
		s = &avroSchema{}
	}
	if _, unknown := t.(UnknownType); unknown || t == nil {
		t = avroIcebergType(s)
	}
	switch t := t.(type) {
	case BooleanType:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case IntType:
		if i, ok := v.(int32); ok {
			return i, nil
		}
	case DateType:
		switch v := v.(type) {
		case int32:
			return v, nil
		case time.Time: // goavro's date: midnight UTC of the day
			days := v.Unix() / 86400
			if v.Unix()%86400 < 0 {
				days--
			}
			return int32(days), nil
		}
	case LongType:
		if i, err := avroLong(v); err == nil { // an int promoted to long
			return i, nil
		}
	case TimeType:
		switch v := v.(type) {
		case time.Duration: // goavro's time-micros and time-millis
			return v.Microseconds(), nil
		case int64:
			return v, nil
		}
	case TimestampType, TimestampTzType:
		switch v := v.(type) {
		case time.Time: // goavro's timestamp-micros and timestamp-millis
			return v.UnixMicro(), nil
		case int64:
			if strings.HasSuffix(s.logical, "timestamp-millis") {
				return v * 1000, nil
			}
			return v, nil
		}
	case TimestampNsType, TimestampTzNsType:
		switch v := v.(type) {
		case int64: // timestamp-nanos is not a goavro logical type
			return v, nil
		case time.Time:
			return v.UnixNano(), nil
		}
	case FloatType:
		if f, ok := v.(float32); ok {
			return f, nil
		}
	case DoubleType:
		switch v := v.(type) {
		case float64:
			return v, nil
		case float32: // a float promoted to double
			return float64(v), nil
		}
	case DecimalType:
		return avroDecimal(v, s, t.Scale)
	case StringType:
		switch v := v.(type) {
		case string:
			return v, nil
		case []byte:
			return string(v), nil
		}
	case UUIDType:
		return avroUUID(v)
	case FixedType, BinaryType:
		switch v := v.(type) {
		case []byte:
			return bytes.Clone(v), nil
		case string:
			return []byte(v), nil
		}
	}
	return nil, fmt.Errorf("%w: Avro %s value %T does not convert to %v", ErrInvalidMetadata, s.kind, v, t)
}

// avroIcebergType is the Iceberg type an Avro schema stands for.
func avroIcebergType(s *avroSchema) Type {
	switch s.kind {
	case "boolean":
		return BooleanType{}
	case "int":
		switch s.logical {
		case "date":
			return DateType{}
		case "time-millis":
			return TimeType{}
		}
		return IntType{}
	case "long":
		switch s.logical {
		case "time-micros":
			return TimeType{}
		case "timestamp-micros", "timestamp-millis", "local-timestamp-micros", "local-timestamp-millis":
			return TimestampType{}
		case "timestamp-nanos", "local-timestamp-nanos":
			return TimestampNsType{}
		}
		return LongType{}
	case "float":
		return FloatType{}
	case "double":
		return DoubleType{}
	case "string", "enum":
		if s.logical == "uuid" {
			return UUIDType{}
		}
		return StringType{}
	case "bytes", "fixed":
		switch {
		case s.logical == "decimal":
			return DecimalType{Precision: s.prec, Scale: s.scale}
		case s.logical == "uuid" && s.kind == "fixed":
			return UUIDType{}
		case s.kind == "fixed":
			return FixedType{Length: s.size}
		}
		return BinaryType{}
	}
	return UnknownType{}
}

// avroDecimal returns the unscaled value of a decimal at the given scale.
// goavro gives a *big.Rat for decimal logical types; raw bytes are the
// two's-complement big-endian unscaled value at the schema's scale.
func avroDecimal(v any, s *avroSchema, scale int) (any, error) {
	var r *big.Rat
	switch v := v.(type) {
	case *big.Rat:
		r = v
	case []byte:
		n := new(big.Int).SetBytes(v)
		if len(v) > 0 && v[0]&0x80 != 0 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(v))))
		}
		from := scale
		if s.logical == "decimal" {
			from = s.scale
		}
		r = new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(from)), nil))
	default:
		return nil, fmt.Errorf("%w: decimal value %T", ErrInvalidMetadata, v)
	}
	n := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	q, m := n.QuoRem(n, r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		return nil, fmt.Errorf("%w: decimal %s is not exact at scale %d", ErrInvalidMetadata, r.RatString(), scale)
	}
	if q.BitLen() > 127 {
		return nil, fmt.Errorf("%w: decimal %s does not fit in 128 bits", ErrInvalidMetadata, r.RatString())
	}
	return decimal128.FromBigInt(q), nil
}

// avroUUID reads a uuid written as fixed[16] or as a string.
func avroUUID(v any) (any, error) {
	var u [16]byte
	switch v := v.(type) {
	case []byte:
		if len(v) == 16 {
			copy(u[:], v)
			return u, nil
		}
	case string:
		h := strings.ReplaceAll(v, "-", "")
		if b, err := hex.DecodeString(h); err == nil && len(b) == 16 {
			copy(u[:], b)
			return u, nil
		}
	}
	return nil, fmt.Errorf("%w: uuid value %v", ErrInvalidMetadata, v)
}
