package iceberg

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrUnsupportedArrowType marks an Arrow type no Iceberg type holds
// without loss (unsigned integers, float16, nanosecond times, ...).
var ErrUnsupportedArrowType = errors.New("arrow type has no iceberg type")

// noID marks a field whose Arrow field carries no PARQUET:field_id.
const noID = -1

// SchemaFromArrow converts an Arrow schema to an Iceberg schema (id 0), the
// inverse of ArrowSchema: nullable fields become optional, a dictionary
// becomes its value type, the arrow.uuid extension becomes uuid. Field ids
// come from PARQUET:field_id metadata where present; the others are
// assigned after the highest present id, in the order Iceberg assigns
// fresh ids (a struct's fields, then their children). A type Iceberg
// cannot hold is an error naming the column and wrapping
// ErrUnsupportedArrowType.
func SchemaFromArrow(s *arrow.Schema) (*Schema, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil arrow schema", ErrUnsupportedArrowType)
	}
	c := arrowConverter{seen: map[int]string{}}
	fields, err := c.fields(s.Fields(), "")
	if err != nil {
		return nil, err
	}
	c.next = 0
	for id := range c.seen {
		c.next = max(c.next, id)
	}
	fields = c.assign(fields)
	return NewSchema(0, fields...), nil
}

type arrowConverter struct {
	seen map[int]string // field id → column path, to refuse duplicates
	next int
}

func (c *arrowConverter) fields(in []arrow.Field, parent string) ([]NestedField, error) {
	out := make([]NestedField, len(in))
	for i, f := range in {
		path := f.Name
		if parent != "" {
			path = parent + "." + f.Name
		}
		nf, err := c.field(f, path)
		if err != nil {
			return nil, err
		}
		out[i] = nf
	}
	return out, nil
}

func (c *arrowConverter) field(f arrow.Field, path string) (NestedField, error) {
	id, err := c.fieldID(f, path)
	if err != nil {
		return NestedField{}, err
	}
	t, err := c.typ(f.Type, path)
	if err != nil {
		return NestedField{}, err
	}
	nf := NestedField{ID: id, Name: f.Name, Type: t, Required: !f.Nullable}
	if _, unknown := t.(UnknownType); unknown {
		nf.Required = false
	}
	if doc, ok := f.Metadata.GetValue(ArrowDocKey); ok {
		nf.Doc = doc
	}
	return nf, nil
}

func (c *arrowConverter) fieldID(f arrow.Field, path string) (int, error) {
	raw, ok := f.Metadata.GetValue(ArrowFieldIDKey)
	if !ok {
		return noID, nil
	}
	id, err := strconv.Atoi(raw)
	if err != nil || id < 0 {
		return 0, fmt.Errorf("%w: column %q: %s %q is not a field id", ErrInvalidMetadata, path, ArrowFieldIDKey, raw)
	}
	if other, dup := c.seen[id]; dup {
		return 0, fmt.Errorf("%w: columns %q and %q both have field id %d", ErrInvalidMetadata, other, path, id)
	}
	c.seen[id] = path
	return id, nil
}

func (c *arrowConverter) typ(dt arrow.DataType, path string) (Type, error) {
	unsupported := func() (Type, error) {
		return nil, fmt.Errorf("%w: column %q has Arrow type %s", ErrUnsupportedArrowType, path, dt)
	}
	switch t := dt.(type) {
	case *arrow.NullType:
		return UnknownType{}, nil
	case *arrow.BooleanType:
		return BooleanType{}, nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type:
		return IntType{}, nil
	case *arrow.Int64Type:
		return LongType{}, nil
	case *arrow.Float32Type:
		return FloatType{}, nil
	case *arrow.Float64Type:
		return DoubleType{}, nil
	case arrow.DecimalType:
		if t.GetPrecision() < 1 || t.GetPrecision() > 38 {
			return unsupported()
		}
		return DecimalType{Precision: int(t.GetPrecision()), Scale: int(t.GetScale())}, nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return DateType{}, nil
	case *arrow.Time64Type:
		if t.Unit != arrow.Microsecond {
			return unsupported()
		}
		return TimeType{}, nil
	case *arrow.TimestampType:
		tz := t.TimeZone != ""
		switch {
		case t.Unit == arrow.Nanosecond && tz:
			return TimestampTzNsType{}, nil
		case t.Unit == arrow.Nanosecond:
			return TimestampNsType{}, nil
		case tz:
			return TimestampTzType{}, nil
		}
		return TimestampType{}, nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return StringType{}, nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return BinaryType{}, nil
	case *arrow.FixedSizeBinaryType:
		return FixedType{Length: t.ByteWidth}, nil
	case *arrow.DictionaryType:
		return c.typ(t.ValueType, path)
	case arrow.ExtensionType:
		if t.ExtensionName() == "arrow.uuid" {
			return UUIDType{}, nil
		}
		return c.typ(t.StorageType(), path)
	case *arrow.StructType:
		fields, err := c.fields(t.Fields(), path)
		if err != nil {
			return nil, err
		}
		return &StructType{Fields: fields}, nil
	case *arrow.MapType:
		key, err := c.field(t.KeyField(), path+".key")
		if err != nil {
			return nil, err
		}
		val, err := c.field(t.ItemField(), path+".value")
		if err != nil {
			return nil, err
		}
		return &MapType{KeyID: key.ID, Key: key.Type, ValueID: val.ID, Value: val.Type, ValueRequired: val.Required}, nil
	case arrow.ListLikeType:
		// list, large list, fixed-size list and list views.
		elem, err := c.field(t.ElemField(), path+".element")
		if err != nil {
			return nil, err
		}
		return &ListType{ElementID: elem.ID, Element: elem.Type, ElementRequired: elem.Required}, nil
	}
	return unsupported()
}

// assign gives the fields without an id the next ids, a struct's own
// fields before what is below them (TypeUtil.assignFreshIds' order).
func (c *arrowConverter) assign(fields []NestedField) []NestedField {
	id := func(have int) int {
		if have != noID {
			return have
		}
		c.next++
		return c.next
	}
	for i := range fields {
		fields[i].ID = id(fields[i].ID)
	}
	for i := range fields {
		switch t := fields[i].Type.(type) {
		case *StructType:
			t.Fields = c.assign(t.Fields)
		case *ListType:
			t.ElementID = id(t.ElementID)
			c.assignBelow(t.Element)
		case *MapType:
			t.KeyID = id(t.KeyID)
			t.ValueID = id(t.ValueID)
			c.assignBelow(t.Key)
			c.assignBelow(t.Value)
		}
	}
	return fields
}

func (c *arrowConverter) assignBelow(t Type) {
	switch t := t.(type) {
	case *StructType:
		t.Fields = c.assign(t.Fields)
	case *ListType, *MapType:
		// A list or map directly inside a list or map: wrap it as a field
		// to reuse assign's order.
		c.assign([]NestedField{{ID: 0, Type: t}})
	}
}
