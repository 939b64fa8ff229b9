package iceberg

import (
	"errors"
	"reflect"
	"regexp"
	"testing"
)

func TestNewTableMetadata(t *testing.T) {
	t.Parallel()
	// Ids as the caller had them (any), a nested struct, list and map.
	schema := NewSchema(7,
		NestedField{ID: 50, Name: "id", Type: LongType{}, Required: true},
		NestedField{ID: 51, Name: "s", Type: &StructType{Fields: []NestedField{
			{ID: 60, Name: "c", Type: IntType{}},
			{ID: 61, Name: "d", Type: &ListType{ElementID: 62, Element: IntType{}}},
		}}},
		NestedField{ID: 52, Name: "m", Type: &MapType{KeyID: 70, Key: StringType{}, ValueID: 71, Value: &StructType{Fields: []NestedField{{ID: 72, Name: "v", Type: DoubleType{}}}}}},
		NestedField{ID: 53, Name: "ts", Type: TimestampTzType{}},
	)
	schema.IdentifierFieldIDs = []int{50}
	spec := PartitionSpec{ID: 4, Fields: []PartitionField{
		{SourceID: 53, Name: "ts_day", Transform: DayTransform{}},
		{SourceID: 50, Name: "id_bucket", Transform: BucketTransform{8}},
	}}
	order := SortOrder{OrderID: 9, Fields: []SortField{{SourceID: 60, Transform: "identity", Direction: "desc", NullOrder: "nulls-last"}}}
	md, err := NewTableMetadata(schema, spec, order, "s3://b/t/", map[string]string{"format-version": "1", "owner": "me"})
	if err != nil {
		t.Fatal(err)
	}
	// TypeUtil.assignFreshIds: the top-level fields 1-4 first, then s's
	// fields (5, 6), d's element (7), m's key and value (8, 9), v (10).
	want := NewSchema(0,
		NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true},
		NestedField{ID: 2, Name: "s", Type: &StructType{Fields: []NestedField{
			{ID: 5, Name: "c", Type: IntType{}},
			{ID: 6, Name: "d", Type: &ListType{ElementID: 7, Element: IntType{}}},
		}}},
		NestedField{ID: 3, Name: "m", Type: &MapType{KeyID: 8, Key: StringType{}, ValueID: 9, Value: &StructType{Fields: []NestedField{{ID: 10, Name: "v", Type: DoubleType{}}}}}},
		NestedField{ID: 4, Name: "ts", Type: TimestampTzType{}},
	)
	want.IdentifierFieldIDs = []int{1}
	if got := md.CurrentSchema(); !reflect.DeepEqual(got.Fields, want.Fields) || !reflect.DeepEqual(got.IdentifierFieldIDs, want.IdentifierFieldIDs) || got.ID != 0 {
		t.Fatalf("schema\n got %v %v\nwant %v", got, got.IdentifierFieldIDs, want)
	}
	wantSpec := PartitionSpec{ID: 0, Fields: []PartitionField{
		{SourceID: 4, FieldID: 1000, Name: "ts_day", Transform: DayTransform{}},
		{SourceID: 1, FieldID: 1001, Name: "id_bucket", Transform: BucketTransform{8}},
	}}
	if !reflect.DeepEqual(md.Specs, []PartitionSpec{wantSpec}) || md.LastPartitionID != 1001 || md.DefaultSpecID != 0 {
		t.Fatalf("specs %+v last %d", md.Specs, md.LastPartitionID)
	}
	wantOrder := SortOrder{OrderID: 1, Fields: []SortField{{SourceID: 5, Transform: "identity", Direction: "desc", NullOrder: "nulls-last"}}}
	if !reflect.DeepEqual(md.SortOrders, []SortOrder{wantOrder}) || md.DefaultSortOrderID != 1 {
		t.Fatalf("sort orders %+v default %d", md.SortOrders, md.DefaultSortOrderID)
	}
	if md.FormatVersion != 1 || md.LastColumnID != 10 || md.Location != "s3://b/t" || md.CurrentSnapshotID != nil || md.LastSequenceNumber != 0 || md.NextRowID != nil {
		t.Fatalf("table: %+v", md)
	}
	wantProps := map[string]string{"owner": "me", "write.parquet.compression-codec": "zstd"}
	if !reflect.DeepEqual(md.Properties, wantProps) {
		t.Fatalf("properties %v, want %v", md.Properties, wantProps)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(md.TableUUID) {
		t.Fatalf("table-uuid %q is not a v4 UUID", md.TableUUID)
	}
	out, err := md.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseMetadata(out); err != nil {
		t.Fatalf("new metadata does not read back: %v", err)
	}
}

func TestNewTableMetadataVersions(t *testing.T) {
	t.Parallel()
	ns := NewSchema(0, NestedField{ID: 1, Name: "ts", Type: TimestampNsType{}, InitialDefault: []byte(`"2024-01-01T00:00:00.000000001"`)})
	tests := []struct {
		props   map[string]string
		version int
		err     error
	}{
		{nil, 2, ErrInvalidMetadata}, // timestamp_ns and defaults need v3
		{map[string]string{"format-version": "3"}, 3, nil},
		{map[string]string{"format-version": "4"}, 0, ErrUnsupportedVersion},
		{map[string]string{"format-version": "x"}, 0, ErrUnsupportedVersion},
	}
	for _, tc := range tests {
		md, err := NewTableMetadata(ns, PartitionSpec{}, SortOrder{}, "/t", tc.props)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%v: err %v, want %v", tc.props, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.props, err)
		}
		if md.FormatVersion != tc.version || md.NextRowID == nil || *md.NextRowID != 0 || md.LastPartitionID != 999 || md.DefaultSortOrderID != 0 {
			t.Fatalf("%v: %+v", tc.props, md)
		}
		if _, ok := md.Properties["format-version"]; ok {
			t.Fatal("format-version kept as a property")
		}
		if string(md.CurrentSchema().Fields[0].InitialDefault) != `"2024-01-01T00:00:00.000000001"` {
			t.Fatal("v3 initial-default lost")
		}
	}
	md, err := NewTableMetadata(NewSchema(0, NestedField{ID: 1, Name: "a", Type: IntType{}}), PartitionSpec{}, SortOrder{}, "/t", nil)
	if err != nil || md.FormatVersion != 2 || md.NextRowID != nil {
		t.Fatalf("default version: %+v %v", md, err)
	}
	if _, err := NewTableMetadata(NewSchema(0, NestedField{ID: 1, Name: "a", Type: IntType{}}), PartitionSpec{Fields: []PartitionField{{SourceID: 9, Name: "x", Transform: IdentityTransform{}}}}, SortOrder{}, "/t", nil); !errors.Is(err, ErrInvalidMetadata) {
		t.Fatalf("spec on a missing column: %v", err)
	}
}
