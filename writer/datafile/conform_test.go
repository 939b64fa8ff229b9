package datafile

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
)

// fromJSON builds a one-column-per-field batch from a JSON array of rows.
func fromJSON(t *testing.T, mem memory.Allocator, sc *arrow.Schema, rows string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(mem, sc, strings.NewReader(rows))
	if err != nil {
		t.Fatalf("build batch: %v", err)
	}
	return rec
}

func TestConformPromotesAndFills(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.IntType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "b", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 3, Name: "c", Type: iceberg.DoubleType{}},
		iceberg.NestedField{ID: 4, Name: "s", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 5, Name: "ts", Type: iceberg.TimestampTzType{}},
		iceberg.NestedField{ID: 6, Name: "d", Type: iceberg.DecimalType{Precision: 10, Scale: 2}},
		iceberg.NestedField{ID: 7, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 8, Name: "x", Type: iceberg.LongType{}, Required: true},
			{ID: 9, Name: "y", Type: iceberg.StringType{}},
		}}},
		iceberg.NestedField{ID: 10, Name: "l", Type: &iceberg.ListType{ElementID: 11, Element: iceberg.LongType{}}},
		iceberg.NestedField{ID: 12, Name: "m", Type: &iceberg.MapType{KeyID: 13, Key: iceberg.StringType{}, ValueID: 14, Value: iceberg.DoubleType{}}},
		iceberg.NestedField{ID: 15, Name: "missing", Type: iceberg.StringType{}},
	)
	src := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int8},
		{Name: "B", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, // case-insensitive match
		{Name: "c", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int16), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float32), Nullable: true},
	}, nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := fromJSON(t, mem, src, `[
		{"a": 1, "B": 10, "c": 1.5, "s": "x", "ts": 1000, "d": "123.45", "st": {"x": 7}, "l": [1, 2], "m": [{"key": "k", "value": 0.5}]},
		{"a": -2, "B": null, "c": null, "s": null, "ts": null, "d": null, "st": null, "l": null, "m": null}
	]`)
	defer in.Release()
	c, err := NewConformer(src, table, mem)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Conform(in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	want, err := iceberg.ArrowSchema(table)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Schema().Equal(want) {
		t.Fatalf("schema\n%v\nwant\n%v", out.Schema(), want)
	}
	// Nested field ids travel in the types.
	st := out.Column(6).DataType().(*arrow.StructType)
	if id, _ := st.Field(0).Metadata.GetValue(iceberg.ArrowFieldIDKey); id != "8" {
		t.Errorf("struct child field id %q, want 8", id)
	}
	if got := out.Column(4).(*array.Timestamp).Value(0); got != 1_000_000 {
		t.Errorf("ts 1000 ms = %d µs, want 1000000", got)
	}
	if got := out.Column(6).(*array.Struct).Field(1); got.NullN() != 2 {
		t.Errorf("missing struct child y: %d nulls, want 2", got.NullN())
	}
	if got := out.Column(9); got.NullN() != 2 || got.DataType().ID() != arrow.STRING {
		t.Errorf("missing column: %v with %d nulls", got.DataType(), got.NullN())
	}
	if got := out.Column(7).(*array.List).ListValues().(*array.Int64).Int64Values(); len(got) != 2 || got[1] != 2 {
		t.Errorf("list values %v", got)
	}
	if got := out.Column(8).(*array.Map).Items().(*array.Float64).Value(0); got != 0.5 {
		t.Errorf("map value %v", got)
	}
	if got := out.Column(0).(*array.Int32).Value(1); got != -2 {
		t.Errorf("a = %d", got)
	}
}

func TestConformRejects(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.TimestampType{}},
		iceberg.NestedField{ID: 3, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 4, Name: "x", Type: iceberg.IntType{}, Required: true},
		}}},
	)
	id := arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	cases := []struct {
		name   string
		fields []arrow.Field
		rows   string // non-empty: the error comes at Conform
		inErr  string
	}{
		{name: "a missing required column", fields: []arrow.Field{{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us}}, inErr: "id"},
		{name: "a column the table lacks", fields: []arrow.Field{id, {Name: "extra", Type: arrow.PrimitiveTypes.Int64}}, inErr: "extra"},
		{name: "a narrowing type", fields: []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Float64}}, inErr: "id"},
		{name: "a zoned timestamp for a local one", fields: []arrow.Field{id, {Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}}}, inErr: "ts"},
		{name: "a nested type mismatch", fields: []arrow.Field{id, {Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.String})}}, inErr: "st.x"},
		{name: "a nested missing required field", fields: []arrow.Field{id, {Name: "st", Type: arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32})}}, inErr: "st.x"},
		{name: "a null in a required column", fields: []arrow.Field{id}, rows: `[{"id": 1}, {"id": null}]`, inErr: "id"},
		{name: "a null in a required struct child under a valid struct", fields: []arrow.Field{id, {Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true}},
			rows: `[{"id": 1, "st": {"x": null}}]`, inErr: "st.x"},
		{name: "a lossy timestamp", fields: []arrow.Field{id, {Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true}},
			rows: `[{"id": 1, "ts": 1001}]`, inErr: "ts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			src := arrow.NewSchema(c.fields, nil)
			conf, err := NewConformer(src, table, mem)
			if c.rows != "" {
				if err != nil {
					t.Fatalf("NewConformer: %v", err)
				}
				in := fromJSON(t, mem, src, c.rows)
				defer in.Release()
				var out arrow.RecordBatch
				out, err = conf.Conform(in)
				if out != nil {
					out.Release()
				}
			}
			if !errors.Is(err, ErrSchemaMismatch) || !strings.Contains(err.Error(), c.inErr) {
				t.Fatalf("err = %v, want ErrSchemaMismatch naming %s", err, c.inErr)
			}
		})
	}
}

