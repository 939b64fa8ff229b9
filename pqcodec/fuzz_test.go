package pqcodec

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// fuzzBase is one real column chunk: the file it came from, its metadata
// and the Arrow type it decodes into.
type fuzzBase struct {
	raw  []byte
	md   *metadata.FileMetaData
	col  int
	typ  arrow.DataType
	rows int
}

// fuzzBases writes files of every covered type and layout and returns
// their first row group's chunks.
func fuzzBases(t testing.TB) []fuzzBase {
	var out []fuzzBase
	for seed := range 24 {
		rng := rand.New(rand.NewPCG(uint64(seed), 99))
		raw, _ := randomFile(t, rng, memory.NewGoAllocator())
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		for c := 0; c < md.Schema.NumColumns(); c++ {
			out = append(out, fuzzBase{raw: raw, md: md, col: c, typ: fr.Manifest.Fields[c].Field.Type, rows: int(md.RowGroup(0).NumRows())})
		}
		pf.Close()
	}
	return append(out, encodedBases(t)...)
}

// encodedBases writes, uncompressed so that mutations reach the values
// themselves, one column chunk per value encoding beyond PLAIN and
// physical type, in data pages v1 and v2, with nulls.
func encodedBases(t testing.TB) []fuzzBase {
	cases := []struct {
		dt  arrow.DataType
		enc parquet.Encoding
	}{
		{arrow.PrimitiveTypes.Int32, parquet.Encodings.DeltaBinaryPacked},
		{arrow.PrimitiveTypes.Int64, parquet.Encodings.DeltaBinaryPacked},
		{&arrow.Decimal128Type{Precision: 9, Scale: 2}, parquet.Encodings.DeltaBinaryPacked},
		{arrow.PrimitiveTypes.Float32, parquet.Encodings.ByteStreamSplit},
		{arrow.PrimitiveTypes.Float64, parquet.Encodings.ByteStreamSplit},
		{arrow.PrimitiveTypes.Int32, parquet.Encodings.ByteStreamSplit},
		{&arrow.FixedSizeBinaryType{ByteWidth: 3}, parquet.Encodings.ByteStreamSplit},
		{&arrow.Decimal128Type{Precision: 38, Scale: 10}, parquet.Encodings.ByteStreamSplit},
		{arrow.BinaryTypes.String, parquet.Encodings.DeltaLengthByteArray},
		{arrow.BinaryTypes.String, parquet.Encodings.DeltaByteArray},
		{arrow.BinaryTypes.Binary, parquet.Encodings.DeltaByteArray},
	}
	var out []fuzzBase
	for i, tc := range cases {
		for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
			mem := memory.NewGoAllocator()
			rng := rand.New(rand.NewPCG(uint64(i), 98))
			col := randomArray(rng, mem, tc.dt, 700, 300, 20)
			sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: tc.dt, Nullable: true}}, nil)
			rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len()))
			col.Release()
			props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithEncoding(tc.enc),
				parquet.WithDataPageVersion(v), parquet.WithDataPageSize(1024), parquet.WithStoreDecimalAsInteger(true))
			raw := testutil.WriteParquet(t, rec, props)
			rec.Release()
			pf, err := file.NewParquetReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			md := pf.MetaData()
			cc, _ := md.RowGroup(0).ColumnChunk(0)
			if !slices.Contains(cc.Encodings(), tc.enc) || !Supported(cc, md.Schema.Column(0), tc.dt) {
				t.Fatalf("%s chunk of %s (%v) is not decoded here", tc.enc, tc.dt, cc.Encodings())
			}
			out = append(out, fuzzBase{raw: raw, md: md, col: 0, typ: tc.dt, rows: int(md.RowGroup(0).NumRows())})
			pf.Close()
		}
	}
	return out
}

// chunkBytes returns the bytes of column col's chunk in the first row
// group of raw, a file of md, as a slice of raw.
func chunkBytes(raw []byte, md *metadata.FileMetaData, col int) []byte {
	cc, _ := md.RowGroup(0).ColumnChunk(col)
	off, n := ChunkRange(md, cc)
	return raw[off:min(off+n, int64(len(raw)))]
}

// FuzzColumnReader decodes mutated column chunks under the metadata of a
// real one: whatever the bytes, a read returns values or an error, never
// a panic or an out-of-range access, and frees what it allocated.
func FuzzColumnReader(f *testing.F) {
	bases := fuzzBases(f)
	for i, b := range bases {
		f.Add(uint16(i), chunkBytes(b.raw, b.md, b.col))
	}
	f.Fuzz(func(t *testing.T, which uint16, chunk []byte) {
		b := bases[int(which)%len(bases)]
		cc, _ := b.md.RowGroup(0).ColumnChunk(b.col)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		for _, typ := range []arrow.DataType{b.typ, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: b.typ}} {
			if !Supported(cc, b.md.Schema.Column(b.col), typ) {
				continue
			}
			// chunk is the whole chunk as it sits in memory; an empty
			// chunk is read from the ReaderAt, which holds nothing.
			cr, err := NewColumnReader(mem, bytes.NewReader(nil), chunk, b.md, cc, b.md.Schema.Column(b.col), typ)
			if err != nil {
				continue
			}
			// Inputs of odd length step over every other run with Skip,
			// which walks pages and values by other paths than Read.
			readOrSkip(t, cr, b.rows, len(chunk)%2 == 1, func(int) int { return 700 })
			cr.Release()
		}
	})
}

// readOrSkip reads rows from r in batches of size(step) rows, stepping
// over every other batch with Skip when skips, until the rows run out or
// a call fails; a Read that succeeds must return the rows asked for.
func readOrSkip(t *testing.T, r interface {
	Read(n int) (arrow.Array, error)
	Skip(n int) error
}, rows int, skips bool, size func(step int) int) {
	t.Helper()
	for step, left := 0, rows; left > 0; step++ {
		k := min(left, size(step))
		left -= k
		if skips && step%2 == 1 {
			if r.Skip(k) != nil {
				return
			}
			continue
		}
		a, err := r.Read(k)
		if err != nil {
			return
		}
		if a.Len() != k {
			t.Fatalf("Read(%d) returned %d rows", k, a.Len())
		}
		a.Release()
	}
}
