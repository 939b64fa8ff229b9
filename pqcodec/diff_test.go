package pqcodec

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The differential tests: files written with random layouts, read column
// chunk by column chunk here and by pqarrow (and, for pyarrow's files, by
// pyarrow), which must agree value for value.

// columnTypes are the Arrow types of the flat columns the random files hold.
var columnTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int32,
	arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Float32,
	arrow.PrimitiveTypes.Float64,
	arrow.FixedWidthTypes.Boolean,
	arrow.BinaryTypes.String,
	arrow.BinaryTypes.Binary,
	&arrow.FixedSizeBinaryType{ByteWidth: 16},
	&arrow.FixedSizeBinaryType{ByteWidth: 3},
	arrow.FixedWidthTypes.Date32,
	&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
	&arrow.TimestampType{Unit: arrow.Microsecond},
	arrow.FixedWidthTypes.Time64us,
	arrow.PrimitiveTypes.Uint32,
	&arrow.Decimal128Type{Precision: 9, Scale: 2},
	&arrow.Decimal128Type{Precision: 18, Scale: 4},
	&arrow.Decimal128Type{Precision: 38, Scale: 10},
}

var codecs = []compress.Compression{
	compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd,
	compress.Codecs.Gzip, compress.Codecs.Lz4Raw,
}

// randomArray returns n values of dt; distinct bounds how many different
// values there are (few: dictionaries pay), nullPct the share of nulls.
func randomArray(rng *rand.Rand, mem memory.Allocator, dt arrow.DataType, n, distinct, nullPct int) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for range n {
		if nullPct > 0 && rng.IntN(100) < nullPct {
			b.AppendNull()
			continue
		}
		v := rng.Int64N(int64(distinct))
		switch b := b.(type) {
		case *array.Int32Builder:
			if v%61 == 3 {
				// The type's extremes, whose deltas wrap.
				b.Append([]int32{math.MinInt32, math.MaxInt32}[v%2])
				continue
			}
			b.Append(int32(v*7919 - 1<<20))
		case *array.Uint32Builder:
			b.Append(uint32(v * 104729))
		case *array.Int64Builder:
			if v%61 == 3 {
				b.Append([]int64{math.MinInt64, math.MaxInt64}[v%2])
				continue
			}
			b.Append(v*1_000_003 - 1<<40)
		case *array.Float32Builder:
			b.Append(float32(v) / 3)
		case *array.Float64Builder:
			b.Append(float64(v) / 7)
		case *array.BooleanBuilder:
			b.Append(v%2 == 1)
		case *array.StringBuilder:
			b.Append(fmt.Sprintf("v%0*d", int(v%13), v))
		case *array.BinaryBuilder:
			raw := make([]byte, v%40)
			for i := range raw {
				raw[i] = byte(v + int64(i))
			}
			b.Append(raw)
		case *array.FixedSizeBinaryBuilder:
			raw := make([]byte, dt.(*arrow.FixedSizeBinaryType).ByteWidth)
			for i := range raw {
				raw[i] = byte(v >> (i % 8))
			}
			b.Append(raw)
		case *array.Date32Builder:
			b.Append(arrow.Date32(v))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v * 1_000_000))
		case *array.Time64Builder:
			b.Append(arrow.Time64(v))
		case *array.Decimal128Builder:
			x := decimal128.FromI64(v%100_000_000 - 50_000_000)
			if dt.(*arrow.Decimal128Type).Precision > 30 {
				x = x.Mul(decimal128.FromI64(1_000_000_000_000_000_000))
			}
			b.Append(x)
		default:
			panic(fmt.Sprintf("no random values for %s", dt))
		}
	}
	return b.NewArray()
}

