package datafile

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
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
// encoder and with pqarrow's FileWriter and wants the same file: the same
// pages byte for byte (so the same levels, values and row groups) and the
// same footer but for the order of its encoding lists, which pqarrow
// itself varies from run to run.
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
					if diff := sameParquet(writeEncoder(t, mem, schema, batches, workers), want); diff != "" {
						t.Fatalf("%d workers: encoder's file differs from pqarrow's: %s", workers, diff)
					}
				}
			})
		}
	}
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

	buf := writeEncoder(t, mem, schema, []arrow.RecordBatch{rec}, 2)
	back := readParquet(t, mem, buf)
	defer back.Release()
	wantList, _, err := array.FromJSON(mem, arrow.ListOfField(elem), bytes.NewReader([]byte(`[[1, 2], null, [4, null], [], [6]]`)))
	if err != nil {
		t.Fatal(err)
	}
	defer wantList.Release()
	if got := back.Column(0).Data().Chunk(0); !array.Equal(got, wantList) {
		t.Fatalf("read back %v, want %v", got, wantList)
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
	describe := func(f []byte) (string, error) {
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
			fmt.Fprintf(&sb, "group %d: %d rows, %d bytes\n", g, rg.NumRows(), rg.TotalByteSize())
			for c := 0; c < rg.NumColumns(); c++ {
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					return "", err
				}
				enc := fmt.Sprint(cc.Encodings())
				encs := strings.Fields(strings.Trim(enc, "[]"))
				slices.Sort(encs)
				fmt.Fprintf(&sb, "  %s: values %d, at %d/%d, sizes %d/%d, %v", cc.PathInSchema(), cc.NumValues(),
					cc.DataPageOffset(), cc.DictionaryPageOffset(), cc.TotalCompressedSize(), cc.TotalUncompressedSize(), encs)
				if st, err := cc.Statistics(); err == nil && st != nil {
					fmt.Fprintf(&sb, " nulls %d min %x max %x", st.NullCount(), st.EncodeMin(), st.EncodeMax())
				}
				sb.WriteString("\n")
			}
		}
		return sb.String(), nil
	}
	da, err := describe(a)
	if err != nil {
		return err.Error()
	}
	db, err := describe(b)
	if err != nil {
		return err.Error()
	}
	if da != db {
		return "footers:\n" + da + "\nvs\n" + db
	}
	return ""
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

func writeEncoder(t *testing.T, mem memory.Allocator, schema *arrow.Schema, batches []arrow.RecordBatch, workers int) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := newEncoder(schema, &buf, testWriterProps(mem), mem, workers)
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

func readParquet(t *testing.T, mem memory.Allocator, b []byte) arrow.Table {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(b), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_ = rdr.Close()
	return tbl
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
		b.Append(rng.Float32())
	case *array.Float64Builder:
		b.Append(float64(rng.IntN(300)) / 7)
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(rng.Int64N(1e9)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(rng.IntN(20000)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(rng.Int64N(86_400_000_000)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(rng.Int64N(1 << 50)))
	case *array.StringBuilder:
		b.Append(fmt.Sprintf("v%d", rng.IntN(400)))
	case *array.BinaryBuilder:
		b.Append([]byte(fmt.Sprintf("b%x", rng.IntN(1<<20))))
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
