package pqcodec

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// BenchmarkDecode decodes one column chunk of 1M rows per physical type and
// encoding, here and with pqarrow, beside each other: compare the pairs'
// MB/s (Arrow bytes out per second on one core).
func BenchmarkDecode(b *testing.B) {
	const rows = 1 << 20
	cases := []struct {
		name     string
		typ      arrow.DataType
		distinct int
		dict     bool
		nullPct  int
		enc      parquet.Encoding // without a dictionary
	}{
		{"int64/plain", arrow.PrimitiveTypes.Int64, 1 << 30, false, 0, plain},
		{"int64/dict", arrow.PrimitiveTypes.Int64, 1000, true, 0, plain},
		{"int32/dict/nulls", arrow.PrimitiveTypes.Int32, 1000, true, 10, plain},
		{"float64/plain", arrow.PrimitiveTypes.Float64, 1 << 30, false, 0, plain},
		{"float64/dict", arrow.PrimitiveTypes.Float64, 1000, true, 0, plain},
		{"date32/dict", arrow.FixedWidthTypes.Date32, 2500, true, 0, plain},
		{"bool/plain", arrow.FixedWidthTypes.Boolean, 2, false, 0, plain},
		{"string/plain", arrow.BinaryTypes.String, 1 << 30, false, 0, plain},
		{"string/dict", arrow.BinaryTypes.String, 1000, true, 0, plain},
		{"string/dict/nulls", arrow.BinaryTypes.String, 1000, true, 10, plain},
		{"fixed16/plain", &arrow.FixedSizeBinaryType{ByteWidth: 16}, 1 << 30, false, 0, plain},
		{"int64/delta", arrow.PrimitiveTypes.Int64, 1 << 30, false, 0, parquet.Encodings.DeltaBinaryPacked},
		{"date32/delta", arrow.FixedWidthTypes.Date32, 2500, false, 0, parquet.Encodings.DeltaBinaryPacked},
		{"int32/delta/nulls", arrow.PrimitiveTypes.Int32, 1000, false, 10, parquet.Encodings.DeltaBinaryPacked},
		{"float64/bss", arrow.PrimitiveTypes.Float64, 1 << 30, false, 0, parquet.Encodings.ByteStreamSplit},
		{"float32/bss", arrow.PrimitiveTypes.Float32, 1 << 30, false, 0, parquet.Encodings.ByteStreamSplit},
		{"int64/bss/nulls", arrow.PrimitiveTypes.Int64, 1 << 30, false, 10, parquet.Encodings.ByteStreamSplit},
		{"fixed16/bss", &arrow.FixedSizeBinaryType{ByteWidth: 16}, 1 << 30, false, 0, parquet.Encodings.ByteStreamSplit},
		{"string/deltalength", arrow.BinaryTypes.String, 1 << 30, false, 0, parquet.Encodings.DeltaLengthByteArray},
		{"string/deltabytes", arrow.BinaryTypes.String, 1 << 30, false, 0, parquet.Encodings.DeltaByteArray},
		{"string/deltabytes/nulls", arrow.BinaryTypes.String, 1000, false, 10, parquet.Encodings.DeltaByteArray},
	}
	for _, tc := range cases {
		for _, codec := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd} {
			raw, size := benchFile(b, tc.typ, rows, tc.distinct, tc.dict, tc.nullPct, tc.enc, codec)
			name := fmt.Sprintf("%s/%s", tc.name, codec)
			b.Run(name+"/pqcodec", func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					benchOurs(b, raw, tc.typ)
				}
			})
			b.Run(name+"/pqarrow", func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					benchPqarrow(b, raw, []int{0})
				}
			})
		}
	}
}

// plain is the bench cases' value encoding where it is none of the others.
var plain = parquet.Encodings.Plain

// benchFile writes one column chunk and returns the file with the Arrow
// size of the column.
func benchFile(b *testing.B, dt arrow.DataType, rows, distinct int, dict bool, nullPct int, enc parquet.Encoding, codec compress.Compression) ([]byte, int64) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(1, 2))
	col := randomArray(rng, mem, dt, rows, distinct, nullPct)
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: nullPct > 0}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(rows))
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithDictionaryDefault(dict),
		parquet.WithEncoding(enc), parquet.WithMaxRowGroupLength(int64(rows)), parquet.WithDictionaryPageSizeLimit(1<<30))
	raw := testutil.WriteParquet(b, rec, props)
	var size int64
	for _, bb := range col.Data().Buffers() {
		if bb != nil {
			size += int64(bb.Len())
		}
	}
	return raw, size
}

func benchOurs(b *testing.B, raw []byte, dt arrow.DataType) {
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	cc, _ := md.RowGroup(0).ColumnChunk(0)
	cr, err := NewColumnReader(memory.DefaultAllocator, bytes.NewReader(raw), nil, md, cc, md.Schema.Column(0), dt)
	if err != nil {
		b.Fatal(err)
	}
	defer cr.Release()
	for left := int(md.RowGroup(0).NumRows()); left > 0; {
		n := min(left, 64<<10)
		a, err := cr.Read(n)
		if err != nil {
			b.Fatal(err)
		}
		a.Release()
		left -= n
	}
}

// benchPqarrow reads leaf columns leaves of raw's first row group with
// pqarrow's record reader.
func benchPqarrow(b *testing.B, raw []byte, leaves []int) {
	pf, err := file.NewParquetReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
}