// randomFile writes a random table with random writer settings and returns
// the file and a description of the settings, for failure messages.
func randomFile(t testing.TB, rng *rand.Rand, mem memory.Allocator) ([]byte, string) {
	t.Helper()
	ncols := 1 + rng.IntN(6)
	rows := 1 + rng.IntN(5000)
	fields := make([]arrow.Field, ncols)
	cols := make([]arrow.Array, ncols)
	for i := range fields {
		dt := columnTypes[rng.IntN(len(columnTypes))]
		nullable := rng.IntN(3) > 0
		nullPct := 0
		if nullable {
			nullPct = []int{0, 1, 30, 100}[rng.IntN(4)]
		}
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: nullable}
		cols[i] = randomArray(rng, mem, dt, rows, []int{1, 5, 300, 1 << 30}[rng.IntN(4)], nullPct)
	}
	sc := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sc, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()

	codec := codecs[rng.IntN(len(codecs))]
	dict := rng.IntN(3) > 0
	version := parquet.DataPageV1
	if rng.IntN(2) == 0 {
		version = parquet.DataPageV2
	}
	pageSize := int64([]int{256, 4096, 1 << 20}[rng.IntN(3)])
	groupRows := int64(1 + rng.IntN(rows))
	decimalAsInt := rng.IntN(2) == 0
	desc := fmt.Sprintf("%d rows, schema %s, codec %s, dictionary %v, pages %v of %d bytes, row groups of %d", rows, sc, codec, dict, version, pageSize, groupRows)
	props := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(dict),
		parquet.WithDataPageVersion(version),
		parquet.WithDataPageSize(pageSize),
		parquet.WithDictionaryPageSizeLimit(int64([]int{512, 1 << 20}[rng.IntN(2)])),
		parquet.WithMaxRowGroupLength(groupRows),
		parquet.WithBatchSize(int64(1 + rng.IntN(2048))),
		parquet.WithStoreDecimalAsInteger(decimalAsInt),
	}
	// Half the columns, where the writer has any, take a value encoding
	// beyond PLAIN, which holds only when the column has no dictionary.
	for _, f := range fields {
		encs := writerEncodings(f.Type, decimalAsInt)
		if len(encs) == 0 || rng.IntN(2) == 0 {
			continue
		}
		enc := encs[rng.IntN(len(encs))]
		props = append(props, parquet.WithDictionaryFor(f.Name, false), parquet.WithEncodingFor(f.Name, enc))
		desc += fmt.Sprintf(", %s %s", f.Name, enc)
	}
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBuffered(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), desc
}

// writerEncodings returns the value encodings beyond PLAIN that arrow-go
// writes for a column of dt: DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT for
// INT32 and INT64, BYTE_STREAM_SPLIT for FLOAT, DOUBLE and
// FIXED_LEN_BYTE_ARRAY, and the two delta encodings for BYTE_ARRAY.
func writerEncodings(dt arrow.DataType, decimalAsInt bool) []parquet.Encoding {
	ints := []parquet.Encoding{parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.ByteStreamSplit}
	switch dt.ID() {
	case arrow.INT32, arrow.UINT32, arrow.DATE32, arrow.INT64, arrow.TIMESTAMP, arrow.TIME64:
		return ints
	case arrow.FLOAT32, arrow.FLOAT64, arrow.FIXED_SIZE_BINARY:
		return []parquet.Encoding{parquet.Encodings.ByteStreamSplit}
	case arrow.STRING, arrow.BINARY:
		return []parquet.Encoding{parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray}
	case arrow.DECIMAL128:
		if decimalAsInt && dt.(*arrow.Decimal128Type).Precision <= 18 {
			return ints
		}
		return []parquet.Encoding{parquet.Encodings.ByteStreamSplit}
	}
	return nil
}

// newEncodings are the value encodings whose decoding the tests count
// apart, so that a test that never met one of them says so.
var newEncodings = []parquet.Encoding{
	parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaLengthByteArray,
	parquet.Encodings.DeltaByteArray, parquet.Encodings.ByteStreamSplit,
}

// chunkTally counts the column chunks compared and those decoded here,
// and of those the ones in each of newEncodings by physical type.
type chunkTally struct {
	chunks, decoded int
	byEncoding      map[string]int
}

// add counts a decoded chunk of col in the given encodings.
func (t *chunkTally) add(encs []parquet.Encoding, col *schema.Column) {
	t.decoded++
	for _, e := range encs {
		if slices.Contains(newEncodings, e) {
			t.count(fmt.Sprintf("%s/%s", e, col.PhysicalType()), 1)
		}
	}
}

// count adds n chunks to those of key, an encoding and a physical type.
func (t *chunkTally) count(key string, n int) {
	if t.byEncoding == nil {
		t.byEncoding = map[string]int{}
	}
	t.byEncoding[key] += n
}

