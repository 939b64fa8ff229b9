package datafile

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// writeJSON writes JSON rows of schema into one data file and returns it.
func writeJSON(t *testing.T, schema *iceberg.Schema, props map[string]string, rows ...string) (iceberg.DataFile, *fileio.Mem) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	as, err := iceberg.ArrowSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	fio := fileio.NewMem()
	w, err := New(context.Background(), fio, schema, iceberg.PartitionSpec{}, func(string) string { return "mem://t/f.parquet" },
		Options{Allocator: mem, Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		b := fromJSON(t, mem, as, r)
		if err := w.Write(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	files, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	return files[0], fio
}

func enc(t *testing.T, typ iceberg.Type, v any) []byte {
	t.Helper()
	b, err := iceberg.EncodeValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMetricsBoundsByType(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "b", Type: iceberg.BooleanType{}},
		iceberg.NestedField{ID: 2, Name: "dec", Type: iceberg.DecimalType{Precision: 9, Scale: 2}},
		iceberg.NestedField{ID: 3, Name: "u", Type: iceberg.UUIDType{}},
		iceberg.NestedField{ID: 4, Name: "ts", Type: iceberg.TimestampTzType{}},
		iceberg.NestedField{ID: 5, Name: "bin", Type: iceberg.BinaryType{}},
		iceberg.NestedField{ID: 6, Name: "s", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 7, Name: "d", Type: iceberg.DateType{}},
		iceberg.NestedField{ID: 8, Name: "f", Type: iceberg.FloatType{}},
		iceberg.NestedField{ID: 9, Name: "fx", Type: iceberg.FixedType{Length: 20}},
	)
	// Binary values are base64 in Arrow's JSON. The long string is 20 code
	// points of which the 16th is 'é'; the binary is 20 bytes.
	rows := `[
		{"b": false, "dec": "-12.34", "u": "AAAAAAAAAAAAAAAAAAAAAQ==", "ts": -5, "bin": "AQIDBAUGBwgJCgsMDQ4PEBESExQ=", "s": "0123456789abcdeéxyz!", "d": -3, "f": 1.5, "fx": "AQIDBAUGBwgJCgsMDQ4PEBESExQ="},
		{"b": true, "dec": "5.00", "u": "/////////////////////w==", "ts": 7, "bin": "AQ==", "s": "a", "d": 4, "f": -0.0, "fx": "AAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		{"b": null, "dec": null, "u": null, "ts": null, "bin": null, "s": null, "d": null, "f": null, "fx": null}
	]`
	df, _ := writeJSON(t, schema, nil, rows)
	bin20 := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	var uLo, uHi [16]byte
	uLo[15] = 1
	for i := range uHi {
		uHi[i] = 0xff
	}
	cases := []struct {
		name   string
		id     int
		lo, hi []byte
	}{
		{"boolean", 1, enc(t, iceberg.BooleanType{}, false), enc(t, iceberg.BooleanType{}, true)},
		{"negative decimal orders below positive", 2, enc(t, iceberg.DecimalType{Precision: 9, Scale: 2}, decimal128.FromI64(-1234)), enc(t, iceberg.DecimalType{Precision: 9, Scale: 2}, decimal128.FromI64(500))},
		{"uuid unsigned", 3, enc(t, iceberg.UUIDType{}, uLo), enc(t, iceberg.UUIDType{}, uHi)},
		{"timestamptz", 4, enc(t, iceberg.TimestampTzType{}, int64(-5)), enc(t, iceberg.TimestampTzType{}, int64(7))},
		// truncate(16): the lower bound is the first 16 bytes; the upper is
		// the largest value (20 bytes) cut to 16 with its last byte incremented.
		{"binary truncated", 5, bin20[:1], append(append([]byte{}, bin20[:15]...), 17)},
		{"string truncated by code point", 6, enc(t, iceberg.StringType{}, "0123456789abcdeé"), enc(t, iceberg.StringType{}, "a")},
		{"date", 7, enc(t, iceberg.DateType{}, int32(-3)), enc(t, iceberg.DateType{}, int32(4))},
		{"float: -0 is below 1.5", 8, enc(t, iceberg.FloatType{}, float32(math.Copysign(0, -1))), enc(t, iceberg.FloatType{}, float32(1.5))},
		{"fixed is not truncated", 9, make([]byte, 20), bin20},
	}
	cases[0].lo[0] = 0 // bool false serializes as 0x00
	for _, c := range cases {
		lo, _ := df.LowerBounds.Get(c.id)
		hi, _ := df.UpperBounds.Get(c.id)
		if !bytes.Equal(lo, c.lo) || !bytes.Equal(hi, c.hi) {
			t.Errorf("%s: bounds %x..%x, want %x..%x", c.name, lo, hi, c.lo, c.hi)
		}
		if v, _ := df.NullValueCounts.Get(c.id); v != 1 {
			t.Errorf("%s: %d nulls, want 1", c.name, v)
		}
		if v, _ := df.ValueCounts.Get(c.id); v != 3 {
			t.Errorf("%s: %d values, want 3", c.name, v)
		}
	}
}

func TestMetricsModes(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 2, Name: "b", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 4, Name: "c", Type: iceberg.StringType{}},
		}}},
		iceberg.NestedField{ID: 5, Name: "e", Type: iceberg.DoubleType{}},
	)
	rows := `[{"a": "abcdef", "b": "abcdef", "st": {"c": "abcdef"}, "e": 1}, {"a": "b", "b": "b", "st": {"c": "b"}, "e": "NaN"}]`
	type want struct {
		counts, bounds bool
		lo, hi         string
	}
	cases := []struct {
		name  string
		props map[string]string
		want  map[int]want
	}{
		{"per-column modes override the default", map[string]string{
			PropMetricsDefault:         "none",
			PropMetricsColumn + "a":    "truncate(2)",
			PropMetricsColumn + "b":    "counts",
			PropMetricsColumn + "st.c": "full",
		}, map[int]want{1: {true, true, "ab", "b"}, 2: {counts: true}, 4: {true, true, "abcdef", "b"}, 5: {}}},
		{"max-inferred-column-defaults limits the inferred default", map[string]string{
			PropMetricsMaxInferred: "2",
		}, map[int]want{1: {true, true, "abcdef", "b"}, 2: {true, true, "abcdef", "b"}, 4: {}, 5: {}}},
		{"an explicit default applies to every column", map[string]string{
			PropMetricsMaxInferred: "1", PropMetricsDefault: "counts",
		}, map[int]want{1: {counts: true}, 2: {counts: true}, 4: {counts: true}, 5: {counts: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			df, _ := writeJSON(t, schema, c.props, rows)
			for id, w := range c.want {
				_, hasCount := df.ValueCounts.Get(id)
				_, hasNulls := df.NullValueCounts.Get(id)
				_, hasSize := df.ColumnSizes.Get(id)
				lo, hasLo := df.LowerBounds.Get(id)
				hi, hasHi := df.UpperBounds.Get(id)
				if hasCount != w.counts || hasNulls != w.counts || hasSize != w.counts {
					t.Errorf("column %d: counts %v nulls %v size %v, want %v", id, hasCount, hasNulls, hasSize, w.counts)
				}
				if hasLo != w.bounds || hasHi != w.bounds {
					t.Errorf("column %d: bounds %v %v, want %v", id, hasLo, hasHi, w.bounds)
				}
				if w.lo != "" && (string(lo) != w.lo || string(hi) != w.hi) {
					t.Errorf("column %d: bounds %q..%q, want %q..%q", id, lo, hi, w.lo, w.hi)
				}
				if id == 5 && w.counts {
					if n, _ := df.NaNValueCounts.Get(5); n != 1 {
						t.Errorf("NaN count %d, want 1", n)
					}
				}
			}
		})
	}
}

