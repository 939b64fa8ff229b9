package datafile

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// testSchema covers a primitive of each common kind, a struct, a list and
// a map.
var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.StringType{}},
	iceberg.NestedField{ID: 3, Name: "score", Type: iceberg.DoubleType{}},
	iceberg.NestedField{ID: 4, Name: "loc", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 5, Name: "lat", Type: iceberg.FloatType{}, Required: true},
		{ID: 6, Name: "lon", Type: iceberg.FloatType{}},
	}}},
	iceberg.NestedField{ID: 7, Name: "tags", Type: &iceberg.ListType{ElementID: 8, Element: iceberg.StringType{}}},
	iceberg.NestedField{ID: 9, Name: "props", Type: &iceberg.MapType{KeyID: 10, Key: iceberg.StringType{}, ValueID: 11, Value: iceberg.IntType{}}},
	iceberg.NestedField{ID: 12, Name: "day", Type: iceberg.DateType{}},
)

// row is one row of testSchema as plain Go values; nil pointers are nulls.
type row struct {
	id    int64
	name  *string
	score *float64
	lat   float32
	lon   *float32
	loc   bool // loc is non-null
	tags  []string
	props map[string]int32
	day   *int32
}

func ptr[T any](v T) *T { return &v }

func testRows(n int) []row {
	rows := make([]row, n)
	for i := range rows {
		r := row{id: int64(i*7 - 20), lat: float32(i) / 2, loc: i%5 != 0, day: ptr(int32(19000 + i%3))}
		if i%4 != 0 {
			r.name = ptr(fmt.Sprintf("name-%03d-%s", i, strings.Repeat("x", i%20)))
		}
		switch i % 6 {
		case 0:
			r.score = ptr(math.NaN())
		case 1:
		default:
			r.score = ptr(float64(i) * 1.5)
		}
		if i%3 == 0 {
			r.lon = ptr(float32(-i))
		}
		if i%2 == 0 {
			r.tags = []string{"a", strconv.Itoa(i)}
		}
		r.props = map[string]int32{"k": int32(i)}
		rows[i] = r
	}
	return rows
}

// buildBatch builds rows in the table's Arrow schema.
func buildBatch(t *testing.T, mem memory.Allocator, rows []row) arrow.RecordBatch {
	t.Helper()
	as, err := iceberg.ArrowSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		if r.name != nil {
			b.Field(1).(*array.StringBuilder).Append(*r.name)
		} else {
			b.Field(1).AppendNull()
		}
		if r.score != nil {
			b.Field(2).(*array.Float64Builder).Append(*r.score)
		} else {
			b.Field(2).AppendNull()
		}
		sb := b.Field(3).(*array.StructBuilder)
		if r.loc {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Float32Builder).Append(r.lat)
			if r.lon != nil {
				sb.FieldBuilder(1).(*array.Float32Builder).Append(*r.lon)
			} else {
				sb.FieldBuilder(1).AppendNull()
			}
		} else {
			sb.AppendNull()
		}
		lb := b.Field(4).(*array.ListBuilder)
		if r.tags != nil {
			lb.Append(true)
			for _, s := range r.tags {
				lb.ValueBuilder().(*array.StringBuilder).Append(s)
			}
		} else {
			lb.AppendNull()
		}
		mb := b.Field(5).(*array.MapBuilder)
		mb.Append(true)
		for k, v := range r.props {
			mb.KeyBuilder().(*array.StringBuilder).Append(k)
			mb.ItemBuilder().(*array.Int32Builder).Append(v)
		}
		if r.day != nil {
			b.Field(6).(*array.Date32Builder).Append(arrow.Date32(*r.day))
		} else {
			b.Field(6).AppendNull()
		}
	}
	return b.NewRecordBatch()
}

func readBack(t *testing.T, fio *fileio.Mem, loc string) ([]byte, arrow.Table) {
	t.Helper()
	data, err := fileio.ReadAll(context.Background(), fio, loc, 0)
	if err != nil {
		t.Fatal(err)
	}
	return data, testutil.ReadParquet(t, memory.DefaultAllocator, data)
}

