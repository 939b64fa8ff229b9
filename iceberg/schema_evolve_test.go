package iceberg

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// evolveBase is a table as Iceberg Java would hold it after
// TableMetadata.newTableMetadata on this schema (ids assigned by
// TypeUtil.assignFreshIds), partitioned by day(ts) and sorted by data.
func evolveBase(formatVersion int) *TableMetadata {
	schema := NewSchema(0,
		NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true},
		NestedField{ID: 2, Name: "data", Type: StringType{}},
		NestedField{ID: 3, Name: "ts", Type: TimestampType{}},
		NestedField{ID: 4, Name: "loc", Type: &StructType{Fields: []NestedField{
			{ID: 8, Name: "lat", Type: FloatType{}},
			{ID: 9, Name: "lon", Type: FloatType{}},
		}}},
		NestedField{ID: 5, Name: "points", Type: &ListType{ElementID: 10, ElementRequired: true, Element: &StructType{Fields: []NestedField{
			{ID: 11, Name: "x", Type: IntType{}, Required: true},
			{ID: 12, Name: "y", Type: IntType{}},
		}}}},
		NestedField{ID: 6, Name: "props", Type: &MapType{KeyID: 13, Key: StringType{}, ValueID: 14, Value: StringType{}}},
		NestedField{ID: 7, Name: "d", Type: DateType{}},
		NestedField{ID: 15, Name: "amount", Type: DecimalType{Precision: 9, Scale: 2}},
		NestedField{ID: 16, Name: "n", Type: IntType{}},
	)
	schema.IdentifierFieldIDs = []int{1}
	return &TableMetadata{
		FormatVersion: formatVersion,
		LastColumnID:  16,
		Schemas:       []*Schema{schema},
		Specs: []PartitionSpec{{ID: 0, Fields: []PartitionField{
			{SourceID: 3, FieldID: 1000, Name: "ts_day", Transform: DayTransform{}},
		}}},
		LastPartitionID:    1000,
		SortOrders:         []SortOrder{{OrderID: 0}, {OrderID: 1, Fields: []SortField{{SourceID: 2, Transform: "identity", Direction: "asc", NullOrder: "nulls-first"}}}},
		DefaultSortOrderID: 1,
	}
}

func fieldAt(t *testing.T, s *Schema, path string) NestedField {
	t.Helper()
	f, ok := s.FieldByPath(path)
	if !ok {
		t.Fatalf("no field %s in %s", path, s)
	}
	return f
}