// merge adds o's counts to t's.
func (t *chunkTally) merge(o chunkTally) {
	t.chunks += o.chunks
	t.decoded += o.decoded
	for k, n := range o.byEncoding {
		t.count(k, n)
	}
}

// check logs the tally and fails the test if nothing was decoded here or
// one of encs never was.
func (t *chunkTally) check(tb testing.TB, what string, encs ...parquet.Encoding) {
	tb.Helper()
	tb.Logf("%d column chunks%s, %d decoded here; by encoding and type %v", t.chunks, what, t.decoded, t.byEncoding)
	if t.decoded == 0 {
		tb.Fatal("no column chunk was decoded here")
	}
	for _, e := range encs {
		n := 0
		for k, c := range t.byEncoding {
			if strings.HasPrefix(k, e.String()+"/") {
				n += c
			}
		}
		if n == 0 {
			tb.Errorf("no column chunk in %s was decoded here", e)
		}
	}
}

// pqarrowLacks reports whether arrow-go cannot read a chunk: it has no
// decoder of DELTA_BYTE_ARRAY for FIXED_LEN_BYTE_ARRAY, which Arrow C++
// writes, and panics on one.
func pqarrowLacks(cc *metadata.ColumnChunkMetaData, col *schema.Column) bool {
	return col.PhysicalType() == parquet.Types.FixedLenByteArray && slices.Contains(cc.Encodings(), parquet.Encodings.DeltaByteArray)
}

// compareFile reads every column chunk of raw with pqarrow and, where
// Supported, with a ColumnReader in batches of random sizes; each column
// that pqarrow reads as a string or binary is also read as a dictionary.
// want, when set, gives the expected values of a column by index.
func compareFile(t *testing.T, rng *rand.Rand, mem memory.Allocator, raw []byte, desc string, want func(col int) arrow.Array) chunkTally {
	t.Helper()
	ctx := context.Background()
	// pqarrow's column chunk reads keep some buffers past their release, so
	// the reference reads use an allocator of their own and only this
	// package's are checked.
	ref := memory.NewGoAllocator()
	pf, fr := openReference(t, ref, raw, desc)
	defer pf.Close()
	md := pf.MetaData()
	var tally chunkTally
	for col := 0; col < md.Schema.NumColumns(); col++ {
		var start int64
		out := fr.Manifest.Fields[col].Field.Type
		for g := 0; g < md.NumRowGroups(); g++ {
			rg := md.RowGroup(g)
			cc, err := rg.ColumnChunk(col)
			if err != nil {
				t.Fatal(err)
			}
			tally.chunks++
			var expected arrow.Array
			if pqarrowLacks(cc, md.Schema.Column(col)) {
				// arrow-go panics on such a chunk: the writer's values
				// alone are the reference.
				if want == nil {
					t.Fatalf("%s: column %d row group %d: no reference values for a chunk pqarrow cannot read", desc, col, g)
				}
				expected = array.NewSlice(want(col), start, start+rg.NumRows())
			} else {
				ch, err := fr.RowGroup(g).Column(col).Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				expected = concat(t, ref, ch)
				ch.Release()
				if want != nil {
					sl := array.NewSlice(want(col), start, start+rg.NumRows())
					if !array.Equal(sl, expected) {
						t.Errorf("%s: column %d row group %d: pqarrow reads other values than the writer's", desc, col, g)
					}
					sl.Release()
				}
			}
			start += rg.NumRows()
			types := []arrow.DataType{out}
			if out.ID() == arrow.STRING || out.ID() == arrow.BINARY {
				types = append(types, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: out})
			}
			for _, typ := range types {
				if !Supported(cc, md.Schema.Column(col), typ) {
					if typ == out && mustDecode(cc, md.Schema.Column(col)) {
						t.Errorf("%s: column %d row group %d (%s, %v, %s) not decoded here", desc, col, g, cc.Compression(), cc.Encodings(), out)
					}
					continue
				}
				if typ == out {
					tally.add(cc.Encodings(), md.Schema.Column(col))
				}
				got := readChunk(t, rng, mem, raw, md, g, col, typ)
				if d, ok := got.(*array.Dictionary); ok {
					dense, err := compute.TakeArray(compute.WithAllocator(ctx, ref), d.Dictionary(), d.Indices())
					if err != nil {
						t.Fatal(err)
					}
					got.Release()
					got = dense
				}
				if !array.Equal(got, expected) {
					t.Errorf("%s: column %d row group %d as %s: decoded\n%v\nwant\n%v", desc, col, g, typ, got, expected)
				}
				got.Release()
			}
			expected.Release()
		}
	}
	return tally
}

