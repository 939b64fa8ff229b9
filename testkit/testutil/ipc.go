package testutil

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ReadIPCFile reads an Arrow IPC file of one or more batches as one batch,
// for tests that compare with what another implementation (pyarrow) wrote
// there. The caller releases the batch.
func ReadIPCFile(t testing.TB, path string) arrow.RecordBatch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := range r.NumRecords() {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	tbl := array.NewTableFromRecords(r.Schema(), recs)
	defer tbl.Release()
	for _, rec := range recs {
		rec.Release()
	}
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		a, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		defer a.Release()
		cols[i] = a
	}
	return array.NewRecordBatch(r.Schema(), cols, tbl.NumRows())
}