func TestSchemaUpdateAddColumn(t *testing.T) {
	t.Parallel()
	nested := &StructType{Fields: []NestedField{
		{ID: 100, Name: "a", Type: IntType{}},
		{ID: 101, Name: "b", Type: &ListType{ElementID: 102, Element: LongType{}}},
	}}
	tests := []struct {
		name   string
		v      int
		path   string
		typ    Type
		req    bool
		def    string
		wantID map[string]int // path -> id expected in the result
		err    string
	}{
		{name: "top-level column takes last-column-id+1", v: 2, path: "extra", typ: StringType{}, wantID: map[string]int{"extra": 17}},
		{name: "nested type ids follow the field's, struct members before their children", v: 2, path: "s", typ: nested,
			wantID: map[string]int{"s": 17, "s.a": 18, "s.b": 19, "s.b.element": 20}},
		{name: "add into a struct", v: 2, path: "loc.alt", typ: DoubleType{}, wantID: map[string]int{"loc.alt": 17}},
		{name: "add into a list's element struct", v: 2, path: "points.z", typ: IntType{}, wantID: map[string]int{"points.element.z": 17}},
		{name: "required column needs a default", v: 2, path: "r", typ: IntType{}, req: true, err: "needs a default"},
		{name: "defaults need v3", v: 2, path: "r", typ: IntType{}, req: true, def: "5", err: "format version 3"},
		{name: "v3 required column with a default", v: 3, path: "r", typ: IntType{}, req: true, def: "5", wantID: map[string]int{"r": 17}},
		{name: "default must fit the type", v: 3, path: "r", typ: IntType{}, def: `"x"`, err: "default"},
		{name: "existing column", v: 2, path: "data", typ: StringType{}, err: "already exists"},
		{name: "existing nested column", v: 2, path: "loc.lat", typ: StringType{}, err: "already exists"},
		{name: "parent is not a struct", v: 2, path: "data.x", typ: StringType{}, err: "not a struct"},
		{name: "parent missing", v: 2, path: "nope.x", typ: StringType{}, err: "field not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := NewSchemaUpdate(evolveBase(tc.v))
			var def json.RawMessage
			if tc.def != "" {
				def = json.RawMessage(tc.def)
			}
			err := u.AddColumn(tc.path, tc.typ, tc.req, "a doc", def)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, last, changed, err := u.Apply()
			if err != nil || !changed {
				t.Fatalf("Apply: %v changed=%v", err, changed)
			}
			if s.ID != 1 {
				t.Errorf("schema id = %d, want 1", s.ID)
			}
			wantLast := 0
			for p, id := range tc.wantID {
				if f := fieldAt(t, s, p); f.ID != id {
					t.Errorf("%s id = %d, want %d", p, f.ID, id)
				}
				wantLast = max(wantLast, id)
			}
			if last != wantLast {
				t.Errorf("last-column-id = %d, want %d", last, wantLast)
			}
			f := fieldAt(t, s, tc.path)
			if f.Required != tc.req || f.Doc != "a doc" {
				t.Errorf("field = %+v", f)
			}
			if tc.def != "" && (string(f.InitialDefault) != tc.def || string(f.WriteDefault) != tc.def) {
				t.Errorf("defaults = %s / %s, want %s", f.InitialDefault, f.WriteDefault, tc.def)
			}
		})
	}
}

