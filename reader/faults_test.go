package reader

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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

func TestReadCorruptParquetIsErrCorruptFile(t *testing.T) {
	t.Parallel()
	good := seqFile(t, 100, 10)
	footerLen := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	footerStart := len(good) - 8 - footerLen
	tests := []struct {
		name   string
		damage func(b []byte)
	}{
		{"a footer of garbage", func(b []byte) {
			for i := footerStart; i < len(b)-8; i++ {
				b[i] = 0xff
			}
		}},
		{"a footer cut short inside", func(b []byte) {
			for i := footerStart + footerLen/2; i < len(b)-8; i++ {
				b[i] = 0
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bad := bytes.Clone(good)
			tc.damage(bad)
			r := New(memIO{"bad.parquet": bad}, WithAllocator(checkedAlloc(t)))
			err := r.Read(context.Background(), Scan{Schema: schemaOf(t, `[{"id":1,"name":"i","required":true,"type":"long"}]`)},
				parquetTask("bad.parquet"), func(arrow.RecordBatch) error { return nil })
			if !errors.Is(err, ErrCorruptFile) || !strings.Contains(err.Error(), "bad.parquet") {
				t.Fatalf("err = %v, want ErrCorruptFile naming bad.parquet", err)
			}
		})
	}
}

func TestCorruptFileKeepsCausesCallersBranchOn(t *testing.T) {
	t.Parallel()
	for _, cause := range []error{context.Canceled, fileio.ErrUnavailable, fileio.ErrNotFound, ErrUnsupported, panics.ErrPanic} {
		err := corruptFile(fmt.Errorf("read x.parquet: %w", cause))
		if errors.Is(err, ErrCorruptFile) || !errors.Is(err, cause) {
			t.Errorf("corruptFile(%v) = %v, marked corrupt: the cause is %v", cause, err, cause)
		}
	}
	err := corruptFile(fmt.Errorf("read x.parquet: %w", io.ErrUnexpectedEOF))
	if !errors.Is(err, ErrCorruptFile) || !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "read x.parquet: unexpected EOF" {
		t.Errorf("corruptFile of a decode error = %v, want it marked corrupt with its message and cause", err)
	}
}
