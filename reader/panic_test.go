package reader

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/panics"
)

// panicIO is a FileIO whose files panic at the after-th ReadAt, as a
// decoder bug met by a hostile file would.
type panicIO struct {
	memIO
	after int64
	reads *atomic.Int64
}

type panicFile struct {
	fileio.File
	io panicIO
}

func (p panicIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	f, err := p.memIO.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	return panicFile{f, p}, nil
}

func (f panicFile) ReadAt(b []byte, off int64) (int, error) {
	if f.io.reads.Add(1) == f.io.after {
		panic("injected storage fault")
	}
	return f.File.ReadAt(b, off)
}

func TestReadTurnsAPanicIntoAnErrorNamingTheFile(t *testing.T) {
	t.Parallel()
	data := seqFile(t, 1000, 100)
	schema := schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)
	tests := []struct {
		name       string
		after      int64 // the ReadAt that panics; 0 for none
		emitPanics int   // the emit call that panics; 0 for none
	}{
		{name: "a panic while the footer is read", after: 1},
		{name: "a panic in the first emit, holding the reader's batch", emitPanics: 1},
		{name: "a panic mid-file, with batches already emitted", emitPanics: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := checkedAlloc(t)
			fio := panicIO{memIO: memIO{"seq.parquet": data}, after: tc.after, reads: new(atomic.Int64)}
			r := New(fio, WithAllocator(mem), WithBatchSize(10))
			emits := 0
			err := r.Read(context.Background(), Scan{Schema: schema}, parquetTask("seq.parquet"), func(arrow.RecordBatch) error {
				if emits++; emits == tc.emitPanics {
					panic("injected emit fault")
				}
				return nil
			})
			if !errors.Is(err, panics.ErrPanic) || !strings.Contains(err.Error(), "seq.parquet") || !strings.Contains(err.Error(), "injected") {
				t.Fatalf("err = %v, want a recovered panic naming seq.parquet", err)
			}
			// checkedAlloc asserts at cleanup that the read released every buffer.
		})
	}
}
