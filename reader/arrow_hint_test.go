package reader

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// arrowSchemaKey is the key-value metadata key under which Arrow writers
// store their schema (the hint reader/parquet drops).
const arrowSchemaKey = "ARROW:schema"

// spellingCase is one physical Arrow spelling of Iceberg types: a file
// written from Arrow data of schema written, whose stored ARROW:schema is
// hint (or raw, or written itself when neither is set), read with the
// Iceberg schema.
type spellingCase struct {
	name    string
	written *arrow.Schema
	rows    string // JSON rows of written
	build   func(mem memory.Allocator) arrow.RecordBatch
	hint    *arrow.Schema // stored as ARROW:schema in place of written
	raw     string        // a raw ARROW:schema value, when set
	schema  string        // Iceberg fields
	want    string
}

func spellingCases() []spellingCase {
	one := func(name string, typ arrow.DataType) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: name, Type: typ, Nullable: true, Metadata: fid(1)}}, nil)
	}
	// view types: pqarrow writes no view arrays, so the file holds plain
	// ones under the hint pyarrow and Polars store for them.
	views := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.StringView, Nullable: true, Metadata: fid(1)},
		{Name: "b", Type: arrow.BinaryTypes.BinaryView, Nullable: true, Metadata: fid(2)},
		{Name: "l", Type: arrow.ListViewOf(arrow.BinaryTypes.StringView), Nullable: true, Metadata: fid(3)},
		{Name: "ll", Type: arrow.LargeListViewOf(arrow.PrimitiveTypes.Int64), Nullable: true, Metadata: fid(5)},
	}, nil)
	plainViews := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(1)},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: fid(2)},
		{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(4)}), Nullable: true, Metadata: fid(3)},
		{Name: "ll", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: fid(6)}), Nullable: true, Metadata: fid(5)},
	}, nil)
	viewRows := `[{"s":"a","b":"AQI=","l":["x",null],"ll":[1,2]},{"s":null,"b":null,"l":null,"ll":[]}]`
	viewSchema := `[{"id":1,"name":"s","required":false,"type":"string"},{"id":2,"name":"b","required":false,"type":"binary"},
		{"id":3,"name":"l","required":false,"type":{"type":"list","element-id":4,"element-required":false,"element":"string"}},
		{"id":5,"name":"ll","required":false,"type":{"type":"list","element-id":6,"element-required":false,"element":"long"}}]`
	viewWant := `[{"s":"a","b":"AQI=","l":["x",null],"ll":[1,2]},{"s":null,"b":null,"l":null,"ll":[]}]`

	// a map whose value is a struct holding a large_list<large_utf8>.
	deep := arrow.NewSchema([]arrow.Field{{Name: "m", Nullable: true, Metadata: fid(1), Type: arrow.MapOfFields(
		arrow.Field{Name: "key", Type: arrow.BinaryTypes.LargeString, Metadata: fid(2)},
		arrow.Field{Name: "value", Nullable: true, Metadata: fid(3), Type: arrow.StructOf(
			arrow.Field{Name: "tags", Nullable: true, Metadata: fid(4), Type: arrow.LargeListOfField(
				arrow.Field{Name: "element", Type: arrow.BinaryTypes.LargeString, Nullable: true, Metadata: fid(5)})},
		)},
	)}}, nil)

	return []spellingCase{
		{
			name:    "large_utf8 is read as string",
			written: one("s", arrow.BinaryTypes.LargeString),
			rows:    `[{"s":"a"},{"s":null},{"s":"日本"}]`,
			schema:  `[{"id":1,"name":"s","required":false,"type":"string"}]`,
			want:    `[{"s":"a"},{"s":null},{"s":"日本"}]`,
		},
		{
			name:    "large_binary is read as binary",
			written: one("b", arrow.BinaryTypes.LargeBinary),
			rows:    `[{"b":"AAE="},{"b":null}]`,
			schema:  `[{"id":1,"name":"b","required":false,"type":"binary"}]`,
			want:    `[{"b":"AAE="},{"b":null}]`,
		},
		{
			name: "large_list of large_utf8 is read as list of string",
			written: arrow.NewSchema([]arrow.Field{{Name: "l", Nullable: true, Metadata: fid(1), Type: arrow.LargeListOfField(
				arrow.Field{Name: "element", Type: arrow.BinaryTypes.LargeString, Nullable: true, Metadata: fid(2)})}}, nil),
			rows:   `[{"l":["a",null,"b"]},{"l":null},{"l":[]}]`,
			schema: `[{"id":1,"name":"l","required":false,"type":{"type":"list","element-id":2,"element-required":false,"element":"string"}}]`,
			want:   `[{"l":["a",null,"b"]},{"l":null},{"l":[]}]`,
		},
		{
			name: "fixed_size_list is read as list",
			written: arrow.NewSchema([]arrow.Field{{Name: "l", Nullable: true, Metadata: fid(1), Type: arrow.FixedSizeListOfField(2,
				arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(2)})}}, nil),
			rows:   `[{"l":[1,2]},{"l":[3,null]}]`,
			schema: `[{"id":1,"name":"l","required":false,"type":{"type":"list","element-id":2,"element-required":false,"element":"int"}}]`,
			want:   `[{"l":[1,2]},{"l":[3,null]}]`,
		},
		{
			name:    "large_list<large_utf8> in a struct in a map value is read as list<string>",
			written: deep,
			rows:    `[{"m":[{"key":"k","value":{"tags":["x",null]}},{"key":"j","value":null}]},{"m":null}]`,
			schema: `[{"id":1,"name":"m","required":false,"type":{"type":"map","key-id":2,"key":"string","value-id":3,"value-required":false,"value":
				{"type":"struct","fields":[{"id":4,"name":"tags","required":false,"type":{"type":"list","element-id":5,"element-required":false,"element":"string"}}]}}}]`,
			want: `[{"m":[{"key":"k","value":{"tags":["x",null]}},{"key":"j","value":null}]},{"m":null}]`,
		},
		{
			name:    "dictionary<int8, utf8> (a pandas categorical) is read as string",
			written: one("c", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}),
			hint:    one("c", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}),
			build:   dictBatch(arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String, `["red","blue"]`, `[1,0,null,1]`),
			schema:  `[{"id":1,"name":"c","required":false,"type":"string"}]`,
			want:    `[{"c":"blue"},{"c":"red"},{"c":null},{"c":"blue"}]`,
		},
		{
			name:    "dictionary<uint16, large_utf8> is read as string",
			written: one("c", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint16, ValueType: arrow.BinaryTypes.LargeString}),
			hint:    one("c", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint16, ValueType: arrow.BinaryTypes.LargeString}),
			build:   dictBatch(arrow.PrimitiveTypes.Uint16, arrow.BinaryTypes.LargeString, `["x","y","z"]`, `[2,2,0]`),
			schema:  `[{"id":1,"name":"c","required":false,"type":"string"}]`,
			want:    `[{"c":"z"},{"c":"z"},{"c":"x"}]`,
		},
		{
			name:    "dictionary<int64, int64> is read as long",
			written: one("n", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int64, ValueType: arrow.PrimitiveTypes.Int64}),
			hint:    one("n", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int64, ValueType: arrow.PrimitiveTypes.Int64}),
			build:   dictBatch(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, `[7,-9]`, `[0,1,null]`),
			schema:  `[{"id":1,"name":"n","required":false,"type":"long"}]`,
			want:    `[{"n":7},{"n":-9},{"n":null}]`,
		},
		{
			name:    "utf8_view, binary_view, list_view and large_list_view are read as string, binary and list",
			written: plainViews,
			hint:    views,
			rows:    viewRows,
			schema:  viewSchema,
			want:    viewWant,
		},
		{
			name:    "an ARROW:schema that does not decode is ignored",
			written: plainViews,
			raw:     "not an arrow schema",
			rows:    viewRows,
			schema:  viewSchema,
			want:    viewWant,
		},
		{
			name:    "an ARROW:schema that contradicts the Parquet schema is ignored",
			written: plainViews,
			hint: arrow.NewSchema([]arrow.Field{
				{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int8}), Nullable: true},
				{Name: "b", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
				{Name: "l", Type: arrow.BinaryTypes.String, Nullable: true},
				{Name: "ll", Type: arrow.FixedWidthTypes.Duration_s, Nullable: true},
			}, nil),
			rows:   viewRows,
			schema: viewSchema,
			want:   viewWant,
		},
		{
			name: "timestamps in seconds, millis and nanos are read as micros",
			written: arrow.NewSchema([]arrow.Field{
				{Name: "s", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"}, Nullable: true, Metadata: fid(1)},
				{Name: "ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true, Metadata: fid(2)},
				{Name: "ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true, Metadata: fid(3)},
			}, nil),
			rows: `[{"s":2,"ms":-1,"ns":1999},{"s":null,"ms":null,"ns":null}]`,
			schema: `[{"id":1,"name":"s","required":false,"type":"timestamptz"},{"id":2,"name":"ms","required":false,"type":"timestamp"},
				{"id":3,"name":"ns","required":false,"type":"timestamptz"}]`,
			want: `[{"s":"1970-01-01T00:00:02Z","ms":"1969-12-31T23:59:59.999","ns":"1970-01-01T00:00:00.000001Z"},{"s":null,"ms":null,"ns":null}]`,
		},
		{
			name:    "date64 is read as date",
			written: one("d", arrow.FixedWidthTypes.Date64),
			rows:    `[{"d":"2024-02-29"},{"d":null}]`,
			schema:  `[{"id":1,"name":"d","required":false,"type":"date"}]`,
			want:    `[{"d":"2024-02-29"},{"d":null}]`,
		},
		{
			name: "unsigned 8, 16 and 32-bit integers are read as int and long",
			written: arrow.NewSchema([]arrow.Field{
				{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true, Metadata: fid(1)},
				{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true, Metadata: fid(2)},
				{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true, Metadata: fid(3)},
			}, nil),
			rows: `[{"u8":255,"u16":65535,"u32":4294967295},{"u8":null,"u16":null,"u32":null}]`,
			schema: `[{"id":1,"name":"u8","required":false,"type":"int"},{"id":2,"name":"u16","required":false,"type":"int"},
				{"id":3,"name":"u32","required":false,"type":"long"}]`,
			want: `[{"u8":255,"u16":65535,"u32":4294967295},{"u8":null,"u16":null,"u32":null}]`,
		},
		{
			name: "decimals stored as INT32 and INT64 are read at their precision and a wider one",
			written: arrow.NewSchema([]arrow.Field{
				{Name: "d9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true, Metadata: fid(1)},
				{Name: "d18", Type: &arrow.Decimal128Type{Precision: 18, Scale: 3}, Nullable: true, Metadata: fid(2)},
			}, nil),
			rows:   `[{"d9":"-1234567.89","d18":"123456789012345.678"},{"d9":null,"d18":null}]`,
			schema: `[{"id":1,"name":"d9","required":false,"type":"decimal(9, 2)"},{"id":2,"name":"d18","required":false,"type":"decimal(38, 3)"}]`,
			want:   `[{"d9":"-1234567.89","d18":"123456789012345.678"},{"d9":null,"d18":null}]`,
		},
	}
}

// dictBatch builds a one-column batch of a dictionary array.
func dictBatch(index, value arrow.DataType, dictJSON, indicesJSON string) func(memory.Allocator) arrow.RecordBatch {
	return func(mem memory.Allocator) arrow.RecordBatch {
		dict, _, err := array.FromJSON(mem, value, strings.NewReader(dictJSON))
		if err != nil {
			panic(err)
		}
		defer dict.Release()
		idx, _, err := array.FromJSON(mem, index, strings.NewReader(indicesJSON))
		if err != nil {
			panic(err)
		}
		defer idx.Release()
		arr := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: index, ValueType: value}, idx, dict)
		defer arr.Release()
		sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arr.DataType(), Nullable: true, Metadata: fid(1)}}, nil)
		return array.NewRecordBatch(sc, []arrow.Array{arr}, int64(arr.Len()))
	}
}

