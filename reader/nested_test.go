package reader

import (
	"errors"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg"
)

// nestedFile has a struct, a list of structs, a map to structs and a list
// of ints, each with field ids at every level.
func nestedFile(t *testing.T, withIDs bool) []byte {
	md := func(id int) arrow.Metadata {
		if !withIDs {
			return arrow.Metadata{}
		}
		return fid(id)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Metadata: md(1)},
		{Name: "s", Nullable: true, Metadata: md(2), Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: md(3)},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md(4)},
			arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: md(5)},
		)},
		{Name: "l", Nullable: true, Metadata: md(6), Type: arrow.ListOfField(arrow.Field{Name: "element", Nullable: true, Metadata: md(7), Type: arrow.StructOf(
			arrow.Field{Name: "p", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: md(8)},
			arrow.Field{Name: "q", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md(9)},
		)})},
		{Name: "m", Nullable: true, Metadata: md(10), Type: arrow.MapOfFields(
			arrow.Field{Name: "key", Type: arrow.BinaryTypes.String, Metadata: md(11)},
			arrow.Field{Name: "value", Nullable: true, Metadata: md(12), Type: arrow.StructOf(
				arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: md(13)},
				arrow.Field{Name: "w", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md(14)},
			)},
		)},
		{Name: "li", Nullable: true, Metadata: md(15), Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: md(16)})},
	}, nil)
	return writeParquet(t, sc, `[
		{"id":1,"s":{"x":10,"y":"a","z":1.5},"l":[{"p":1,"q":"one"},{"p":2,"q":null}],"m":[{"key":"k1","value":{"v":100,"w":"w1"}}],"li":[1,2,3]},
		{"id":2,"s":null,"l":null,"m":null,"li":[]},
		{"id":3,"s":{"x":null,"y":"c","z":null},"l":[null,{"p":3,"q":"three"}],"m":[{"key":"k2","value":null},{"key":"k3","value":{"v":300,"w":null}}],"li":null}
	]`, 2)
}

func TestReadNested(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{
			name: "struct fields by id: reordered, renamed, promoted, dropped and missing",
			schema: `[{"id":2,"name":"s","required":false,"type":{"type":"struct","fields":[
				{"id":5,"name":"zz","required":false,"type":"double"},
				{"id":3,"name":"x","required":false,"type":"long"},
				{"id":17,"name":"new","required":false,"type":"int","initial-default":7}]}}]`,
			want: `[{"s":{"zz":1.5,"x":10,"new":7}},{"s":null},{"s":{"zz":null,"x":null,"new":7}}]`,
		},
		{
			name: "a struct with none of its projected fields in the file keeps its nulls",
			schema: `[{"id":1,"name":"id","required":true,"type":"int"},{"id":2,"name":"s","required":false,"type":{"type":"struct","fields":[
				{"id":19,"name":"n","required":false,"type":"int"}]}}]`,
			want: `[{"id":1,"s":{"n":null}},{"id":2,"s":null},{"id":3,"s":{"n":null}}]`,
		},
		{
			name: "list of structs projects element fields by id",
			schema: `[{"id":6,"name":"l","required":false,"type":{"type":"list","element-id":7,"element-required":false,"element":{"type":"struct","fields":[
				{"id":9,"name":"q","required":false,"type":"string"},
				{"id":18,"name":"r","required":false,"type":"int"}]}}}]`,
			want: `[{"l":[{"q":"one","r":null},{"q":null,"r":null}]},{"l":null},{"l":[null,{"q":"three","r":null}]}]`,
		},
		{
			name: "map values project struct fields by id",
			schema: `[{"id":10,"name":"m","required":false,"type":{"type":"map","key-id":11,"key":"string","value-id":12,"value-required":false,"value":{"type":"struct","fields":[
				{"id":14,"name":"w","required":false,"type":"string"}]}}}]`,
			want: `[{"m":[{"key":"k1","value":{"w":"w1"}}]},{"m":null},{"m":[{"key":"k2","value":null},{"key":"k3","value":{"w":null}}]}]`,
		},
		{
			name:   "list elements promote int to long",
			schema: `[{"id":15,"name":"li","required":false,"type":{"type":"list","element-id":16,"element-required":false,"element":"long"}},{"id":1,"name":"id","required":true,"type":"int"}]`,
			want:   `[{"li":[1,2,3],"id":1},{"li":[],"id":2},{"li":null,"id":3}]`,
		},
	}
	for _, withIDs := range []bool{true, false} {
		data := nestedFile(t, withIDs)
		// The same projections through a name mapping, for a file without ids.
		var mapping iceberg.NameMapping
		if !withIDs {
			mapping = mustMapping(t, `[{"field-id":1,"names":["id"]},
				{"field-id":2,"names":["s"],"fields":[{"field-id":3,"names":["x"]},{"field-id":4,"names":["y"]},{"field-id":5,"names":["z"]}]},
				{"field-id":6,"names":["l"],"fields":[{"field-id":7,"names":["element"],"fields":[{"field-id":8,"names":["p"]},{"field-id":9,"names":["q"]}]}]},
				{"field-id":10,"names":["m"],"fields":[{"field-id":11,"names":["key"]},{"field-id":12,"names":["value"],"fields":[{"field-id":13,"names":["v"]},{"field-id":14,"names":["w"]}]}]},
				{"field-id":15,"names":["li"],"fields":[{"field-id":16,"names":["element"]}]}]`)
		}
		for _, tc := range tests {
			name := tc.name
			if !withIDs {
				name = "name mapping: " + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				mem := checkedAlloc(t)
				r := New(memIO{"nested.parquet": data}, WithAllocator(mem), WithBatchSize(2))
				res := readAll(t, r, Scan{Schema: schemaOf(t, tc.schema), NameMapping: mapping}, parquetTask("nested.parquet"))
				if res.err != nil {
					t.Fatal(res.err)
				}
				if want := jsonRows(t, tc.want); !reflect.DeepEqual(res.rows, want) {
					t.Errorf("rows\n%v\nwant\n%v", res.rows, want)
				}
			})
		}
	}
}

