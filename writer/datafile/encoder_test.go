package datafile

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// encoderSchemas are the shapes the encoder must write as pqarrow does:
// every Iceberg leaf type, required and optional, structs, lists and maps
// nested in each other.
var encoderSchemas = map[string][]arrow.Field{
	"flat": {
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: false},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: false},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "time", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: false},
		{Name: "uuid", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}, Nullable: true},
	},
	"struct": {
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "st", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "inner", Nullable: true, Type: arrow.StructOf(
				arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			)},
		)},
		{Name: "req", Type: arrow.StructOf(arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int64, Nullable: true})},
	},
	"lists and maps": {
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "tags", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true})},
		{Name: "req_list", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int32})},
		{Name: "props", Nullable: true, Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
		{Name: "nested", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "element", Nullable: true,
			Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Float64, Nullable: true})})},
		{Name: "points", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "element", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "labels", Nullable: true, Type: arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)},
		)})},
		{Name: "st", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "vals", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int64, Nullable: true})},
		)},
	},
}

// TestEncoderMatchesPqarrow writes random batches of each shape with the
// encoder and with pqarrow's FileWriter. With arrow-go encoding every
// leaf, it wants the same file: the same pages byte for byte (so the same
// levels, values and row groups) and the same footer but for the order of
// its encoding lists, which pqarrow itself varies from run to run. With
// pqwrite encoding the top-level leaves (the default), pages differ, but
// the file must read back as the same rows in the same row groups, with
// the same values and statistics in every column chunk.
func TestEncoderMatchesPqarrow(t *testing.T) {
	t.Parallel()
	for name, fields := range encoderSchemas {
		for _, nulls := range []float64{0, 0.2, 1} {
			t.Run(fmt.Sprintf("%s/nulls=%v", name, nulls), func(t *testing.T) {
				t.Parallel()
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				schema := arrow.NewSchema(fields, nil)
				rng := rand.New(rand.NewPCG(uint64(len(name)), uint64(nulls*10)))
				var batches []arrow.RecordBatch
				for _, n := range []int{1, 700, 3000, 0, 2500} {
					rec := randomBatch(rng, mem, schema, n, nulls)
					batches = append(batches, rec)
					if n > 10 {
						// A slice has offsets into its buffers, as the
						// writer's own slices of a big batch do.
						batches = append(batches, rec.NewSlice(3, int64(n-5)))
					}
				}
				defer func() {
					for _, b := range batches {
						b.Release()
					}
				}()
				want := writePqarrow(t, mem, schema, batches)
				for _, workers := range []int{4, 1} {
					if diff := sameParquet(writeEncoder(t, mem, schema, batches, workers, true), want); diff != "" {
						t.Fatalf("%d workers, arrow-go alone: encoder's file differs from pqarrow's: %s", workers, diff)
					}
					if diff := sameContent(t, mem, writeEncoder(t, mem, schema, batches, workers, false), want); diff != "" {
						t.Fatalf("%d workers: encoder's file differs from pqarrow's: %s", workers, diff)
					}
				}
			})
		}
	}
}

// sameContent returns what differs between the rows, row groups and
// column chunk statistics of Parquet files a and b, or "".
func sameContent(t *testing.T, mem memory.Allocator, a, b []byte) string {
	t.Helper()
	ta, tb := testutil.ReadParquet(t, mem, a), testutil.ReadParquet(t, mem, b)
	defer ta.Release()
	defer tb.Release()
	// Exact but for NaNs, which the random batches hold and which never
	// equal themselves.
	if !array.TableApproxEqual(ta, tb, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
		return "rows differ"
	}
	return sameDescription(a, b, false)
}

// sameDescription returns "" when describeFooter says the same of files a
// and b, else both descriptions.
func sameDescription(a, b []byte, layout bool) string {
	da, err := describeFooter(a, layout)
	if err != nil {
		return err.Error()
	}
	db, err := describeFooter(b, layout)
	if err != nil {
		return err.Error()
	}
	if da != db {
		return "footers:\n" + da + "\nvs\n" + db
	}
	return ""
}

