package iceberg

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Arrow field metadata keys carried on every field sent to clients.
const (
	// ArrowFieldIDKey holds the Iceberg field id, the key Parquet and
	// pyarrow use for field ids.
	ArrowFieldIDKey = "PARQUET:field_id"
	// ArrowDocKey holds the field's doc string when it has one.
	ArrowDocKey = "doc"
)

// ArrowSchema converts an Iceberg schema to an Arrow schema whose fields
// carry their Iceberg field ids as PARQUET:field_id metadata.
func ArrowSchema(s *Schema) (*arrow.Schema, error) {
	fields, err := ArrowFields(s.Fields)
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(fields, nil), nil
}

// ArrowFields converts Iceberg fields to Arrow fields.
func ArrowFields(fields []NestedField) ([]arrow.Field, error) {
	out := make([]arrow.Field, len(fields))
	for i, f := range fields {
		af, err := ArrowField(f)
		if err != nil {
			return nil, err
		}
		out[i] = af
	}
	return out, nil
}

// ArrowField converts one Iceberg field to an Arrow field.
func ArrowField(f NestedField) (arrow.Field, error) {
	dt, err := ArrowType(f.Type)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("field %d %q: %w", f.ID, f.Name, err)
	}
	keys := []string{ArrowFieldIDKey}
	vals := []string{strconv.Itoa(f.ID)}
	if f.Doc != "" {
		keys = append(keys, ArrowDocKey)
		vals = append(vals, f.Doc)
	}
	// Unknown is all nulls, so Arrow requires it to be nullable.
	_, unknown := f.Type.(UnknownType)
	return arrow.Field{Name: f.Name, Type: dt, Nullable: !f.Required || unknown, Metadata: arrow.NewMetadata(keys, vals)}, nil
}

// ArrowType converts an Iceberg type to the Arrow type iceflight serves it as.
func ArrowType(t Type) (arrow.DataType, error) {
	switch t := t.(type) {
	case BooleanType:
		return arrow.FixedWidthTypes.Boolean, nil
	case IntType:
		return arrow.PrimitiveTypes.Int32, nil
	case LongType:
		return arrow.PrimitiveTypes.Int64, nil
	case FloatType:
		return arrow.PrimitiveTypes.Float32, nil
	case DoubleType:
		return arrow.PrimitiveTypes.Float64, nil
	case DecimalType:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case DateType:
		return arrow.FixedWidthTypes.Date32, nil
	case TimeType:
		return arrow.FixedWidthTypes.Time64us, nil
	case TimestampType:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case TimestampTzType:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case TimestampNsType:
		return &arrow.TimestampType{Unit: arrow.Nanosecond}, nil
	case TimestampTzNsType:
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, nil
	case StringType:
		return arrow.BinaryTypes.String, nil
	case UUIDType:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}, nil
	case FixedType:
		return &arrow.FixedSizeBinaryType{ByteWidth: t.Length}, nil
	case BinaryType, GeometryType, GeographyType:
		return arrow.BinaryTypes.Binary, nil
	case UnknownType:
		return arrow.Null, nil
	case VariantType:
		return arrow.StructOf(
			arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary},
			arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
		), nil
	case *StructType:
		fields, err := ArrowFields(t.Fields)
		if err != nil {
			return nil, err
		}
		return arrow.StructOf(fields...), nil
	case *ListType:
		elem, err := ArrowField(t.ElementField())
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(elem), nil
	case *MapType:
		key, err := ArrowField(t.KeyField())
		if err != nil {
			return nil, err
		}
		val, err := ArrowField(t.ValueField())
		if err != nil {
			return nil, err
		}
		mt := arrow.MapOfFields(key, val)
		return mt, nil
	}
	return nil, fmt.Errorf("no Arrow type for Iceberg type %v", t)
}