func TestSchemaUpdateChanges(t *testing.T) {
	t.Parallel()
	type op func(u *SchemaUpdate) error
	tests := []struct {
		name  string
		v     int
		ops   []op
		err   string
		check func(t *testing.T, s *Schema)
	}{
		{name: "drop a nested column", ops: []op{func(u *SchemaUpdate) error { return u.DropColumn("loc.lat") }},
			check: func(t *testing.T, s *Schema) {
				if _, ok := s.FieldByID(8); ok {
					t.Error("field 8 kept")
				}
			}},
		{name: "drop a struct drops its members", ops: []op{func(u *SchemaUpdate) error { return u.DropColumn("points") }},
			check: func(t *testing.T, s *Schema) {
				for _, id := range []int{5, 10, 11, 12} {
					if _, ok := s.FieldByID(id); ok {
						t.Errorf("field %d kept", id)
					}
				}
			}},
		{name: "identifier field cannot be dropped", ops: []op{func(u *SchemaUpdate) error { return u.DropColumn("id") }}, err: "identifier"},
		{name: "current partition source cannot be dropped", ops: []op{func(u *SchemaUpdate) error { return u.DropColumn("ts") }}, err: "partition field ts_day"},
		{name: "sort order source cannot be dropped", ops: []op{func(u *SchemaUpdate) error { return u.DropColumn("data") }}, err: "sort order"},
		{name: "list element cannot be dropped", ops: []op{func(u *SchemaUpdate) error { return u.DropColumn("points.element") }}, err: "cannot be dropped"},
		{name: "rename keeps the id", ops: []op{func(u *SchemaUpdate) error { return u.RenameColumn("loc.lat", "latitude") }},
			check: func(t *testing.T, s *Schema) {
				if f := fieldAt(t, s, "loc.latitude"); f.ID != 8 {
					t.Errorf("id = %d", f.ID)
				}
			}},
		{name: "rename onto an existing name", ops: []op{func(u *SchemaUpdate) error { return u.RenameColumn("data", "id") }}, err: "exists"},
		{name: "later changes see earlier renames", ops: []op{
			func(u *SchemaUpdate) error { return u.RenameColumn("n", "count") },
			func(u *SchemaUpdate) error { return u.UpdateType("count", LongType{}) },
		}, check: func(t *testing.T, s *Schema) {
			if f := fieldAt(t, s, "count"); f.ID != 16 || f.Type != (LongType{}) {
				t.Errorf("count = %+v", f)
			}
		}},
		{name: "int to long", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("points.x", LongType{}) }},
			check: func(t *testing.T, s *Schema) {
				if f := fieldAt(t, s, "points.x"); f.Type != (LongType{}) || !f.Required {
					t.Errorf("x = %+v", f)
				}
			}},
		{name: "float to double", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("loc.lon", DoubleType{}) }}},
		{name: "decimal precision widens", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("amount", DecimalType{Precision: 18, Scale: 2}) }}},
		{name: "decimal scale cannot change", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("amount", DecimalType{Precision: 18, Scale: 3}) }}, err: "cannot change type"},
		{name: "long to int narrows", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("id", IntType{}) }}, err: "cannot change type"},
		{name: "string to binary is no promotion", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("data", BinaryType{}) }}, err: "cannot change type"},
		{name: "date to timestamp needs v3", ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("d", TimestampType{}) }}, err: "cannot change type"},
		{name: "date to timestamp in v3", v: 3, ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("d", TimestampNsType{}) }}},
		{name: "date to timestamptz is never allowed", v: 3, ops: []op{func(u *SchemaUpdate) error { return u.UpdateType("d", TimestampTzType{}) }}, err: "cannot change type"},
		{name: "make optional", ops: []op{func(u *SchemaUpdate) error { return u.MakeOptional("points.element") }},
			check: func(t *testing.T, s *Schema) {
				if f := fieldAt(t, s, "points"); f.Type.(*ListType).ElementRequired {
					t.Error("element still required")
				}
			}},
		{name: "make required is incompatible", ops: []op{func(u *SchemaUpdate) error { return u.MakeRequired("data") }}, err: "incompatible"},
		{name: "identifier field made optional fails at apply", ops: []op{func(u *SchemaUpdate) error { return u.MakeOptional("id") }}, err: "must be required"},
		{name: "update doc", ops: []op{func(u *SchemaUpdate) error { return u.UpdateDoc("data", "the payload") }},
			check: func(t *testing.T, s *Schema) {
				if fieldAt(t, s, "data").Doc != "the payload" {
					t.Error("doc not set")
				}
			}},
		{name: "move first", ops: []op{func(u *SchemaUpdate) error { return u.MoveFirst("n") }}, check: order("n", "id", "data", "ts", "loc", "points", "props", "d", "amount")},
		{name: "move before", ops: []op{func(u *SchemaUpdate) error { return u.MoveBefore("n", "data") }}, check: order("id", "n", "data", "ts", "loc", "points", "props", "d", "amount")},
		{name: "move after", ops: []op{func(u *SchemaUpdate) error { return u.MoveAfter("id", "ts") }}, check: order("data", "ts", "id", "loc", "points", "props", "d", "amount", "n")},
		{name: "move after the last", ops: []op{func(u *SchemaUpdate) error { return u.MoveAfter("id", "n") }}, check: order("data", "ts", "loc", "points", "props", "d", "amount", "n", "id")},
		{name: "move nested", ops: []op{func(u *SchemaUpdate) error { return u.MoveBefore("loc.lon", "loc.lat") }},
			check: func(t *testing.T, s *Schema) {
				if st := fieldAt(t, s, "loc").Type.(*StructType); st.Fields[0].Name != "lon" {
					t.Errorf("loc = %s", st)
				}
			}},
		{name: "move to another struct", ops: []op{func(u *SchemaUpdate) error { return u.MoveAfter("loc.lat", "id") }}, err: "another struct"},
		{name: "move relative to itself", ops: []op{func(u *SchemaUpdate) error { return u.MoveAfter("id", "id") }}, err: "itself"},
		{name: "identifier fields", ops: []op{func(u *SchemaUpdate) error { return u.SetIdentifierFields("id", "points") }}, err: "primitive"},
		{name: "identifier must be required", ops: []op{func(u *SchemaUpdate) error { return u.SetIdentifierFields("data") }}, err: "must be required"},
		{name: "identifier in a list", ops: []op{func(u *SchemaUpdate) error { return u.SetIdentifierFields("points.x") }}, err: "list or map"},
		{name: "identifier must not be float", ops: []op{func(u *SchemaUpdate) error { return u.SetIdentifierFields("loc.lat") }}, err: "float"},
		{name: "identifier nested in an optional struct", v: 3, ops: []op{
			func(u *SchemaUpdate) error { return u.AddColumn("loc.k", IntType{}, true, "", json.RawMessage("1")) },
			func(u *SchemaUpdate) error { return u.SetIdentifierFields("loc.k") },
		}, err: "nested in optional field loc"},
		{name: "identifiers replaced", ops: []op{
			func(u *SchemaUpdate) error { return u.SetIdentifierFields() },
			func(u *SchemaUpdate) error { return u.DropColumn("id") },
		}, check: func(t *testing.T, s *Schema) {
			if len(s.IdentifierFieldIDs) != 0 {
				t.Errorf("identifiers = %v", s.IdentifierFieldIDs)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := tc.v
			if v == 0 {
				v = 2
			}
			base := evolveBase(v)
			before, _ := json.Marshal(base.Schemas[0])
			u := NewSchemaUpdate(base)
			var err error
			for _, o := range tc.ops {
				if err = o(u); err != nil {
					break
				}
			}
			var s *Schema
			if err == nil {
				s, _, _, err = u.Apply()
			}
			after, _ := json.Marshal(base.Schemas[0])
			if string(before) != string(after) {
				t.Fatalf("the table's schema changed:\n%s\n%s", before, after)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if !errors.Is(err, ErrInvalidChange) && !errors.Is(err, ErrFieldNotFound) {
					t.Errorf("err %v wraps neither ErrInvalidChange nor ErrFieldNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

func order(names ...string) func(t *testing.T, s *Schema) {
	return func(t *testing.T, s *Schema) {
		t.Helper()
		if got := strings.Join(s.ColumnNames(), ","); got != strings.Join(names, ",") {
			t.Errorf("columns = %s, want %s", got, strings.Join(names, ","))
		}
	}
}

func TestSchemaUpdateNoChange(t *testing.T) {
	t.Parallel()
	base := evolveBase(2)
	u := NewSchemaUpdate(base)
	if err := u.RenameColumn("data", "data"); err != nil {
		t.Fatal(err)
	}
	if err := u.UpdateType("n", IntType{}); err != nil {
		t.Fatal(err)
	}
	s, last, changed, err := u.Apply()
	if err != nil || changed || s != base.Schemas[0] || last != 16 {
		t.Fatalf("Apply = %v %d %v %v, want the current schema unchanged", s.ID, last, changed, err)
	}
}

func TestSchemaUpdateDatePartitionPromotion(t *testing.T) {
	t.Parallel()
	base := evolveBase(3)
	base.Specs = append(base.Specs, PartitionSpec{ID: 1, Fields: []PartitionField{{SourceID: 7, FieldID: 1001, Name: "d", Transform: IdentityTransform{}}}})
	err := NewSchemaUpdate(base).UpdateType("d", TimestampType{})
	if err == nil || !strings.Contains(err.Error(), "would change value") {
		t.Fatalf("err = %v: an identity partition of a date changes value as a timestamp", err)
	}
	base.Specs[1].Fields[0].Transform = MonthTransform{}
	if err := NewSchemaUpdate(base).UpdateType("d", TimestampType{}); err != nil {
		t.Fatalf("month(date) equals month(timestamp at midnight): %v", err)
	}
}
