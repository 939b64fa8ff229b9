package orc

import (
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// Iceberg Java annotates every ORC type it writes with attributes
// (ORCSchemaUtil): "iceberg.id" (the field id), "iceberg.required" ("true"
// or "false"), "iceberg.binary-type" on binary columns ("UUID", "FIXED" or
// "BINARY"), "iceberg.length" on fixed columns, and "iceberg.long-type" on
// bigint columns ("LONG", or "TIME" for Iceberg's time type).
const (
	// AttrIcebergID is the ORC type attribute holding the Iceberg field id.
	AttrIcebergID = "iceberg.id"
	// FieldIDKey is the Arrow field metadata key that carries field ids,
	// the one pqarrow uses for Parquet.
	FieldIDKey = "PARQUET:field_id"
)

// ArrowSchema returns the file's columns as an Arrow schema; see arrowType
// for the type mapping. Every field whose ORC type has an iceberg.id
// attribute carries it as PARQUET:field_id metadata, along with the type's
// other attributes under their own names. All fields are nullable, as
// every ORC column may have a PRESENT stream.
func (f *File) ArrowSchema() (*arrow.Schema, error) {
	return arrowSchema(f.schema.Children, nil)
}

// unitFunc picks the unit of a timestamp column by its ORC column id; nil
// picks nanoseconds for all.
type unitFunc func(id int) arrow.TimeUnit

func (u unitFunc) of(id int) arrow.TimeUnit {
	if u == nil {
		return arrow.Nanosecond
	}
	return u(id)
}

func arrowSchema(cols []*Type, unit unitFunc) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(cols))
	for i, t := range cols {
		var err error
		if fields[i], err = arrowField(t, unit); err != nil {
			return nil, err
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

func arrowField(t *Type, unit unitFunc) (arrow.Field, error) {
	dt, err := arrowType(t, unit)
	if err != nil {
		return arrow.Field{}, err
	}
	return arrow.Field{Name: t.Name, Type: dt, Nullable: true, Metadata: fieldMetadata(t)}, nil
}

// fieldMetadata returns a type's attributes, with the Iceberg field id
// also under FieldIDKey.
func fieldMetadata(t *Type) arrow.Metadata {
	if len(t.Attributes) == 0 {
		return arrow.Metadata{}
	}
	keys := slices.Sorted(maps.Keys(t.Attributes))
	values := make([]string, len(keys))
	for i, k := range keys {
		values[i] = t.Attributes[k]
	}
	if id, ok := t.Attributes[AttrIcebergID]; ok {
		keys = append([]string{FieldIDKey}, keys...)
		values = append([]string{id}, values...)
	}
	return arrow.NewMetadata(keys, values)
}

// arrowType maps an ORC type to the Arrow type it is decoded into:
//
//	boolean → Boolean, tinyint → Int8, smallint → Int16, int → Int32,
//	bigint → Int64, float → Float32, double → Float64,
//	string, varchar, char → String, binary → Binary,
//	decimal(p,s) → Decimal128(p,s), date → Date32,
//	timestamp → Timestamp(unit), timestamp with local time zone →
//	Timestamp(unit, "UTC") with the unit unit picks, struct → Struct, array → List (element field
//	"element"), map → Map (fields "key" and "value").
//
// Union types have no mapping.
func arrowType(t *Type, unit unitFunc) (arrow.DataType, error) {
	switch t.Kind {
	case Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case Byte:
		return arrow.PrimitiveTypes.Int8, nil
	case Short:
		return arrow.PrimitiveTypes.Int16, nil
	case Int:
		return arrow.PrimitiveTypes.Int32, nil
	case Long:
		return arrow.PrimitiveTypes.Int64, nil
	case Float:
		return arrow.PrimitiveTypes.Float32, nil
	case Double:
		return arrow.PrimitiveTypes.Float64, nil
	case String, Varchar, Char:
		return arrow.BinaryTypes.String, nil
	case Binary:
		return arrow.BinaryTypes.Binary, nil
	case Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case Date:
		return arrow.FixedWidthTypes.Date32, nil
	case Timestamp:
		return &arrow.TimestampType{Unit: unit.of(t.ID)}, nil
	case TimestampInstant:
		return &arrow.TimestampType{Unit: unit.of(t.ID), TimeZone: "UTC"}, nil
	case Struct:
		fields := make([]arrow.Field, len(t.Children))
		for i, c := range t.Children {
			var err error
			if fields[i], err = arrowField(c, unit); err != nil {
				return nil, err
			}
		}
		return arrow.StructOf(fields...), nil
	case List:
		elem, err := arrowField(t.Children[0], unit)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(elem), nil
	case Map:
		key, err := arrowType(t.Children[0], unit)
		if err != nil {
			return nil, err
		}
		value, err := arrowType(t.Children[1], unit)
		if err != nil {
			return nil, err
		}
		return arrow.MapOfWithMetadata(key, fieldMetadata(t.Children[0]), value, fieldMetadata(t.Children[1])), nil
	}
	return nil, fmt.Errorf("%w: column %d (%s) is a %v", ErrUnsupported, t.ID, t.Name, t.Kind)
}