// openReference opens raw for pqarrow's reads, with allocator ref.
func openReference(t *testing.T, ref memory.Allocator, raw []byte, desc string) (*file.Reader, *pqarrow.FileReader) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(raw), file.WithReadProps(parquet.NewReaderProperties(ref)))
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, ref)
	if err != nil {
		pf.Close()
		t.Fatal(err)
	}
	return pf, fr
}

// mustDecode reports whether a chunk is of the layouts this package is
// meant to cover, so that Supported refusing it is a failure.
func mustDecode(cc interface {
	Compression() compress.Compression
	Encodings() []parquet.Encoding
}, col interface {
	MaxRepetitionLevel() int16
	PhysicalType() parquet.Type
}) bool {
	if col.MaxRepetitionLevel() > 0 || !supportedCodec(cc.Compression()) {
		return false
	}
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict, parquet.Encodings.RLE, parquet.Encodings.BitPacked:
		case parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaLengthByteArray,
			parquet.Encodings.DeltaByteArray, parquet.Encodings.ByteStreamSplit:
			if !encodingFits(e, col.PhysicalType()) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// readChunk decodes one column chunk in batches of random sizes, from the
// file's bytes in memory or through a ReaderAt by turns.
func readChunk(t *testing.T, rng *rand.Rand, mem memory.Allocator, raw []byte, md interface{}, g, col int, typ arrow.DataType) arrow.Array {
	t.Helper()
	fmd := mdOf(md)
	cc, _ := fmd.RowGroup(g).ColumnChunk(col)
	var chunk []byte
	if rng.IntN(2) == 0 {
		off, n := ChunkRange(fmd, cc)
		chunk = raw[off:min(off+n, int64(len(raw)))]
	}
	cr, err := NewColumnReader(mem, bytes.NewReader(raw), chunk, fmd, cc, fmd.Schema.Column(col), typ)
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Release()
	rows := int(fmd.RowGroup(g).NumRows())
	var parts []arrow.Array
	for left := rows; left > 0; {
		n := min(left, 1+rng.IntN(3000))
		a, err := cr.Read(n)
		if err != nil {
			t.Fatalf("column %d row group %d: %v", col, g, err)
		}
		if a.Len() != n {
			t.Fatalf("Read(%d) returned %d values", n, a.Len())
		}
		parts = append(parts, a)
		left -= n
	}
	if _, err := cr.Read(1); err == nil {
		t.Errorf("column %d row group %d: a read past the chunk's end succeeded", col, g)
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	if len(parts) == 0 {
		a, err := cr.Read(0)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if _, ok := typ.(*arrow.DictionaryType); ok {
		// Batches share one dictionary: concatenating their indices is
		// concatenating their values.
		idx := make([]arrow.Array, len(parts))
		for i, p := range parts {
			idx[i] = p.(*array.Dictionary).Indices()
		}
		all, err := array.Concatenate(idx, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer all.Release()
		return array.NewDictionaryArray(typ, all, parts[0].(*array.Dictionary).Dictionary())
	}
	all, err := array.Concatenate(parts, mem)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func concat(t *testing.T, mem memory.Allocator, ch *arrow.Chunked) arrow.Array {
	t.Helper()
	if len(ch.Chunks()) == 0 {
		return array.MakeArrayOfNull(mem, ch.DataType(), 0)
	}
	a, err := array.Concatenate(ch.Chunks(), mem)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDecodeMatchesPqarrow(t *testing.T) {
	t.Parallel()
	files := 300
	if testing.Short() {
		files = 60
	}
	var tally chunkTally
	for seed := range files {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(uint64(seed), 27))
		raw, desc := randomFile(t, rng, mem)
		got := compareFile(t, rng, mem, raw, fmt.Sprintf("seed %d: %s", seed, desc), nil)
		tally.merge(got)
		mem.AssertSize(t, 0)
		if t.Failed() {
			break
		}
	}
	tally.check(t, "", newEncodings...)
}

func mdOf(md interface{}) *metadata.FileMetaData { return md.(*metadata.FileMetaData) }