func TestWriterRoundTrip(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fio := fileio.NewMem()
	ctx := context.Background()
	w, err := New(ctx, fio, testSchema, iceberg.PartitionSpec{}, func(p string) string { return "mem://t/data/" + p + "f.parquet" },
		Options{Allocator: mem, Properties: map[string]string{PropCompressionCodec: "snappy"}})
	if err != nil {
		t.Fatal(err)
	}
	rows := testRows(50)
	batch := buildBatch(t, mem, rows)
	if err := w.Write(ctx, batch); err != nil {
		t.Fatal(err)
	}
	batch.Release()
	files, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("files = %d, want 1", len(files))
	}
	df := files[0]
	data, tbl := readBack(t, fio, df.Path)
	defer tbl.Release()
	if df.FileSize != int64(len(data)) || df.RecordCount != 50 || tbl.NumRows() != 50 {
		t.Errorf("size %d (file %d), records %d (read %d)", df.FileSize, len(data), df.RecordCount, tbl.NumRows())
	}
	if df.Format != "PARQUET" || df.Content != iceberg.FileContentData {
		t.Errorf("format %q content %v", df.Format, df.Content)
	}
	// Field ids: every Parquet leaf carries its Iceberg id.
	pf, _ := file.NewParquetReader(bytes.NewReader(data))
	defer pf.Close()
	var ids []int
	for i := 0; i < pf.MetaData().Schema.NumColumns(); i++ {
		ids = append(ids, int(pf.MetaData().Schema.Column(i).SchemaNode().FieldID()))
	}
	if got, want := fmt.Sprint(ids), "[1 2 3 5 6 8 10 11 12]"; got != want {
		t.Errorf("leaf field ids %s, want %s", got, want)
	}
	// Values: read back equal to what was written.
	ids64 := tbl.Column(0).Data().Chunk(0).(*array.Int64)
	names := tbl.Column(1).Data().Chunk(0).(*array.String)
	for i, r := range rows {
		if ids64.Value(i) != r.id {
			t.Fatalf("row %d id %d, want %d", i, ids64.Value(i), r.id)
		}
		if (r.name == nil) != names.IsNull(i) || (r.name != nil && names.Value(i) != *r.name) {
			t.Fatalf("row %d name %v, want %v", i, names.ValueStr(i), r.name)
		}
	}
	checkMetrics(t, df, rows)
	if df.SplitOffsets[0] != 4 {
		t.Errorf("split offsets %v: the first row group starts after the magic at 4", df.SplitOffsets)
	}
}

