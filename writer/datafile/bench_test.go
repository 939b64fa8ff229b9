package datafile

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// BenchmarkWritePartitioned writes batches of 64k rows partitioned by an
// identity string of 8 values and a day transform.
func BenchmarkWritePartitioned(b *testing.B) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "cat", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.TimestampType{}},
	)
	spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 2, FieldID: 1000, Name: "cat", Transform: iceberg.IdentityTransform{}},
		{SourceID: 3, FieldID: 1001, Name: "ts_day", Transform: iceberg.DayTransform{}},
	}}
	as, _ := iceberg.ArrowSchema(schema)
	const n = 64 << 10
	rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
	cats := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for i := 0; i < n; i++ {
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
		rb.Field(1).(*array.StringBuilder).Append(cats[i%8])
		rb.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i%3) * 86_400_000_000))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	for _, arrowGo := range []bool{false, true} {
		name := "pqwrite"
		if arrowGo {
			name = "arrow-go"
		}
		b.Run(name, func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				w, err := New(context.Background(), fileio.NewMem(), schema, spec, func(p string) string { return "mem://t/" + p + ".parquet" }, Options{})
				if err != nil {
					b.Fatal(err)
				}
				w.cfg.arrowGo = arrowGo
				if err := w.Write(context.Background(), rec); err != nil {
					b.Fatal(err)
				}
				if _, err := w.Close(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
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

// BenchmarkWriteFlat writes 1M rows of a typical fact table, unpartitioned,
// in batches of 64k rows: a sequential id, a timestamp, low-cardinality
// strings and ints, a double and a high-cardinality string.
func BenchmarkWriteFlat(b *testing.B) {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.TimestampTzType{}},
		iceberg.NestedField{ID: 3, Name: "country", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 4, Name: "qty", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 5, Name: "amount", Type: iceberg.DoubleType{}},
		iceberg.NestedField{ID: 6, Name: "session", Type: iceberg.StringType{}},
	)
	as, _ := iceberg.ArrowSchema(schema)
	const n, batch = 1 << 20, 64 << 10
	countries := []string{"de", "fr", "us", "jp", "br", "in", "ng", "au", "ca", "mx"}
	var recs []arrow.RecordBatch
	var size int64
	for start := 0; start < n; start += batch {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
		for i := start; i < start+batch; i++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)*1_000_003))
			rb.Field(2).(*array.StringBuilder).Append(countries[(i*7)%len(countries)])
			rb.Field(3).(*array.Int32Builder).Append(int32(i % 17))
			if i%50 == 0 {
				rb.Field(4).AppendNull()
			} else {
				rb.Field(4).(*array.Float64Builder).Append(float64((i*7919)%100000) / 100)
			}
			rb.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("s-%012x", uint64(i)*0x9E3779B97F4A7C15>>20))
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		for _, c := range rec.Columns() {
			size += arrayBytes(c)
		}
		recs = append(recs, rec)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, arrowGo := range []bool{false, true} {
		name := "pqwrite"
		if arrowGo {
			name = "arrow-go"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			cpu := cpuTime()
			for b.Loop() {
				w, err := New(context.Background(), fileio.NewMem(), schema, iceberg.PartitionSpec{}, func(p string) string { return "mem://t/f.parquet" }, Options{})
				if err != nil {
					b.Fatal(err)
				}
				w.cfg.arrowGo = arrowGo
				for _, r := range recs {
					if err := w.Write(context.Background(), r); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Close(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
