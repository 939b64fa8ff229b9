package iceberg

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Type is an Iceberg data type: a primitive or one of struct, list and map.
type Type interface {
	// String returns the type as the spec spells it in JSON ("long",
	// "decimal(9,2)", "struct<...>").
	String() string
	isType()
}

// PrimitiveType is a Type that holds a single value.
type PrimitiveType interface {
	Type
	primitive()
}

// Primitive types without parameters. Their zero values are ready to use.
type (
	BooleanType       struct{}
	IntType           struct{}
	LongType          struct{}
	FloatType         struct{}
	DoubleType        struct{}
	DateType          struct{}
	TimeType          struct{}
	TimestampType     struct{}
	TimestampTzType   struct{}
	TimestampNsType   struct{}
	TimestampTzNsType struct{}
	StringType        struct{}
	UUIDType          struct{}
	BinaryType        struct{}
	// UnknownType is the v3 type of a column whose values are all null.
	UnknownType struct{}
	// VariantType is the v3 semi-structured type.
	VariantType struct{}
)

// DecimalType is a fixed-point decimal with a precision of at most 38.
type DecimalType struct{ Precision, Scale int }

// FixedType is a byte array of a fixed length.
type FixedType struct{ Length int }

// GeometryType is the v3 geometry type; values are WKB.
type GeometryType struct{ CRS string }

// GeographyType is the v3 geography type; values are WKB.
type GeographyType struct{ CRS, Algorithm string }

func (BooleanType) String() string       { return "boolean" }
func (IntType) String() string           { return "int" }
func (LongType) String() string          { return "long" }
func (FloatType) String() string         { return "float" }
func (DoubleType) String() string        { return "double" }
func (DateType) String() string          { return "date" }
func (TimeType) String() string          { return "time" }
func (TimestampType) String() string     { return "timestamp" }
func (TimestampTzType) String() string   { return "timestamptz" }
func (TimestampNsType) String() string   { return "timestamp_ns" }
func (TimestampTzNsType) String() string { return "timestamptz_ns" }
func (StringType) String() string        { return "string" }
func (UUIDType) String() string          { return "uuid" }
func (BinaryType) String() string        { return "binary" }
func (UnknownType) String() string       { return "unknown" }
func (VariantType) String() string       { return "variant" }
func (t DecimalType) String() string     { return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale) }
func (t FixedType) String() string       { return fmt.Sprintf("fixed[%d]", t.Length) }

func (t GeometryType) String() string {
	if t.CRS == "" {
		return "geometry"
	}
	return fmt.Sprintf("geometry(%s)", t.CRS)
}

func (t GeographyType) String() string {
	switch {
	case t.CRS == "" && t.Algorithm == "":
		return "geography"
	case t.Algorithm == "":
		return fmt.Sprintf("geography(%s)", t.CRS)
	default:
		return fmt.Sprintf("geography(%s, %s)", t.CRS, t.Algorithm)
	}
}

func (BooleanType) isType()       {}
func (IntType) isType()           {}
func (LongType) isType()          {}
func (FloatType) isType()         {}
func (DoubleType) isType()        {}
func (DateType) isType()          {}
func (TimeType) isType()          {}
func (TimestampType) isType()     {}
func (TimestampTzType) isType()   {}
func (TimestampNsType) isType()   {}
func (TimestampTzNsType) isType() {}
func (StringType) isType()        {}
func (UUIDType) isType()          {}
func (BinaryType) isType()        {}
func (UnknownType) isType()       {}
func (VariantType) isType()       {}
func (DecimalType) isType()       {}
func (FixedType) isType()         {}
func (GeometryType) isType()      {}
func (GeographyType) isType()     {}
func (*StructType) isType()       {}
func (*ListType) isType()         {}
func (*MapType) isType()          {}

func (BooleanType) primitive()       {}
func (IntType) primitive()           {}
func (LongType) primitive()          {}
func (FloatType) primitive()         {}
func (DoubleType) primitive()        {}
func (DateType) primitive()          {}
func (TimeType) primitive()          {}
func (TimestampType) primitive()     {}
func (TimestampTzType) primitive()   {}
func (TimestampNsType) primitive()   {}
func (TimestampTzNsType) primitive() {}
func (StringType) primitive()        {}
func (UUIDType) primitive()          {}
func (BinaryType) primitive()        {}
func (UnknownType) primitive()       {}
func (DecimalType) primitive()       {}
func (FixedType) primitive()         {}
func (GeometryType) primitive()      {}
func (GeographyType) primitive()     {}

