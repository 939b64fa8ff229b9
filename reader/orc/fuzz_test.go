package orc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/internal/fuzzseed"
)

// FuzzRead opens arbitrary bytes as an ORC file and reads its rows in small
// batches, seeded with the pyarrow-written files of testdata. It must not
// panic, every error must wrap ErrInvalidFile or ErrUnsupported, every batch
// must pass Arrow's full validation, and all memory must be released, on
// errors too.
func FuzzRead(f *testing.F) {
	fuzzseed.AddSeeds(f, fuzzseed.SeedFiles(f, 64<<10, filepath.Join("testdata", "pyarrow", "*.orc"))...)
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		err := readFuzzed(mem, data)
		if err != nil && !errors.Is(err, ErrInvalidFile) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("error %v wraps neither ErrInvalidFile nor ErrUnsupported", err)
		}
		mem.AssertSize(t, 0)
	})
}

// maxFuzzBatches bounds the batches one input may read: a few bytes can
// claim billions of rows.
const maxFuzzBatches = 64

func readFuzzed(mem memory.Allocator, data []byte) error {
	file, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	if _, err := file.ArrowSchema(); err != nil {
		return err
	}
	rr, err := file.NewRecordReader(context.Background(), mem, ReadOptions{BatchSize: 256})
	if err != nil {
		return err
	}
	defer rr.Close()
	for range maxFuzzBatches {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for i, col := range rec.Columns() {
			if err := array.ValidateFull(col); err != nil {
				rec.Release()
				return errors.Join(errInvalidBatch, err, errors.New(rec.ColumnName(i)))
			}
		}
		rec.Release()
	}
	return nil
}

// errInvalidBatch marks a batch that fails validation: the fuzz target
// reports it as a fault, for it wraps neither of the package's sentinels.
var errInvalidBatch = errors.New("batch fails Arrow's full validation")
