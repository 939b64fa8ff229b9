package engine

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A batch larger than a gRPC client's default 4 MiB message limit must go
// out as several messages, none over MaxMessageBytes, rows in order.
func TestBoundedWritesSliceLargeBatches(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const rows = 700_000 // 5.6 MB of int64
	b := array.NewInt64Builder(mem)
	for i := range int64(rows) {
		b.Append(i)
	}
	col := b.NewArray()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, rows)
	col.Release()
	defer rec.Release()

	var next int64
	writes := 0
	err := boundedWrites(MaxMessageBytes, func(part arrow.RecordBatch) error {
		writes++
		if size := int64(part.NumRows()) * 8; size > MaxMessageBytes {
			t.Errorf("a message of %d bytes", size)
		}
		vals := part.Column(0).(*array.Int64)
		for i := 0; i < vals.Len(); i++ {
			if vals.Value(i) != next {
				t.Fatalf("row %d holds %d", next, vals.Value(i))
			}
			next++
		}
		return nil
	})(rec)
	if err != nil {
		t.Fatal(err)
	}
	if next != rows || writes < 3 {
		t.Fatalf("%d rows in %d messages", next, writes)
	}
}