// writeSpelling writes a case's file as an Arrow writer does: with its
// schema stored as ARROW:schema, or with the case's hint in its place
// (pqarrow stores the record's schema metadata as key-value metadata).
func writeSpelling(t *testing.T, tc spellingCase) []byte {
	t.Helper()
	mem := memory.DefaultAllocator
	var rec arrow.RecordBatch
	if tc.build != nil {
		built := tc.build(mem)
		defer built.Release()
		rec = array.NewRecordBatch(tc.written, built.Columns(), built.NumRows())
	} else {
		var err error
		if rec, _, err = array.RecordFromJSON(mem, tc.written, strings.NewReader(tc.rows)); err != nil {
			t.Fatalf("build record: %v", err)
		}
	}
	defer rec.Release()
	hint := tc.raw
	if tc.hint != nil {
		hint = base64.StdEncoding.EncodeToString(flight.SerializeSchema(tc.hint, mem))
	}
	if hint == "" {
		return writeRecord(t, rec, 100, pqarrow.WithStoreSchema())
	}
	md := arrow.NewMetadata([]string{arrowSchemaKey}, []string{hint})
	hinted := array.NewRecordBatch(arrow.NewSchema(tc.written.Fields(), &md), rec.Columns(), rec.NumRows())
	defer hinted.Release()
	return writeRecord(t, hinted, 100)
}

func TestStoredArrowSchemaIsAHint(t *testing.T) {
	t.Parallel()
	for _, tc := range spellingCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := writeSpelling(t, tc)
			mem := checkedAlloc(t)
			r := New(memIO{"f.parquet": data}, WithAllocator(mem), WithBatchSize(2))
			// readAll fails a batch whose types are not exactly the
			// Iceberg schema's Arrow types.
			res := readAll(t, r, Scan{Schema: schemaOf(t, tc.schema)}, parquetTask("f.parquet"))
			if res.err != nil {
				t.Fatal(res.err)
			}
			if want := jsonRows(t, tc.want); !reflect.DeepEqual(res.rows, want) {
				t.Errorf("rows\n%v\nwant\n%v", res.rows, want)
			}
		})
	}
}
