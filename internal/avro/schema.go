package avro

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Schema is one node of a parsed Avro schema, with the properties that
// Iceberg adds (field-id on record fields; element-id, key-id and value-id
// on arrays and maps; adjust-to-utc on timestamps) kept in Props.
type Schema struct {
	// Type is the Avro type: null, boolean, int, long, float, double,
	// bytes, string, record, enum, array, map, fixed or union.
	Type string
	// Kind is Type as a small integer, for decoders that switch on it.
	Kind Kind
	// Logical is the logicalType property, or "".
	Logical string
	// Name is the full name of a record, enum or fixed.
	Name string
	// Size is the byte size of a fixed.
	Size int
	// Precision and Scale describe a decimal.
	Precision, Scale int
	// Fields are a record's fields.
	Fields []Field
	// Items is an array's element type; Values a map's value type.
	Items, Values *Schema
	// Branches are a union's types.
	Branches []*Schema
	// Symbols are an enum's symbols.
	Symbols []string
	// Props holds every other property of the type.
	Props map[string]any
}

// Kind is an Avro type.
type Kind uint8

// The Avro types.
const (
	KindNull Kind = iota
	KindBoolean
	KindInt
	KindLong
	KindFloat
	KindDouble
	KindBytes
	KindString
	KindRecord
	KindEnum
	KindArray
	KindMap
	KindFixed
	KindUnion
)

var kinds = map[string]Kind{
	"null": KindNull, "boolean": KindBoolean, "int": KindInt, "long": KindLong, "float": KindFloat,
	"double": KindDouble, "bytes": KindBytes, "string": KindString, "record": KindRecord, "error": KindRecord,
	"enum": KindEnum, "array": KindArray, "map": KindMap, "fixed": KindFixed, "union": KindUnion,
}

// Field is a field of a record.
type Field struct {
	Name  string
	Type  *Schema
	Props map[string]any
}

// ID returns the field's Iceberg field-id property, or -1.
func (f Field) ID() int {
	if id, ok := intProp(f.Props["field-id"]); ok {
		return id
	}
	return -1
}

// IntProp returns an integer property of the type, written as a number or
// a string.
func (s *Schema) IntProp(name string) (int, bool) { return intProp(s.Props[name]) }

func intProp(v any) (int, bool) {
	switch v := v.(type) {
	case float64:
		return int(v), v == float64(int(v))
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}

// ParseSchema parses an Avro schema in JSON. Named types referenced again
// resolve to the same *Schema.
func ParseSchema(raw []byte) (*Schema, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrInvalid, err)
	}
	s, err := parse(v, "", map[string]*Schema{})
	if err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrInvalid, err)
	}
	return s, nil
}

var primitives = map[string]bool{
	"null": true, "boolean": true, "int": true, "long": true, "float": true, "double": true, "bytes": true, "string": true,
}

func parse(v any, ns string, named map[string]*Schema) (*Schema, error) {
	switch v := v.(type) {
	case string:
		if primitives[v] {
			return &Schema{Type: v, Kind: kinds[v]}, nil
		}
		if s, ok := named[v]; ok {
			return s, nil
		}
		if s, ok := named[ns+"."+v]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("unknown type %q", v)
	case []any:
		u := &Schema{Type: "union", Kind: KindUnion}
		for _, b := range v {
			bs, err := parse(b, ns, named)
			if err != nil {
				return nil, err
			}
			u.Branches = append(u.Branches, bs)
		}
		return u, nil
	case map[string]any:
		return parseObject(v, ns, named)
	}
	return nil, fmt.Errorf("unexpected schema element %T", v)
}

func parseObject(m map[string]any, ns string, named map[string]*Schema) (*Schema, error) {
	typ, ok := m["type"].(string)
	if !ok { // {"type": {...}} or {"type": [...]}: a nested definition
		return parse(m["type"], ns, named)
	}
	s := &Schema{Type: typ, Kind: kinds[typ], Props: map[string]any{}}
	for k, v := range m {
		switch k {
		case "type", "name", "namespace", "fields", "items", "values", "symbols", "size", "precision", "scale", "aliases", "doc":
		case "logicalType":
			s.Logical, _ = v.(string)
		default:
			s.Props[k] = v
		}
	}
	s.Precision, _ = intProp(m["precision"])
	s.Scale, _ = intProp(m["scale"])
	s.Size, _ = intProp(m["size"])
	switch typ {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
		return s, nil
	case "array":
		items, err := parse(m["items"], ns, named)
		s.Items = items
		return s, err
	case "map":
		values, err := parse(m["values"], ns, named)
		s.Values = values
		return s, err
	case "record", "error", "enum", "fixed":
	default: // {"type": "SomeName"}: a reference to a named type
		ref, err := parse(typ, ns, named)
		if err != nil {
			return nil, err
		}
		return ref, nil
	}
	name, _ := m["name"].(string)
	if space, ok := m["namespace"].(string); ok && space != "" && !strings.Contains(name, ".") {
		ns = space
	}
	s.Name = name
	if ns != "" && !strings.Contains(name, ".") {
		s.Name = ns + "." + name
	}
	if i := strings.LastIndex(s.Name, "."); i >= 0 {
		ns = s.Name[:i]
	}
	named[s.Name] = s
	if _, taken := named[name]; !taken {
		named[name] = s
	}
	switch typ {
	case "fixed":
		return s, nil
	case "enum":
		syms, _ := m["symbols"].([]any)
		for _, x := range syms {
			str, _ := x.(string)
			s.Symbols = append(s.Symbols, str)
		}
		return s, nil
	}
	s.Type = "record"
	fields, _ := m["fields"].([]any)
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		fname, _ := fm["name"].(string)
		ft, err := parse(fm["type"], ns, named)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", fname, err)
		}
		props := map[string]any{}
		for k, v := range fm {
			if k != "name" && k != "type" {
				props[k] = v
			}
		}
		s.Fields = append(s.Fields, Field{Name: fname, Type: ft, Props: props})
	}
	return s, nil
}

// withoutLogicalTypes returns a schema JSON whose logicalType properties
// are removed, so that goavro decodes every value as its underlying Avro
// type (a date as an int, a decimal as bytes) with no conversion.
func withoutLogicalTypes(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrInvalid, err)
	}
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "logicalType")
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(v)
	return json.Marshal(v)
}