// describeFooter describes a file's row groups and column chunks: with
// layout, where their pages are, how large and how encoded; without, their
// codecs only.
func describeFooter(f []byte, layout bool) (string, error) {
	r, err := file.NewParquetReader(bytes.NewReader(f))
	if err != nil {
		return "", err
	}
	defer r.Close()
	md := r.MetaData()
	var sb strings.Builder
	fmt.Fprintf(&sb, "rows %d, groups %d, created by %s, keys %v\n", md.NumRows, md.NumRowGroups(), md.GetCreatedBy(), md.KeyValueMetadata())
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		fmt.Fprintf(&sb, "group %d: %d rows", g, rg.NumRows())
		if layout {
			fmt.Fprintf(&sb, ", %d bytes", rg.TotalByteSize())
		}
		sb.WriteString("\n")
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return "", err
			}
			if layout {
				encs := strings.Fields(strings.Trim(fmt.Sprint(cc.Encodings()), "[]"))
				slices.Sort(encs)
				fmt.Fprintf(&sb, "  %s: values %d, at %d/%d, sizes %d/%d, %v", cc.PathInSchema(), cc.NumValues(),
					cc.DataPageOffset(), cc.DictionaryPageOffset(), cc.TotalCompressedSize(), cc.TotalUncompressedSize(), encs)
			} else {
				fmt.Fprintf(&sb, "  %s: values %d, codec %s", cc.PathInSchema(), cc.NumValues(), cc.Compression())
			}
			if st, err := cc.Statistics(); err == nil && st != nil {
				fmt.Fprintf(&sb, " nulls %d min %x max %x", st.NullCount(), st.EncodeMin(), st.EncodeMax())
			}
			sb.WriteString("\n")
		}
	}
	return sb.String(), nil
}

// TestEncoderNullListWithValues writes a null list whose offsets still
// span values (legal in Arrow, refused by pqarrow's path builder) and
// reads it back as a null.
func TestEncoderNullListWithValues(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	elem := arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int32, Nullable: true}
	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOfField(elem), Nullable: true}}, nil)
	values, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int32, bytes.NewReader([]byte(`[1, 2, 3, 4, null, 6]`)))
	if err != nil {
		t.Fatal(err)
	}
	defer values.Release()
	// Rows: [1, 2], null (owning 3), [4, null], [] and [6].
	offsets := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 2, 3, 5, 5, 6}))
	validity := memory.NewBufferBytes([]byte{0b11101})
	data := array.NewData(arrow.ListOfField(elem), 5, []*memory.Buffer{validity, offsets}, []arrow.ArrayData{values.Data()}, 1, 0)
	list := array.NewListData(data)
	data.Release()
	defer list.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{list}, 5)
	defer rec.Release()

	wantList, _, err := array.FromJSON(mem, arrow.ListOfField(elem), bytes.NewReader([]byte(`[[1, 2], null, [4, null], [], [6]]`)))
	if err != nil {
		t.Fatal(err)
	}
	defer wantList.Release()
	for _, arrowGo := range []bool{false, true} {
		buf := writeEncoder(t, mem, schema, []arrow.RecordBatch{rec}, 2, arrowGo)
		back := testutil.ReadParquet(t, mem, buf)
		got := back.Column(0).Data().Chunk(0)
		ok, desc := array.Equal(got, wantList), fmt.Sprint(got)
		back.Release()
		if !ok {
			t.Fatalf("arrow-go alone %v: read back %v, want %v", arrowGo, desc, wantList)
		}
	}
}

// sameParquet returns what differs between Parquet files a and b, or "".
func sameParquet(a, b []byte) string {
	pages := func(f []byte) []byte {
		n := len(f) - 8 - int(binary.LittleEndian.Uint32(f[len(f)-8:]))
		return f[:n]
	}
	if !bytes.Equal(pages(a), pages(b)) {
		return fmt.Sprintf("pages: %d bytes vs %d", len(pages(a)), len(pages(b)))
	}
	return sameDescription(a, b, true)
}