func TestMetricsAcrossRowGroups(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.LongType{}, Required: true})
	// A 1-byte row group size cuts a row group after every batch.
	df, fio := writeJSON(t, schema, map[string]string{PropRowGroupSize: "1"},
		`[{"v": 5}, {"v": 9}]`, `[{"v": -4}]`, `[{"v": 100}, {"v": 0}]`)
	data, _ := fileio.ReadAll(context.Background(), fio, df.Path, 0)
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if md.NumRowGroups() != 3 || len(df.SplitOffsets) != 3 {
		t.Fatalf("%d row groups, split offsets %v", md.NumRowGroups(), df.SplitOffsets)
	}
	var size int64
	for i := 0; i < 3; i++ {
		cc, _ := md.RowGroup(i).ColumnChunk(0)
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() {
			start = min(start, cc.DictionaryPageOffset())
		}
		if df.SplitOffsets[i] != start {
			t.Errorf("split offset %d = %d, row group starts at %d", i, df.SplitOffsets[i], start)
		}
		size += cc.TotalCompressedSize()
	}
	if got, _ := df.ColumnSizes.Get(1); got != size {
		t.Errorf("column size %d, want the chunks' %d", got, size)
	}
	lo, _ := df.LowerBounds.Get(1)
	hi, _ := df.UpperBounds.Get(1)
	if !bytes.Equal(lo, enc(t, iceberg.LongType{}, int64(-4))) || !bytes.Equal(hi, enc(t, iceberg.LongType{}, int64(100))) {
		t.Errorf("bounds %x..%x, want -4..100", lo, hi)
	}
	if v, _ := df.ValueCounts.Get(1); v != 5 || df.RecordCount != 5 {
		t.Errorf("values %d records %d, want 5", v, df.RecordCount)
	}
}