func mustMapping(t *testing.T, s string) iceberg.NameMapping {
	t.Helper()
	m, err := iceberg.ParseNameMapping([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestReadWithoutFieldIDs(t *testing.T) {
	t.Parallel()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "first", Type: arrow.PrimitiveTypes.Int32},
		{Name: "second", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	data := writeParquet(t, sc, `[{"first":1,"second":"a"},{"first":2,"second":"b"}]`, 10)
	tests := []struct {
		name    string
		schema  string
		mapping string
		want    string
		wantErr error
	}{
		{
			name:    "name mapping assigns ids; renamed columns keep their old name in the mapping",
			schema:  `[{"id":8,"name":"renamed","required":false,"type":"string"},{"id":7,"name":"first","required":true,"type":"long"}]`,
			mapping: `[{"field-id":7,"names":["first"]},{"field-id":8,"names":["second","renamed"]}]`,
			want:    `[{"renamed":"a","first":1},{"renamed":"b","first":2}]`,
		},
		{
			name:    "columns the mapping does not name are missing",
			schema:  `[{"id":7,"name":"first","required":true,"type":"int"},{"id":8,"name":"second","required":false,"type":"string"}]`,
			mapping: `[{"field-id":7,"names":["first"]}]`,
			want:    `[{"first":1,"second":null},{"first":2,"second":null}]`,
		},
		{
			name:    "a mapping that contradicts the schema gives way to the schema's names",
			schema:  `[{"id":1,"name":"first","required":true,"type":"int"},{"id":2,"name":"second","required":false,"type":"string"}]`,
			mapping: `[{"field-id":1,"names":["second"]},{"field-id":2,"names":["first"],"fields":[{"field-id":3,"names":["x"]}]}]`,
			want:    `[{"first":1,"second":"a"},{"first":2,"second":"b"}]`,
		},
		{
			name:   "without ids or mapping, top-level columns get ids by position as in Iceberg Java",
			schema: `[{"id":2,"name":"b","required":false,"type":"string"},{"id":1,"name":"a","required":true,"type":"int"},{"id":3,"name":"c","required":false,"type":"int"}]`,
			want:   `[{"b":"a","a":1,"c":null},{"b":"b","a":2,"c":null}]`,
		},
		{
			name:    "without ids or mapping, a positional type mismatch is an error",
			schema:  `[{"id":2,"name":"b","required":false,"type":"int"}]`,
			wantErr: ErrSchemaMismatch,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			var mapping iceberg.NameMapping
			if tc.mapping != "" {
				mapping = mustMapping(t, tc.mapping)
			}
			r := New(memIO{"noids.parquet": data}, WithAllocator(mem))
			res := readAll(t, r, Scan{Schema: schemaOf(t, tc.schema), NameMapping: mapping}, parquetTask("noids.parquet"))
			if tc.wantErr != nil {
				if !errors.Is(res.err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", res.err, tc.wantErr)
				}
				return
			}
			if res.err != nil {
				t.Fatal(res.err)
			}
			if want := jsonRows(t, tc.want); !reflect.DeepEqual(res.rows, want) {
				t.Errorf("rows\n%v\nwant\n%v", res.rows, want)
			}
		})
	}
}
