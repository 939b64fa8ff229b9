package datafile

import (
	"context"
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := New(context.Background(), fileio.NewMem(), schema, spec, func(p string) string { return "mem://t/" + p + ".parquet" }, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(context.Background(), rec); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}
