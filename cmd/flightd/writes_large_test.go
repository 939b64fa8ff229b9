package main

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestWritesTakeBatchesLargerThanGRPCsDefault sends one unsplit record
// batch of ~12 MiB, as pyarrow's and arrow-go's writers do with a large
// table: gRPC's default 4 MiB bound on a received message refused it
// with ResourceExhausted before --max-message-bytes raised it.
func TestWritesTakeBatchesLargerThanGRPCsDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := directoryTarget(t, "large")
	tg.create(ctx, t, 2)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	const n = 1 << 20
	b := array.NewRecordBuilder(mem, itemsSchema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).AppendNull()
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(i))
		b.Field(3).(*array.Date32Builder).AppendNull()
		b.Field(4).(*array.Decimal128Builder).AppendNull()
		b.Field(5).(*array.Float64Builder).Append(float64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	res, err := put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "append"}, rec)
	if err != nil {
		t.Fatalf("append of one %d-row batch: %v", n, err)
	}
	if res.AddedRecords != n {
		t.Errorf("added %d records, want %d", res.AddedRecords, n)
	}
}
