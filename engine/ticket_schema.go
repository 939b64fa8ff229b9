package engine

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// The typed schema and name mapping a ticket carries. A schema travels as
// fields with ids and types rather than the spec's JSON text: a worker
// builds it without a JSON parse for each ticket, and the ticket codec,
// not the reader, owns the wire form.

// encodeSchema returns the wire form of s; nil for a nil schema.
func encodeSchema(s *iceberg.Schema) *iceflightv1.Schema {
	if s == nil {
		return nil
	}
	out := &iceflightv1.Schema{SchemaId: int32(s.ID), Fields: encodeFields(s.Fields)}
	for _, id := range s.IdentifierFieldIDs {
		out.IdentifierFieldIds = append(out.IdentifierFieldIds, int32(id))
	}
	return out
}

func encodeFields(fields []iceberg.NestedField) []*iceflightv1.Field {
	out := make([]*iceflightv1.Field, len(fields))
	for i, f := range fields {
		out[i] = &iceflightv1.Field{Id: int32(f.ID), Name: f.Name, Required: f.Required, Type: encodeType(f.Type), Doc: f.Doc}
		if f.InitialDefault != nil {
			out[i].InitialDefault = []byte(f.InitialDefault)
		}
	}
	return out
}

func encodeType(t iceberg.Type) *iceflightv1.Type {
	switch t := t.(type) {
	case *iceberg.StructType:
		return &iceflightv1.Type{Kind: &iceflightv1.Type_Struct{Struct: &iceflightv1.StructType{Fields: encodeFields(t.Fields)}}}
	case *iceberg.ListType:
		return &iceflightv1.Type{Kind: &iceflightv1.Type_List{List: &iceflightv1.ListType{
			ElementId: int32(t.ElementID), Element: encodeType(t.Element), ElementRequired: t.ElementRequired}}}
	case *iceberg.MapType:
		return &iceflightv1.Type{Kind: &iceflightv1.Type_Map{Map: &iceflightv1.MapType{
			KeyId: int32(t.KeyID), Key: encodeType(t.Key), ValueId: int32(t.ValueID), Value: encodeType(t.Value), ValueRequired: t.ValueRequired}}}
	default:
		return &iceflightv1.Type{Kind: &iceflightv1.Type_Primitive{Primitive: t.String()}}
	}
}

// decodeSchema builds the schema of a verified ticket's wire form; nil for
// an absent one.
func decodeSchema(s *iceflightv1.Schema) (*iceberg.Schema, error) {
	if s == nil {
		return nil, nil
	}
	fields, err := decodeFields(s.Fields, 0)
	if err != nil {
		return nil, err
	}
	schema := iceberg.NewSchema(int(s.SchemaId), fields...)
	for _, id := range s.IdentifierFieldIds {
		schema.IdentifierFieldIDs = append(schema.IdentifierFieldIDs, int(id))
	}
	return schema, nil
}

// maxTypeDepth bounds the nesting of a ticket's types. A signed ticket
// comes from a coordinator, but its decoder must not be the thing that a
// pathological schema overflows.
const maxTypeDepth = 256

func decodeFields(fields []*iceflightv1.Field, depth int) ([]iceberg.NestedField, error) {
	out := make([]iceberg.NestedField, len(fields))
	for i, f := range fields {
		t, err := decodeType(f.GetType(), depth)
		if err != nil {
			return nil, fmt.Errorf("field %d %q: %w", f.GetId(), f.GetName(), err)
		}
		out[i] = iceberg.NestedField{ID: int(f.GetId()), Name: f.GetName(), Type: t, Required: f.GetRequired(), Doc: f.GetDoc()}
		if f.InitialDefault != nil {
			out[i].InitialDefault = append([]byte(nil), f.InitialDefault...)
		}
	}
	return out, nil
}

func decodeType(t *iceflightv1.Type, depth int) (iceberg.Type, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("types nested deeper than %d", maxTypeDepth)
	}
	switch k := t.GetKind().(type) {
	case *iceflightv1.Type_Primitive:
		return iceberg.ParsePrimitiveType(k.Primitive)
	case *iceflightv1.Type_Struct:
		fields, err := decodeFields(k.Struct.GetFields(), depth+1)
		if err != nil {
			return nil, err
		}
		return &iceberg.StructType{Fields: fields}, nil
	case *iceflightv1.Type_List:
		elem, err := decodeType(k.List.GetElement(), depth+1)
		if err != nil {
			return nil, fmt.Errorf("list element: %w", err)
		}
		return &iceberg.ListType{ElementID: int(k.List.GetElementId()), Element: elem, ElementRequired: k.List.GetElementRequired()}, nil
	case *iceflightv1.Type_Map:
		key, err := decodeType(k.Map.GetKey(), depth+1)
		if err != nil {
			return nil, fmt.Errorf("map key: %w", err)
		}
		value, err := decodeType(k.Map.GetValue(), depth+1)
		if err != nil {
			return nil, fmt.Errorf("map value: %w", err)
		}
		return &iceberg.MapType{KeyID: int(k.Map.GetKeyId()), Key: key, ValueID: int(k.Map.GetValueId()), Value: value,
			ValueRequired: k.Map.GetValueRequired()}, nil
	default:
		return nil, fmt.Errorf("no type")
	}
}

// encodeNameMapping returns the wire form of a name mapping; nil for none.
func encodeNameMapping(m iceberg.NameMapping) *iceflightv1.NameMapping {
	if m == nil {
		return nil
	}
	return &iceflightv1.NameMapping{Fields: encodeMapped(m)}
}

func encodeMapped(fields []iceberg.MappedField) []*iceflightv1.MappedField {
	out := make([]*iceflightv1.MappedField, len(fields))
	for i, f := range fields {
		out[i] = &iceflightv1.MappedField{Names: f.Names, Fields: encodeMapped(f.Fields)}
		if f.FieldID != nil {
			id := int32(*f.FieldID)
			out[i].FieldId = &id
		}
	}
	return out
}

// decodeNameMapping builds the name mapping of a verified ticket; nil for
// none.
func decodeNameMapping(m *iceflightv1.NameMapping) (iceberg.NameMapping, error) {
	if m == nil {
		return nil, nil
	}
	fields, err := decodeMapped(m.Fields, 0)
	if fields == nil && err == nil {
		fields = iceberg.NameMapping{} // a mapping of no fields is still one
	}
	return fields, err
}

func decodeMapped(fields []*iceflightv1.MappedField, depth int) ([]iceberg.MappedField, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("name mapping nested deeper than %d", maxTypeDepth)
	}
	out := make([]iceberg.MappedField, len(fields))
	for i, f := range fields {
		children, err := decodeMapped(f.Fields, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = iceberg.MappedField{Names: f.Names, Fields: children}
		if f.FieldId != nil {
			id := int(*f.FieldId)
			out[i].FieldID = &id
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, nil
}
