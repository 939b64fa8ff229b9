package iceberg

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

func idMeta(id string) arrow.Metadata {
	return arrow.NewMetadata([]string{ArrowFieldIDKey}, []string{id})
}

func TestSchemaFromArrowTypes(t *testing.T) {
	t.Parallel()
	// The Iceberg type each Arrow type holds (spec: Arrow/Parquet type
	// mappings; PyIceberg's pyarrow_to_schema visitor agrees).
	tests := []struct {
		arrow arrow.DataType
		want  Type
	}{
		{arrow.Null, UnknownType{}},
		{arrow.FixedWidthTypes.Boolean, BooleanType{}},
		{arrow.PrimitiveTypes.Int8, IntType{}},
		{arrow.PrimitiveTypes.Int16, IntType{}},
		{arrow.PrimitiveTypes.Int32, IntType{}},
		{arrow.PrimitiveTypes.Int64, LongType{}},
		{arrow.PrimitiveTypes.Float32, FloatType{}},
		{arrow.PrimitiveTypes.Float64, DoubleType{}},
		{&arrow.Decimal128Type{Precision: 38, Scale: 10}, DecimalType{38, 10}},
		{&arrow.Decimal64Type{Precision: 12, Scale: 2}, DecimalType{12, 2}},
		{arrow.FixedWidthTypes.Date32, DateType{}},
		{arrow.FixedWidthTypes.Date64, DateType{}},
		{arrow.FixedWidthTypes.Time64us, TimeType{}},
		{&arrow.TimestampType{Unit: arrow.Second}, TimestampType{}},
		{&arrow.TimestampType{Unit: arrow.Millisecond}, TimestampType{}},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, TimestampType{}},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, TimestampTzType{}},
		{&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"}, TimestampTzType{}},
		{&arrow.TimestampType{Unit: arrow.Nanosecond}, TimestampNsType{}},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "+00:00"}, TimestampTzNsType{}},
		{arrow.BinaryTypes.String, StringType{}},
		{arrow.BinaryTypes.LargeString, StringType{}},
		{arrow.BinaryTypes.StringView, StringType{}},
		{arrow.BinaryTypes.Binary, BinaryType{}},
		{arrow.BinaryTypes.LargeBinary, BinaryType{}},
		{arrow.BinaryTypes.BinaryView, BinaryType{}},
		{&arrow.FixedSizeBinaryType{ByteWidth: 7}, FixedType{7}},
		{extensions.NewUUIDType(), UUIDType{}},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}, StringType{}},
	}
	for _, tc := range tests {
		s, err := SchemaFromArrow(arrow.NewSchema([]arrow.Field{{Name: "c", Type: tc.arrow, Nullable: true}}, nil))
		if err != nil {
			t.Errorf("%s: %v", tc.arrow, err)
			continue
		}
		if got := s.Fields[0].Type; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.arrow, got, tc.want)
		}
	}
}

func TestSchemaFromArrowRefuses(t *testing.T) {
	t.Parallel()
	for _, dt := range []arrow.DataType{
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.FixedWidthTypes.Time64ns, arrow.FixedWidthTypes.Time32ms,
		&arrow.Decimal256Type{Precision: 50, Scale: 0}, arrow.FixedWidthTypes.Duration_us,
	} {
		col := arrow.Field{Name: "bad", Type: dt}
		_, err := SchemaFromArrow(arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.StructOf(col), Nullable: true}}, nil))
		if !errors.Is(err, ErrUnsupportedArrowType) || !strings.Contains(err.Error(), `"s.bad"`) {
			t.Errorf("%s: err %v, want ErrUnsupportedArrowType naming s.bad", dt, err)
		}
	}
	dup := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32, Metadata: idMeta("1")}, {Name: "b", Type: arrow.PrimitiveTypes.Int32, Metadata: idMeta("1")}}, nil)
	if _, err := SchemaFromArrow(dup); !errors.Is(err, ErrInvalidMetadata) {
		t.Errorf("duplicate field ids: %v", err)
	}
}

func TestSchemaFromArrowNestedAndIDs(t *testing.T) {
	t.Parallel()
	// No field ids: assigned as TypeUtil.assignFreshIds would, the
	// top-level fields first.
	s, err := SchemaFromArrow(arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "tags", Type: arrow.ListOfNonNullable(arrow.BinaryTypes.String), Nullable: true},
		{Name: "attrs", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "p", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		{Name: "fl", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32)},
	}, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := NewSchema(0,
		NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true},
		NestedField{ID: 2, Name: "tags", Type: &ListType{ElementID: 6, Element: StringType{}, ElementRequired: true}},
		NestedField{ID: 3, Name: "attrs", Type: &MapType{KeyID: 7, Key: StringType{}, ValueID: 8, Value: DoubleType{}}},
		NestedField{ID: 4, Name: "p", Type: &StructType{Fields: []NestedField{{ID: 9, Name: "x", Type: IntType{}}}}},
		NestedField{ID: 5, Name: "fl", Type: &ListType{ElementID: 10, Element: FloatType{}}, Required: true},
	)
	if !reflect.DeepEqual(s.Fields, want.Fields) {
		t.Fatalf("got  %v\nwant %v", s.Fields, want.Fields)
	}
	// Ids carried as PARQUET:field_id are kept: what ArrowSchema writes
	// comes back as it was.
	orig := want
	orig.Fields[0].Doc = "the key"
	as, err := ArrowSchema(orig)
	if err != nil {
		t.Fatal(err)
	}
	back, err := SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Fields, orig.Fields) {
		t.Fatalf("ArrowSchema round trip\n got %v\nwant %v", back.Fields, orig.Fields)
	}
	// Mixed: ids present are kept, the missing ones follow the highest.
	mixed, err := SchemaFromArrow(arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Metadata: idMeta("10")},
		{Name: "b", Type: arrow.PrimitiveTypes.Int32},
	}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if mixed.Fields[0].ID != 10 || mixed.Fields[1].ID != 11 {
		t.Fatalf("mixed ids: %+v", mixed.Fields)
	}
}
