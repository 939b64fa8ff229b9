package pqwrite

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

const benchRows = 1 << 20

// benchColumn returns benchRows values of dt, drawn from distinct values
// (0: all different), one in a hundred null.
func benchColumn(dt arrow.DataType, distinct int) arrow.Array {
	rng := rand.New(rand.NewPCG(7, uint64(distinct)))
	pick := func() uint64 {
		if distinct == 0 {
			return rng.Uint64()
		}
		return uint64(rng.IntN(distinct)) * 0x9E3779B97F4A7C15
	}
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	for range benchRows {
		if rng.IntN(100) == 0 {
			b.AppendNull()
			continue
		}
		v := pick()
		switch b := b.(type) {
		case *array.BooleanBuilder:
			b.Append(v&1 == 1)
		case *array.Int32Builder:
			b.Append(int32(v))
		case *array.Int64Builder:
			b.Append(int64(v))
		case *array.Float64Builder:
			b.Append(float64(v>>11) / 1e6)
		case *array.StringBuilder:
			b.Append(fmt.Sprintf("value-%016x", v))
		case *array.FixedSizeBinaryBuilder:
			var u [16]byte
			for i := range u {
				u[i] = byte(v >> (8 * (i % 8)))
			}
			u[0] ^= byte(rng.IntN(2))
			b.Append(u[:])
		case *array.Decimal128Builder:
			b.Append(decimal128.FromI64(int64(v >> 8)))
		}
	}
	return b.NewArray()
}

// BenchmarkEncode encodes a column of 1M rows into a Parquet file of one
// row group with the Iceberg defaults (zstd level 3, 1 MiB pages, 2 MiB
// dictionaries), here and with arrow-go's pqarrow; bytes are the Arrow
// values' bytes.
func BenchmarkEncode(b *testing.B) {
	types := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, &arrow.FixedSizeBinaryType{ByteWidth: 16},
		&arrow.Decimal128Type{Precision: 18, Scale: 2},
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(compress.DefaultCompressionLevel), parquet.WithDataPageSize(1<<20),
		parquet.WithDictionaryPageSizeLimit(2<<20), parquet.WithStats(true), parquet.WithVersion(parquet.V2_6),
		parquet.WithMaxRowGroupLength(benchRows))
	for _, dt := range types {
		for _, card := range []struct {
			name     string
			distinct int
		}{{"dict", 100}, {"unique", 0}} {
			if dt.ID() == arrow.BOOL && card.distinct == 0 {
				continue
			}
			col := benchColumn(dt, card.distinct)
			schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
			rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
			col.Release()
			size := arrowBytes(col)
			var slices []arrow.RecordBatch
			for off := int64(0); off < rec.NumRows(); off += 64 << 10 {
				slices = append(slices, rec.NewSlice(off, min(off+64<<10, rec.NumRows())))
			}
			var buf bytes.Buffer
			b.Run(fmt.Sprintf("%s/%s/pqwrite", dt, card.name), func(b *testing.B) {
				b.SetBytes(size)
				cpu := cpuTime()
				for b.Loop() {
					buf.Reset()
					sc, err := pqarrow.ToParquet(schema, props, pqarrow.DefaultWriterProps())
					if err != nil {
						b.Fatal(err)
					}
					fw, err := NewFileWriter(&buf, sc, props, metadata.KeyValueMetadata{}, []arrow.DataType{dt})
					if err != nil {
						b.Fatal(err)
					}
					g, err := fw.AppendRowGroup()
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range slices {
						if err := g.Column(0).Write(s.Column(0)); err != nil {
							b.Fatal(err)
						}
					}
					if err := fw.Close(); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu, size)
				b.ReportMetric(float64(buf.Len()), "file-bytes")
			})
			b.Run(fmt.Sprintf("%s/%s/arrow-go", dt, card.name), func(b *testing.B) {
				b.SetBytes(size)
				cpu := cpuTime()
				for b.Loop() {
					buf.Reset()
					fw, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range slices {
						if err := fw.WriteBuffered(s); err != nil {
							b.Fatal(err)
						}
					}
					if err := fw.Close(); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu, size)
				b.ReportMetric(float64(buf.Len()), "file-bytes")
			})
			for _, s := range slices {
				s.Release()
			}
			rec.Release()
		}
	}
}

// arrowBytes is the size of an array's values and validity.
func arrowBytes(a arrow.Array) int64 {
	var n int64
	for _, buf := range a.Data().Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	return n
}

// cpuTime returns the CPU time the process has used, user and system, in
// nanoseconds: on a shared machine it measures the work better than the
// wall clock.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports the CPU time per iteration since start, and the MB/s
// of Arrow data per CPU second.
func reportCPU(b *testing.B, start, size int64) {
	ns := float64(cpuTime()-start) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	b.ReportMetric(float64(size)/ns*1e3, "cpu-MB/s")
}