func TestTruncateBounds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		in     any
		n      int
		lo, hi any
	}{
		{"short string unchanged", "abc", 5, "abc", "abc"},
		{"string cut and incremented", "abcdef", 3, "abc", "abd"},
		{"multi-byte code points count once", "ééé", 2, "éé", "éê"},
		{"max code point carries to the previous", "a\U0010FFFFb", 2, "a\U0010FFFF", "b"},
		{"all max code points: no upper bound", "\U0010FFFF\U0010FFFFx", 2, "\U0010FFFF\U0010FFFF", nil},
		{"increment skips the surrogates", "a\uD7FFb", 2, "a\uD7FF", "a\uE000"},
		{"binary cut and incremented", []byte{1, 2, 3}, 2, []byte{1, 2}, []byte{1, 3}},
		{"binary 0xff carries", []byte{1, 0xff, 3}, 2, []byte{1, 0xff}, []byte{2}},
		{"binary all 0xff: no upper bound", []byte{0xff, 0xff, 3}, 2, []byte{0xff, 0xff}, nil},
	}
	for _, c := range cases {
		lo, hi := truncateLower(c.in, c.n), truncateUpper(c.in, c.n)
		if !equalAny(lo, c.lo) || !equalAny(hi, c.hi) {
			t.Errorf("%s: %q..%q, want %q..%q", c.name, lo, hi, c.lo, c.hi)
		}
	}
}

func equalAny(a, b any) bool {
	if ab, ok := a.([]byte); ok {
		bb, ok := b.([]byte)
		return ok && bytes.Equal(ab, bb)
	}
	return a == b
}

func TestCompressionCodecs(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "s", Type: iceberg.StringType{}})
	cases := []struct {
		props map[string]string
		want  string
	}{
		{nil, "ZSTD"}, // Iceberg's default since 1.4
		{map[string]string{PropCompressionCodec: "snappy"}, "SNAPPY"},
		{map[string]string{PropCompressionCodec: "gzip", PropCompressionLevel: "9"}, "GZIP"},
		{map[string]string{PropCompressionCodec: "uncompressed"}, "UNCOMPRESSED"},
		{map[string]string{PropCompressionCodec: "lz4"}, "LZ4_RAW"},
		{map[string]string{PropCompressionCodec: "ZSTD", PropCompressionLevel: "9"}, "ZSTD"},
	}
	for _, c := range cases {
		df, fio := writeJSON(t, schema, c.props, `[{"s": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, {"s": null}]`)
		data, _ := fileio.ReadAll(context.Background(), fio, df.Path, 0)
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%v: %v", c.props, err)
		}
		cc, _ := pf.MetaData().RowGroup(0).ColumnChunk(0)
		if got := cc.Compression().String(); got != c.want {
			t.Errorf("%v: codec %s, want %s", c.props, got, c.want)
		}
		pf.Close()
	}
	for _, bad := range []map[string]string{
		{PropCompressionCodec: "lzo2"},
		{PropTargetFileSize: "-1"},
		{PropMetricsDefault: "truncate(0)"},
		{PropMetricsColumn + "s": "sometimes"},
	} {
		_, err := New(context.Background(), fileio.NewMem(), schema, iceberg.PartitionSpec{}, func(string) string { return "mem://x" }, Options{Properties: bad})
		if err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestMetricsBoundLongStrings(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "s", Type: iceberg.StringType{}})
	// arrow-go leaves out a min or max over 4096 bytes; the bounds come from
	// the data, truncated as Java's: 16 z's with the last incremented.
	long := strings.Repeat("z", 5000)
	df, _ := writeJSON(t, schema, map[string]string{PropRowGroupSize: "1"},
		`[{"s": "b"}, {"s": "c"}]`, `[{"s": "a"}, {"s": "`+long+`"}]`)
	lo, _ := df.LowerBounds.Get(1)
	hi, _ := df.UpperBounds.Get(1)
	if string(lo) != "a" || string(hi) != strings.Repeat("z", 15)+"{" {
		t.Errorf("bounds %q..%q, want \"a\"..%q", lo, hi, strings.Repeat("z", 15)+"{")
	}
	if v, _ := df.ValueCounts.Get(1); v != 4 {
		t.Errorf("value count %d, want 4", v)
	}
	if v, ok := df.NullValueCounts.Get(1); !ok || v != 0 {
		t.Errorf("null count %d %v, want 0", v, ok)
	}
}
