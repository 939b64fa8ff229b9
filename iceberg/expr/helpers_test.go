package expr

import (
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// testSchema has a column of every primitive type the filters handle.
var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.IntType{}},
	iceberg.NestedField{ID: 2, Name: "l", Type: iceberg.LongType{}},
	iceberg.NestedField{ID: 3, Name: "f", Type: iceberg.FloatType{}},
	iceberg.NestedField{ID: 4, Name: "d", Type: iceberg.DoubleType{}},
	iceberg.NestedField{ID: 5, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
	iceberg.NestedField{ID: 6, Name: "s", Type: iceberg.StringType{}},
	iceberg.NestedField{ID: 7, Name: "b", Type: iceberg.BinaryType{}},
	iceberg.NestedField{ID: 8, Name: "fx", Type: iceberg.FixedType{Length: 4}},
	iceberg.NestedField{ID: 9, Name: "dt", Type: iceberg.DateType{}},
	iceberg.NestedField{ID: 10, Name: "t", Type: iceberg.TimeType{}},
	iceberg.NestedField{ID: 11, Name: "ts", Type: iceberg.TimestampType{}},
	iceberg.NestedField{ID: 12, Name: "tstz", Type: iceberg.TimestampTzType{}},
	iceberg.NestedField{ID: 13, Name: "tsns", Type: iceberg.TimestampNsType{}},
	iceberg.NestedField{ID: 14, Name: "u", Type: iceberg.UUIDType{}},
	iceberg.NestedField{ID: 15, Name: "bo", Type: iceberg.BooleanType{}},
	iceberg.NestedField{ID: 16, Name: "req", Type: iceberg.IntType{}, Required: true},
	iceberg.NestedField{ID: 17, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 18, Name: "a", Type: iceberg.IntType{}, Required: true},
		{ID: 19, Name: "b", Type: iceberg.StringType{}},
	}}},
	iceberg.NestedField{ID: 20, Name: "arr", Type: &iceberg.ListType{ElementID: 21, Element: iceberg.IntType{}}},
	iceberg.NestedField{ID: 22, Name: "nothing", Type: iceberg.UnknownType{}},
	iceberg.NestedField{ID: 23, Name: "Mixed", Type: iceberg.IntType{}},
	iceberg.NestedField{ID: 24, Name: "dotted.name", Type: iceberg.IntType{}},
)

// mustBind parses and binds a filter, failing the test on error.
func mustBind(t *testing.T, filter string) Expr {
	t.Helper()
	e, err := Parse(filter)
	if err != nil {
		t.Fatalf("parse %q: %v", filter, err)
	}
	b, err := Bind(e, testSchema, true)
	if err != nil {
		t.Fatalf("bind %q: %v", filter, err)
	}
	return b
}

// spec1 is a partition spec with one field on source column src.
func spec1(src int, tr iceberg.Transform, name string) iceberg.PartitionSpec {
	return iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: src, FieldID: 1000, Name: name, Transform: tr}}}
}

// testSchemaWith returns testSchema plus an optional int column and an
// optional string column with the given names (ids 30 and 31).
func testSchemaWith(intName, strName string) *iceberg.Schema {
	fields := append([]iceberg.NestedField(nil), testSchema.Fields...)
	fields = append(fields,
		iceberg.NestedField{ID: 30, Name: intName, Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 31, Name: strName, Type: iceberg.StringType{}})
	return iceberg.NewSchema(0, fields...)
}