func testWriterProps(mem memory.Allocator) *parquet.WriterProperties {
	// Small pages and a small dictionary limit make the batches cross
	// page boundaries and fall back from dictionary encoding.
	return parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDataPageSize(4<<10), parquet.WithDictionaryPageSizeLimit(8<<10), parquet.WithStats(true),
		parquet.WithVersion(parquet.V2_6), parquet.WithCreatedBy("iceflight"), parquet.WithMaxRowGroupLength(4000))
}

func writePqarrow(t *testing.T, mem memory.Allocator, schema *arrow.Schema, batches []arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(schema, &buf, testWriterProps(mem), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range batches {
		if i == 3 {
			fw.NewBufferedRowGroup()
		}
		if err := fw.WriteBuffered(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeEncoder(t *testing.T, mem memory.Allocator, schema *arrow.Schema, batches []arrow.RecordBatch, workers int, arrowGo bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := newEncoder(schema, &buf, testWriterProps(mem), mem, workers, arrowGo)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range batches {
		if i == 3 {
			if err := enc.newRowGroup(); err != nil {
				t.Fatal(err)
			}
		}
		if b.NumRows() == 0 {
			continue
		}
		if err := enc.write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// randomBatch returns n random rows of schema, each nullable value null
// with probability nulls.
func randomBatch(rng *rand.Rand, mem memory.Allocator, schema *arrow.Schema, n int, nulls float64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, f := range schema.Fields() {
		for r := 0; r < n; r++ {
			appendRandom(rng, b.Field(i), f.Type, f.Nullable, nulls)
		}
	}
	return b.NewRecordBatch()
}

// randomFloat returns v, or now and then a value the metrics of floats
// treat apart: NaN, either zero, an infinity.
func randomFloat(rng *rand.Rand, v float64) float64 {
	switch rng.IntN(40) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return 0
	case 3:
		return math.Inf(rng.IntN(2)*2 - 1)
	}
	return v
}

// randomString returns s, or now and then one whose bounds the metrics
// treat apart: empty, past the footer's 4 KiB statistics limit, or
// starting with a byte above ASCII.
func randomString(rng *rand.Rand, s string) string {
	switch rng.IntN(200) {
	case 0:
		return ""
	case 1:
		return "~" + strings.Repeat("z", 5000)
	case 2:
		return "\u00ff" + s
	case 3:
		return strings.Repeat("\x00", 4100)
	}
	return s
}

func appendRandom(rng *rand.Rand, b array.Builder, dt arrow.DataType, nullable bool, nulls float64) {
	if nullable && rng.Float64() < nulls {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(rng.IntN(2) == 0)
	case *array.Int32Builder:
		b.Append(int32(rng.IntN(50)))
	case *array.Int64Builder:
		b.Append(rng.Int64N(1 << 40))
	case *array.Float32Builder:
		b.Append(float32(randomFloat(rng, float64(rng.Float32()))))
	case *array.Float64Builder:
		b.Append(randomFloat(rng, float64(rng.IntN(300))/7))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(rng.Int64N(1e9)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(rng.IntN(20000)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(rng.Int64N(86_400_000_000)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(rng.Int64N(1 << 50)))
	case *array.StringBuilder:
		b.Append(randomString(rng, fmt.Sprintf("v%d", rng.IntN(400))))
	case *array.BinaryBuilder:
		b.Append([]byte(randomString(rng, fmt.Sprintf("b%x", rng.IntN(1<<20)))))
	case *array.FixedSizeBinaryBuilder:
		v := make([]byte, dt.(*arrow.FixedSizeBinaryType).ByteWidth)
		for i := range v {
			v[i] = byte(rng.IntN(256))
		}
		b.Append(v)
	case *array.StructBuilder:
		b.Append(true)
		for j, f := range dt.(*arrow.StructType).Fields() {
			appendRandom(rng, b.FieldBuilder(j), f.Type, f.Nullable, nulls)
		}
	case *array.MapBuilder:
		b.Append(true)
		mt := dt.(*arrow.MapType)
		for k := rng.IntN(4); k > 0; k-- {
			appendRandom(rng, b.KeyBuilder(), mt.KeyType(), false, nulls)
			appendRandom(rng, b.ItemBuilder(), mt.ItemType(), mt.ItemField().Nullable, nulls)
		}
	case *array.ListBuilder:
		b.Append(true)
		lt := dt.(*arrow.ListType)
		for k := rng.IntN(4); k > 0; k-- {
			appendRandom(rng, b.ValueBuilder(), lt.Elem(), lt.ElemField().Nullable, nulls)
		}
	default:
		panic(fmt.Sprintf("appendRandom: no case for %T", b))
	}
}

// metricsSchema has every primitive Iceberg type at the top level, where
// pqwrite encodes it, and in a struct, a list and a map, where arrow-go
// does.
var metricsSchema = iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), primitiveSchema.Fields...),
	iceberg.NestedField{ID: 20, Name: "st", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 21, Name: "a", Type: iceberg.IntType{}},
		{ID: 22, Name: "s", Type: iceberg.StringType{}, Required: true},
	}}},
	iceberg.NestedField{ID: 23, Name: "tags", Type: &iceberg.ListType{ElementID: 24, Element: iceberg.StringType{}}},
	iceberg.NestedField{ID: 25, Name: "props", Type: &iceberg.MapType{KeyID: 26, Key: iceberg.StringType{}, ValueID: 27, Value: iceberg.LongType{}}},
	iceberg.NestedField{ID: 28, Name: "req", Type: iceberg.LongType{}, Required: true},
)...)