// checkMetrics compares df's metrics with those computed from rows.
func checkMetrics(t *testing.T, df iceberg.DataFile, rows []row) {
	t.Helper()
	n := int64(len(rows))
	var nameNulls, scoreNulls, scoreNaN, lonNulls, latNulls int64
	var minName, maxName string
	minScore, maxScore := math.Inf(1), math.Inf(-1)
	var minLat, maxLat float32 = math.MaxFloat32, -math.MaxFloat32
	var minLon, maxLon float32 = math.MaxFloat32, -math.MaxFloat32
	minID, maxID := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range rows {
		minID, maxID = min(minID, r.id), max(maxID, r.id)
		if r.name == nil {
			nameNulls++
		} else {
			if minName == "" || *r.name < minName {
				minName = *r.name
			}
			maxName = max(maxName, *r.name)
		}
		switch {
		case r.score == nil:
			scoreNulls++
		case math.IsNaN(*r.score):
			scoreNaN++
		default:
			minScore, maxScore = min(minScore, *r.score), max(maxScore, *r.score)
		}
		if !r.loc {
			latNulls++
			lonNulls++
		} else {
			minLat, maxLat = min(minLat, r.lat), max(maxLat, r.lat)
			if r.lon == nil {
				lonNulls++
			} else {
				minLon, maxLon = min(minLon, *r.lon), max(maxLon, *r.lon)
			}
		}
	}
	counts := []struct {
		name   string
		metric iceberg.ColumnCounts
		id     int
		want   int64
	}{
		{"id values", df.ValueCounts, 1, n},
		{"name values", df.ValueCounts, 2, n},
		{"name nulls", df.NullValueCounts, 2, nameNulls},
		{"score nulls", df.NullValueCounts, 3, scoreNulls},
		{"score NaNs", df.NaNValueCounts, 3, scoreNaN},
		{"lat nulls (under null structs)", df.NullValueCounts, 5, latNulls},
		{"lon nulls", df.NullValueCounts, 6, lonNulls},
		{"lat NaNs", df.NaNValueCounts, 5, 0},
	}
	for _, c := range counts {
		got, ok := c.metric.Get(c.id)
		if !ok || got != c.want {
			t.Errorf("%s: %d (present %v), want %d", c.name, got, ok, c.want)
		}
	}
	// Iceberg Java (ParquetMetrics) keeps only the sizes of columns inside
	// lists and maps.
	for _, id := range []int{8, 10, 11} {
		for name, m := range map[string]iceberg.ColumnCounts{"values": df.ValueCounts, "nulls": df.NullValueCounts, "NaNs": df.NaNValueCounts} {
			if v, ok := m.Get(id); ok {
				t.Errorf("repeated column %d has %s %d", id, name, v)
			}
		}
	}
	enc := func(typ iceberg.Type, v any) []byte {
		b, err := iceberg.EncodeValue(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	bounds := []struct {
		name     string
		id       int
		lo, hi   []byte
		noBounds bool
	}{
		{name: "id", id: 1, lo: enc(iceberg.LongType{}, minID), hi: enc(iceberg.LongType{}, maxID)},
		{name: "name truncated to 16", id: 2, lo: enc(iceberg.StringType{}, truncateRunes(minName, 16)), hi: enc(iceberg.StringType{}, incrementLast(truncateRunes(maxName, 16)))},
		{name: "score without NaN", id: 3, lo: enc(iceberg.DoubleType{}, minScore), hi: enc(iceberg.DoubleType{}, maxScore)},
		{name: "lat", id: 5, lo: enc(iceberg.FloatType{}, minLat), hi: enc(iceberg.FloatType{}, maxLat)},
		{name: "lon", id: 6, lo: enc(iceberg.FloatType{}, minLon), hi: enc(iceberg.FloatType{}, maxLon)},
		{name: "list element has no bounds", id: 8, noBounds: true},
		{name: "map value has no bounds", id: 11, noBounds: true},
	}
	for _, c := range bounds {
		lo, okLo := df.LowerBounds.Get(c.id)
		hi, okHi := df.UpperBounds.Get(c.id)
		if c.noBounds {
			if okLo || okHi {
				t.Errorf("%s: bounds %x %x", c.name, lo, hi)
			}
			continue
		}
		if !bytes.Equal(lo, c.lo) || !bytes.Equal(hi, c.hi) {
			t.Errorf("%s: bounds %x..%x, want %x..%x", c.name, lo, hi, c.lo, c.hi)
		}
	}
	for _, id := range []int{1, 2, 3, 5, 6, 8, 10, 11, 12} {
		if s, ok := df.ColumnSizes.Get(id); !ok || s <= 0 {
			t.Errorf("column size of %d: %d %v", id, s, ok)
		}
	}
}

// incrementLast increments a string's last character, the test's own
// form of truncateStringMax for ASCII.
func incrementLast(s string) string {
	b := []byte(s)
	b[len(b)-1]++
	return string(b)
}

// primitiveSchema has a column of every primitive type Parquet files hold.
var primitiveSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "bool", Type: iceberg.BooleanType{}},
	iceberg.NestedField{ID: 2, Name: "int", Type: iceberg.IntType{}},
	iceberg.NestedField{ID: 3, Name: "long", Type: iceberg.LongType{}},
	iceberg.NestedField{ID: 4, Name: "float", Type: iceberg.FloatType{}},
	iceberg.NestedField{ID: 5, Name: "double", Type: iceberg.DoubleType{}},
	iceberg.NestedField{ID: 6, Name: "dec", Type: iceberg.DecimalType{Precision: 38, Scale: 10}},
	iceberg.NestedField{ID: 7, Name: "date", Type: iceberg.DateType{}},
	iceberg.NestedField{ID: 8, Name: "time", Type: iceberg.TimeType{}},
	iceberg.NestedField{ID: 9, Name: "ts", Type: iceberg.TimestampType{}},
	iceberg.NestedField{ID: 10, Name: "tstz", Type: iceberg.TimestampTzType{}},
	iceberg.NestedField{ID: 11, Name: "tsns", Type: iceberg.TimestampNsType{}},
	iceberg.NestedField{ID: 12, Name: "tstzns", Type: iceberg.TimestampTzNsType{}},
	iceberg.NestedField{ID: 13, Name: "str", Type: iceberg.StringType{}},
	iceberg.NestedField{ID: 14, Name: "uuid", Type: iceberg.UUIDType{}},
	iceberg.NestedField{ID: 15, Name: "fixed", Type: iceberg.FixedType{Length: 3}},
	iceberg.NestedField{ID: 16, Name: "bin", Type: iceberg.BinaryType{}},
)

