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
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
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
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return data, tbl
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
	var nameNulls, scoreNulls, scoreNaN, lonNulls, latNulls, tagVals, tagNulls int64
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
		if r.tags == nil {
			tagVals++ // a null list is one (null) leaf value in Parquet
			tagNulls++
		} else {
			tagVals += int64(len(r.tags))
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
		{"tags element values", df.ValueCounts, 8, tagVals},
		{"tags element nulls", df.NullValueCounts, 8, tagNulls},
	}
	for _, c := range counts {
		got, ok := c.metric.Get(c.id)
		if !ok || got != c.want {
			t.Errorf("%s: %d (present %v), want %d", c.name, got, ok, c.want)
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
