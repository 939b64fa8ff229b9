package writer

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
)

// countingStream yields batches of one int64 column holding 0, 1, 2, ...
// and then, after n batches, err.
type countingStream struct {
	mem    memory.Allocator
	schema *arrow.Schema
	n, i   int
	err    error
	cur    arrow.RecordBatch
}

func (r *countingStream) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.i == r.n {
		return false
	}
	b := array.NewInt64Builder(r.mem)
	defer b.Release()
	b.Append(int64(r.i))
	col := b.NewArray()
	defer col.Release()
	r.cur = array.NewRecordBatch(r.schema, []arrow.Array{col}, 1)
	r.i++
	return true
}

func (r *countingStream) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *countingStream) Record() arrow.RecordBatch      { return r.cur }
func (r *countingStream) Schema() *arrow.Schema          { return r.schema }
func (r *countingStream) Err() error                     { return r.err }
func (r *countingStream) Retain()                        {}
func (r *countingStream) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func TestPrefetch(t *testing.T) {
	t.Parallel()
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	streamErr := errors.New("the stream broke")
	tests := []struct {
		name    string
		batches int
		err     error
		take    int // batches read before close; -1 all
	}{
		{"every batch arrives in order", 50, nil, -1},
		{"the stream's error after its batches", 7, streamErr, -1},
		{"an empty stream", 0, nil, -1},
		{"a writer that stops early frees what was read ahead", 50, nil, 3},
		{"a writer that stops before the first batch", 50, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			src := &countingStream{mem: mem, schema: schema, n: tc.batches, err: tc.err}
			p := prefetch(src)
			got := 0
			for (tc.take < 0 || got < tc.take) && p.Next() {
				if v := p.RecordBatch().Column(0).(*array.Int64).Value(0); v != int64(got) {
					t.Fatalf("batch %d holds %d", got, v)
				}
				got++
			}
			if tc.take < 0 {
				if got != tc.batches {
					t.Errorf("%d batches, want %d", got, tc.batches)
				}
				if !errors.Is(p.Err(), tc.err) || (tc.err == nil && p.Err() != nil) {
					t.Errorf("error %v, want %v", p.Err(), tc.err)
				}
			}
			p.close()
			src.Release()
			mem.AssertSize(t, 0)
		})
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