// primitiveRows are rows of primitiveSchema in Arrow's JSON.
const primitiveRows = `[
		{"bool": true, "int": -7, "long": 9007199254740993, "float": 1.25, "double": -2.5, "dec": "-12345678901234567890.0123456789",
		 "date": -1, "time": 86399999999, "ts": -1, "tstz": 1, "tsns": -1, "tstzns": 1700000000000000001,
		 "str": "héllo", "uuid": "AAECAwQFBgcICQoLDA0ODw==", "fixed": "AQID", "bin": ""},
		{"bool": null, "int": null, "long": null, "float": null, "double": null, "dec": null, "date": null, "time": null,
		 "ts": null, "tstz": null, "tsns": null, "tstzns": null, "str": null, "uuid": null, "fixed": null, "bin": null},
		{"bool": false, "int": 2147483647, "long": -1, "float": -0.0, "double": 1e300, "dec": "0.0000000001",
		 "date": 20000, "time": 0, "ts": 1, "tstz": -1, "tsns": 5, "tstzns": -5,
		 "str": "", "uuid": "/////////////////////w==", "fixed": "AAAA", "bin": "AP8="}
]`

func TestWriterEveryPrimitiveReadsBack(t *testing.T) {
	t.Parallel()
	schema, rows := primitiveSchema, primitiveRows
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as, _ := iceberg.ArrowSchema(schema)
	in := fromJSON(t, mem, as, rows)
	defer in.Release()
	df, fio := writeJSON(t, schema, nil, rows)
	_, tbl := readBack(t, fio, df.Path)
	defer tbl.Release()
	for i, f := range as.Fields() {
		got := tbl.Column(i).Data().Chunk(0)
		if !arrow.TypeEqual(got.DataType(), f.Type) {
			t.Errorf("%s: reads back as %v, wrote %v", f.Name, got.DataType(), f.Type)
			continue
		}
		if !array.Equal(got, in.Column(i)) {
			t.Errorf("%s: reads back %v, wrote %v", f.Name, got, in.Column(i))
		}
		id, _ := tbl.Schema().Field(i).Metadata.GetValue(iceberg.ArrowFieldIDKey)
		if id != strconv.Itoa(i+1) {
			t.Errorf("%s: field id %q", f.Name, id)
		}
	}
}

func TestWriterOmitsUnknownColumns(t *testing.T) {
	t.Parallel()
	// Spec (v3): an unknown column is always null and not stored in data files.
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 2, Name: "u", Type: iceberg.UnknownType{}},
		iceberg.NestedField{ID: 3, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 4, Name: "v", Type: iceberg.UnknownType{}},
			{ID: 5, Name: "x", Type: iceberg.StringType{}},
		}}},
	)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	in := fromJSON(t, mem, src, `[{"a": 1, "st": {"x": "p"}}, {"a": 2, "st": null}, {"a": 3, "st": {"x": "q"}}]`)
	defer in.Release()
	c, err := NewConformer(src, schema, mem)
	if err != nil {
		t.Fatal(err)
	}
	sl := in.NewSlice(1, 3) // the struct's offset must survive pruning
	defer sl.Release()
	conf, err := c.Conform(sl)
	if err != nil {
		t.Fatal(err)
	}
	defer conf.Release()
	fio := fileio.NewMem()
	w, err := New(context.Background(), fio, schema, iceberg.PartitionSpec{}, func(string) string { return "mem://t/u.parquet" }, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), conf); err != nil {
		t.Fatal(err)
	}
	files, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, tbl := readBack(t, fio, files[0].Path)
	defer tbl.Release()
	pf, _ := file.NewParquetReader(bytes.NewReader(data))
	defer pf.Close()
	var ids []int32
	for i := 0; i < pf.MetaData().Schema.NumColumns(); i++ {
		ids = append(ids, pf.MetaData().Schema.Column(i).SchemaNode().FieldID())
	}
	if fmt.Sprint(ids) != "[1 5]" {
		t.Errorf("stored leaf ids %v, want [1 5]", ids)
	}
	st := tbl.Column(1).Data().Chunk(0).(*array.Struct)
	if got := st.String(); got != "{[(null) \"q\"]}" || !st.IsNull(0) {
		t.Errorf("st reads back %s", got)
	}
	if got := tbl.Column(0).Data().Chunk(0).(*array.Int64).Int64Values(); got[0] != 2 || got[1] != 3 {
		t.Errorf("a reads back %v", got)
	}

	variant := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.VariantType{}})
	if _, err := New(context.Background(), fio, variant, iceberg.PartitionSpec{}, func(string) string { return "mem://x" }, Options{}); err == nil {
		t.Error("a variant column is written without Parquet's VARIANT annotation")
	}
}