// TestWriterMetricsMatchArrowGo writes the same batches with pqwrite
// encoding the top-level columns and with arrow-go alone, and wants the
// same data files but for their sizes: the same records, and the same
// value, null and NaN counts and bounds, which come from the chunk
// statistics in the footer.
func TestWriterMetricsMatchArrowGo(t *testing.T) {
	t.Parallel()
	as, err := iceberg.ArrowSchema(metricsSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, metrics := range []string{"truncate(16)", "full", "counts"} {
		for _, nulls := range []float64{0, 0.3, 1} {
			t.Run(fmt.Sprintf("%s/nulls=%v", metrics, nulls), func(t *testing.T) {
				t.Parallel()
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				rng := rand.New(rand.NewPCG(5, uint64(nulls*10)))
				var batches []arrow.RecordBatch
				for _, n := range []int{3000, 1, 5000} {
					batches = append(batches, randomBatch(rng, mem, as, n, nulls))
				}
				defer func() {
					for _, b := range batches {
						b.Release()
					}
				}()
				props := map[string]string{PropMetricsDefault: metrics, PropRowGroupSize: "65536",
					PropPageSize: "4096", PropDictSize: "8192"}
				var files [2][]iceberg.DataFile
				for i, arrowGo := range []bool{false, true} {
					w, err := New(context.Background(), fileio.NewMem(), metricsSchema, iceberg.PartitionSpec{},
						func(string) string { return "mem://t/f.parquet" }, Options{Allocator: mem, Properties: props})
					if err != nil {
						t.Fatal(err)
					}
					w.cfg.arrowGo = arrowGo
					for _, b := range batches {
						if err := w.Write(context.Background(), b); err != nil {
							t.Fatal(err)
						}
					}
					if files[i], err = w.Close(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				if len(files[0]) != len(files[1]) {
					t.Fatalf("%d files, arrow-go %d", len(files[0]), len(files[1]))
				}
				for i := range files[0] {
					a, b := files[0][i], files[1][i]
					if len(a.ColumnSizes) != len(b.ColumnSizes) || len(a.SplitOffsets) != len(b.SplitOffsets) {
						t.Errorf("file %d: column sizes %v and split offsets %v, arrow-go %v and %v", i,
							a.ColumnSizes, a.SplitOffsets, b.ColumnSizes, b.SplitOffsets)
					}
					t.Logf("file %d: %d records, %d row groups", i, a.RecordCount, len(a.SplitOffsets))
					a.ColumnSizes, b.ColumnSizes = nil, nil
					a.SplitOffsets, b.SplitOffsets = nil, nil
					a.FileSize, b.FileSize = 0, 0
					if !reflect.DeepEqual(a, b) {
						t.Errorf("file %d:\n%+v\narrow-go:\n%+v", i, a, b)
					}
				}
			})
		}
	}
}