func TestConformNullStructHidesRequiredChild(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0, iceberg.NestedField{ID: 3, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 4, Name: "x", Type: iceberg.IntType{}, Required: true},
	}}})
	src := arrow.NewSchema([]arrow.Field{{Name: "st", Nullable: true, Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true})}}, nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := fromJSON(t, mem, src, `[{"st": null}, {"st": {"x": 3}}]`)
	defer in.Release()
	c, err := NewConformer(src, table, mem)
	if err != nil {
		t.Fatal(err)
	}
	// A slice exercises the struct's offset.
	sl := in.NewSlice(1, 2)
	defer sl.Release()
	for _, b := range []arrow.RecordBatch{in, sl} {
		out, err := c.Conform(b)
		if err != nil {
			t.Fatalf("a null struct's required child may be null: %v", err)
		}
		got := out.Column(0).(*array.Struct).Field(0).(*array.Int32)
		if v := got.Value(got.Len() - 1); v != 3 {
			t.Errorf("x = %d, want 3", v)
		}
		out.Release()
	}
}

func TestConformDictionaryAndSameSchema(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "s", Type: iceberg.StringType{}})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	_ = b.AppendString("x")
	b.AppendNull()
	_ = b.AppendString("x")
	col := b.NewArray()
	b.Release()
	src := arrow.NewSchema([]arrow.Field{{Name: "s", Type: dt, Nullable: true}}, nil)
	in := array.NewRecordBatch(src, []arrow.Array{col}, 3)
	col.Release()
	defer in.Release()
	c, err := NewConformer(src, table, mem)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Conform(in)
	if err != nil {
		t.Fatal(err)
	}
	s := out.Column(0).(*array.String)
	if s.Value(2) != "x" || !s.IsNull(1) {
		t.Errorf("decoded %v", s)
	}
	// Already in the table's schema: passed through.
	same, err := NewConformer(out.Schema(), table, mem)
	if err != nil {
		t.Fatal(err)
	}
	again, err := same.Conform(out)
	if err != nil {
		t.Fatal(err)
	}
	if again != out {
		t.Error("a batch already in the table's schema is not passed through")
	}
	again.Release()
	out.Release()
}

func TestConformNullTypeAndUUIDExtension(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "u", Type: iceberg.UUIDType{}},
		iceberg.NestedField{ID: 2, Name: "n", Type: iceberg.StringType{}},
	)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ub := extensions.NewUUIDBuilder(mem)
	want, err := iceberg.ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	if err != nil {
		t.Fatal(err)
	}
	ub.AppendBytes(want)
	ub.AppendNull()
	u := ub.NewArray()
	ub.Release()
	n := array.MakeArrayOfNull(mem, arrow.Null, 2)
	src := arrow.NewSchema([]arrow.Field{
		{Name: "u", Type: extensions.NewUUIDType(), Nullable: true},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}, nil)
	in := array.NewRecordBatch(src, []arrow.Array{u, n}, 2)
	u.Release()
	n.Release()
	defer in.Release()
	c, err := NewConformer(src, table, mem)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Conform(in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := out.Column(0).(*array.FixedSizeBinary)
	if string(got.Value(0)) != string(want[:]) || !got.IsNull(1) {
		t.Errorf("uuid %x", got.Value(0))
	}
	if s := out.Column(1); s.DataType().ID() != arrow.STRING || s.NullN() != 2 {
		t.Errorf("null column became %v with %d nulls", s.DataType(), s.NullN())
	}
}

func TestConformLargeListAndSlicedList(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "l", Type: &iceberg.ListType{ElementID: 2, Element: iceberg.LongType{}, ElementRequired: true}})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, dt := range []arrow.DataType{arrow.LargeListOf(arrow.PrimitiveTypes.Int32), arrow.ListOf(arrow.PrimitiveTypes.Int32)} {
		src := arrow.NewSchema([]arrow.Field{{Name: "l", Type: dt, Nullable: true}}, nil)
		in := fromJSON(t, mem, src, `[{"l": [1, 2]}, {"l": null}, {"l": [3]}, {"l": [4, 5, 6]}]`)
		sl := in.NewSlice(2, 4)
		in.Release()
		c, err := NewConformer(src, table, mem)
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		out, err := c.Conform(sl)
		sl.Release()
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		l := out.Column(0).(*array.List)
		if got := l.String(); got != "[[3] [4 5 6]]" {
			t.Errorf("%v: %s, want [[3] [4 5 6]]", dt, got)
		}
		out.Release()
	}
}

func TestConformRewritesNestedFieldIDs(t *testing.T) {
	t.Parallel()
	table := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 2, Name: "x", Type: iceberg.IntType{}},
	}}})
	want, _ := iceberg.ArrowSchema(table)
	// The same shape with another nested field id, as a client that
	// read an older schema might send.
	src := arrow.NewSchema([]arrow.Field{{Name: "st", Nullable: true, Metadata: want.Field(0).Metadata,
		Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: arrow.NewMetadata([]string{iceberg.ArrowFieldIDKey}, []string{"9"})})}}, nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := fromJSON(t, mem, src, `[{"st": {"x": 1}}]`)
	defer in.Release()
	c, err := NewConformer(src, table, mem)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Conform(in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	id, _ := out.Column(0).DataType().(*arrow.StructType).Field(0).Metadata.GetValue(iceberg.ArrowFieldIDKey)
	if id != "2" {
		t.Errorf("nested field id %q, want the table's 2", id)
	}
}