// VariantType is not a primitive in the spec's sense (it nests values), but
// it has no field ids below it, so readers treat it as a leaf.
func (VariantType) primitive() {}

// StructType is a tuple of named, typed fields with unique field ids.
type StructType struct {
	Fields []NestedField
}

func (t *StructType) String() string {
	parts := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		parts[i] = f.Name + ": " + f.Type.String()
	}
	return "struct<" + strings.Join(parts, ", ") + ">"
}

// Field returns the direct child with the given id.
func (t *StructType) Field(id int) (NestedField, bool) {
	for _, f := range t.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return NestedField{}, false
}

// ListType is a list whose elements have their own field id.
type ListType struct {
	ElementID       int
	Element         Type
	ElementRequired bool
}

func (t *ListType) String() string { return "list<" + t.Element.String() + ">" }

// ElementField returns the element as a field, named "element" as in the spec.
func (t *ListType) ElementField() NestedField {
	return NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired}
}

// MapType is a map whose keys and values have their own field ids.
type MapType struct {
	KeyID         int
	Key           Type
	ValueID       int
	Value         Type
	ValueRequired bool
}

func (t *MapType) String() string {
	return "map<" + t.Key.String() + ", " + t.Value.String() + ">"
}

// KeyField returns the key as a field; keys are always required.
func (t *MapType) KeyField() NestedField {
	return NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true}
}

// ValueField returns the value as a field.
func (t *MapType) ValueField() NestedField {
	return NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired}
}

var (
	decimalPattern   = regexp.MustCompile(`^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$`)
	fixedPattern     = regexp.MustCompile(`^fixed\s*\[\s*(\d+)\s*\]$`)
	geometryPattern  = regexp.MustCompile(`^geometry\s*(?:\(\s*([^)]*?)\s*\))?$`)
	geographyPattern = regexp.MustCompile(`^geography\s*(?:\(\s*([^,)]*?)\s*(?:,\s*([^)]*?)\s*)?\))?$`)
)

// ParsePrimitiveType parses a primitive type as the spec spells it in JSON.
func ParsePrimitiveType(s string) (PrimitiveType, error) {
	switch s {
	case "boolean":
		return BooleanType{}, nil
	case "int":
		return IntType{}, nil
	case "long":
		return LongType{}, nil
	case "float":
		return FloatType{}, nil
	case "double":
		return DoubleType{}, nil
	case "date":
		return DateType{}, nil
	case "time":
		return TimeType{}, nil
	case "timestamp":
		return TimestampType{}, nil
	case "timestamptz":
		return TimestampTzType{}, nil
	case "timestamp_ns":
		return TimestampNsType{}, nil
	case "timestamptz_ns":
		return TimestampTzNsType{}, nil
	case "string":
		return StringType{}, nil
	case "uuid":
		return UUIDType{}, nil
	case "binary":
		return BinaryType{}, nil
	case "unknown":
		return UnknownType{}, nil
	case "variant":
		return VariantType{}, nil
	}
	if m := decimalPattern.FindStringSubmatch(s); m != nil {
		p, _ := strconv.Atoi(m[1])
		sc, _ := strconv.Atoi(m[2])
		if p < 1 || p > 38 || sc > p {
			return nil, fmt.Errorf("%w: decimal precision %d scale %d out of range", ErrInvalidMetadata, p, sc)
		}
		return DecimalType{Precision: p, Scale: sc}, nil
	}
	if m := fixedPattern.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return FixedType{Length: n}, nil
	}
	if m := geometryPattern.FindStringSubmatch(s); m != nil {
		return GeometryType{CRS: m[1]}, nil
	}
	if m := geographyPattern.FindStringSubmatch(s); m != nil {
		return GeographyType{CRS: m[1], Algorithm: m[2]}, nil
	}
	return nil, fmt.Errorf("%w: unknown type %q", ErrInvalidMetadata, s)
}

// DecimalPrecisionBytes returns the fewest bytes that hold an unscaled value
// of the given precision in two's complement, as the spec requires for
// decimals stored as fixed.
func DecimalPrecisionBytes(precision int) int {
	for n := 1; n <= 16; n++ {
		// Largest magnitude a signed n-byte integer holds is 2^(8n-1)-1;
		// compare digit counts through log10(2) ≈ 0.30103.
		if float64(8*n-1)*0.3010299956639812 >= float64(precision) {
			return n
		}
	}
	return 16
}

// IsStringOrBinary reports whether t is string or binary: the types whose
// values are variable-length bytes.
func IsStringOrBinary(t Type) bool {
	switch t.(type) {
	case StringType, BinaryType:
		return true
	}
	return false
}
