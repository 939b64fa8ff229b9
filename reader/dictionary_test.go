package reader

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// TestDictionaryPassThrough reads string columns asked for as dictionaries
// from every kind of source a column can have, and checks that each batch
// has the announced dictionary type and the values that were written.
func TestDictionaryPassThrough(t *testing.T) {
	t.Parallel()
	const n = 10_000
	encoded, want := stringFile(t, n, 30)
	plain, _ := stringFile(t, n, 30, parquet.WithDictionaryDefault(false))
	fallback, wantMany := stringFile(t, n, 5_000, parquet.WithDictionaryPageSizeLimit(1<<10))
	sField := `{"id":1,"name":"s","required":false,"type":"string"}`
	missing := `{"id":2,"name":"gone","required":false,"type":"string"}`
	filed := metadataField(t, "_file")
	tests := []struct {
		name     string
		data     []byte
		fields   string
		extra    []iceberg.NestedField
		dict     []int
		residual string
		want     []any // values of s, row by row
		check    func(t *testing.T, row map[string]any, i int)
	}{
		{name: "dictionary-encoded pages pass through", data: encoded, fields: sField, dict: []int{1}, want: want},
		{name: "plain pages are encoded", data: plain, fields: sField, dict: []int{1}, want: want},
		{name: "a chunk that fell back to plain pages", data: fallback, fields: sField, dict: []int{1}, want: wantMany},
		{name: "a residual on the dictionary column", data: encoded, fields: sField, dict: []int{1},
			residual: `{"type":"in","term":"s","values":["value 3 ---","value 4 ----"]}`,
			want:     filterValues(want, func(v any) bool { return v == "value 3 ---" || v == "value 4 ----" })},
		{name: "a negative residual keeps nulls", data: encoded, fields: sField, dict: []int{1},
			residual: `{"type":"not-starts-with","term":"s","value":"value 1"}`,
			want:     filterValues(want, func(v any) bool { return v == nil || !strings.HasPrefix(v.(string), "value 1") })},
		{name: "is-null on the dictionary column", data: encoded, fields: sField, dict: []int{1},
			residual: `{"type":"is-null","term":"s"}`, want: filterValues(want, func(v any) bool { return v == nil })},
		{name: "a column absent from the file and a metadata column", data: encoded, fields: "[" + sField + "," + missing + "]",
			extra: []iceberg.NestedField{filed}, dict: []int{1, 2, filed.ID}, want: want,
			check: func(t *testing.T, row map[string]any, i int) {
				if row["gone"] != nil || row["_file"] != "s.parquet" {
					t.Fatalf("row %d: gone = %v, _file = %v", i, row["gone"], row["_file"])
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fields := tc.fields
			if !strings.HasPrefix(fields, "[") {
				fields = "[" + fields + "]"
			}
			schema := schemaOf(t, fields)
			schema = iceberg.NewSchema(schema.ID, append(schema.Fields, tc.extra...)...)
			mem := checkedAlloc(t)
			r := New(memIO{"s.parquet": tc.data}, WithAllocator(mem), WithBatchSize(999), WithValidation(true))
			scan := Scan{Schema: schema, Dictionary: tc.dict}
			task := &scantask.Task{Path: "s.parquet", Format: scantask.Parquet, Residual: residualOf(t, tc.residual)}
			err := r.Read(context.Background(), scan, task, func(rec arrow.RecordBatch) error {
				for i, id := range tc.dict {
					col := rec.Column(schemaIndex(schema, id))
					if _, ok := col.(*array.Dictionary); !ok {
						return fmt.Errorf("column %d of field %d is %s, not a dictionary", i, id, col.DataType())
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			res := readAll(t, r, scan, task)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if len(res.rows) != len(tc.want) {
				t.Fatalf("rows = %d, want %d", len(res.rows), len(tc.want))
			}
			for i, row := range res.rows {
				if row["s"] != tc.want[i] {
					t.Fatalf("row %d = %v, want %v", i, row["s"], tc.want[i])
				}
				if tc.check != nil {
					tc.check(t, row, i)
				}
			}
		})
	}
}

func schemaIndex(s *iceberg.Schema, id int) int {
	for i, f := range s.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

func filterValues(vals []any, keep func(any) bool) []any {
	var out []any
	for _, v := range vals {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// TestDictionaryRefusesOtherTypes: only top-level string and binary fields
// can be dictionaries, and only fields of the schema.
func TestDictionaryRefusesOtherTypes(t *testing.T) {
	t.Parallel()
	schema := schemaOf(t, `[{"id":1,"name":"s","required":false,"type":"string"},{"id":2,"name":"n","required":true,"type":"long"}]`)
	for _, ids := range [][]int{{2}, {7}} {
		if _, err := OutputSchema(Scan{Schema: schema, Dictionary: ids}); err == nil {
			t.Errorf("OutputSchema with dictionary %v: no error", ids)
		}
	}
	out, err := OutputSchema(Scan{Schema: schema, Dictionary: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	dt, ok := out.Field(0).Type.(*arrow.DictionaryType)
	if !ok || !arrow.TypeEqual(dt.ValueType, arrow.BinaryTypes.String) || !arrow.TypeEqual(dt.IndexType, arrow.PrimitiveTypes.Int32) {
		t.Fatalf("field type %s, want dictionary<int32, utf8>", out.Field(0).Type)
	}
	if out.Field(0).Metadata.Len() == 0 {
		t.Fatal("field id metadata lost")
	}
}

// TestEqualityKeysOfDictionaries: an equality delete keyed on a column read
// as a dictionary matches by value, as on the dense column.
func TestEqualityKeysOfDictionaries(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	d := dictArray(t, mem, []string{"a", "bb", "ccc"}, keysOf(2, -1, 0, 1, 2), 1)
	defer d.Release()
	dense, err := unpackDictionary(mem, d)
	if err != nil {
		t.Fatal(err)
	}
	defer dense.Release()
	keys := func(col arrow.Array) []string {
		sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: col.DataType(), Nullable: true}}, nil)
		rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len()))
		defer rec.Release()
		enc, err := newKeyEncoder(rec, []keyPath{{0}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := range col.Len() {
			out = append(out, string(enc.appendKey(nil, i)))
		}
		return out
	}
	got, want := keys(d), keys(dense)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dictionary keys %q, dense keys %q", got, want)
	}
}

// TestCheckIndices: an index outside the dictionary is refused, a null
// one is not looked at.
func TestCheckIndices(t *testing.T) {
	t.Parallel()
	mem := checkedAlloc(t)
	for _, tc := range []struct {
		keys []*int32
		ok   bool
	}{
		{keysOf(0, 2, -1, 1), true},
		{keysOf(0, 3), false},
	} {
		d := dictArray(t, mem, []string{"a", "b", "c"}, tc.keys, 0)
		if err := checkIndices(d); (err == nil) != tc.ok {
			t.Errorf("keys %v: %v", tc.keys, err)
		}
		d.Release()
	}
}
