package fileio

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestCoalesce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		in             []Range
		gap, maxLength int64
		want           []Range
	}{
		{"adjacent ranges become one", []Range{{0, 10}, {10, 5}}, 0, 100, []Range{{0, 15}}},
		{"a gap within the bound is read through", []Range{{0, 10}, {14, 6}}, 4, 100, []Range{{0, 20}}},
		{"a gap past the bound keeps ranges apart", []Range{{0, 10}, {15, 5}}, 4, 100, []Range{{0, 10}, {15, 5}}},
		{"overlapping and contained ranges merge", []Range{{0, 10}, {5, 10}, {6, 2}}, 0, 100, []Range{{0, 15}}},
		{"input order does not matter", []Range{{30, 5}, {0, 10}, {10, 10}}, 0, 100, []Range{{0, 20}, {30, 5}}},
		{"a merge stops at the longest range", []Range{{0, 60}, {60, 60}}, 0, 100, []Range{{0, 60}, {60, 60}}},
		{"a single long range stays whole", []Range{{0, 500}}, 0, 100, []Range{{0, 500}}},
		{"empty and negative ranges are dropped", []Range{{0, 0}, {-5, 3}, {7, 1}}, 0, 100, []Range{{7, 1}}},
		{"nothing in, nothing out", nil, 0, 100, []Range{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]Range(nil), tc.in...)
			got := Coalesce(tc.in, tc.gap, tc.maxLength)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Coalesce(%v) = %v, want %v", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(in, tc.in) {
				t.Errorf("Coalesce changed its input to %v", tc.in)
			}
		})
	}
}

// countingFile is a File over data that records every ReadAt, and fails
// those that fail says should.
type countingFile struct {
	data []byte
	fail func(off int64) error

	mu    sync.Mutex
	reads []Range
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	f.reads = append(f.reads, Range{off, int64(len(p))})
	f.mu.Unlock()
	if f.fail != nil {
		if err := f.fail(off); err != nil {
			return 0, err
		}
	}
	return copy(p, f.data[off:]), nil
}

func (f *countingFile) Size() int64  { return int64(len(f.data)) }
func (f *countingFile) Close() error { return nil }

func (f *countingFile) readLog() []Range {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Range(nil), f.reads...)
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// readPieces reads r in pieces of piece bytes, as a buffered column reader
// does, and checks each against want.
func readPieces(t *testing.T, f File, r Range, piece int, want []byte) {
	t.Helper()
	for off := r.Offset; off < r.End(); off += int64(piece) {
		p := make([]byte, min(int64(piece), r.End()-off))
		if n, err := f.ReadAt(p, off); err != nil || n != len(p) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v", len(p), off, n, err)
		}
		if !bytes.Equal(p, want[off:off+int64(len(p))]) {
			t.Fatalf("bytes at %d differ", off)
		}
	}
}

func TestCoalescingFetchesEachMergedRangeOnce(t *testing.T) {
	t.Parallel()
	data := pattern(1 << 20)
	under := &countingFile{data: data}
	f := Coalescing(under, CoalesceOptions{MaxGap: 100, MaxLength: 1 << 20, ReadAhead: 1 << 20})
	defer f.Close()
	chunks := []Range{{1000, 5000}, {6050, 3000}, {200000, 4000}}
	Prefetch(context.Background(), f, chunks)
	for _, c := range chunks {
		readPieces(t, f, c, 1024, data)
	}
	got := under.readLog()
	want := []Range{{1000, 8050}, {200000, 4000}}
	if len(got) != len(want) {
		t.Fatalf("underlying reads %v, want one per merged range %v", got, want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("no read of merged range %v among %v", w, got)
		}
	}
}

func (c *coalescing) state() (held int, ahead int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.held), c.ahead
}

func TestCoalescingReadAheadIsBounded(t *testing.T) {
	t.Parallel()
	data := pattern(1 << 16)
	under := &countingFile{data: data}
	f := Coalescing(under, CoalesceOptions{MaxGap: 0, MaxLength: 1 << 16, ReadAhead: 3000})
	defer f.Close()
	c := f.(*coalescing)
	// 2,000 bytes fit the bound; the next 2,000 wait until the first are read.
	Prefetch(context.Background(), f, []Range{{0, 2000}, {10000, 2000}, {20000, 1000}})
	if held, ahead := c.state(); held != 3 || ahead != 2000 {
		t.Fatalf("after Prefetch: %d ranges held, %d bytes ahead; want 3 and 2000", held, ahead)
	}
	readPieces(t, f, Range{0, 2000}, 500, data)
	if held, ahead := c.state(); held != 2 || ahead != 3000 {
		t.Fatalf("after reading the first range: %d held, %d bytes ahead; want 2 and 3000", held, ahead)
	}
	// A read that reaches a range first starts its fetch.
	readPieces(t, f, Range{20000, 1000}, 250, data)
	readPieces(t, f, Range{10000, 2000}, 500, data)
	if n := len(under.readLog()); n != 3 {
		t.Fatalf("%d reads, want one fetch per range", n)
	}
	if held, ahead := c.state(); held != 0 || ahead != 0 {
		t.Errorf("after reading everything: %d held, %d bytes ahead; want none", held, ahead)
	}
}

func TestCoalescingFetchesLongRangesInPieces(t *testing.T) {
	t.Parallel()
	data := pattern(1 << 16)
	under := &countingFile{data: data}
	f := Coalescing(under, CoalesceOptions{MaxGap: 0, MaxLength: 4000, ReadAhead: 1 << 20})
	defer f.Close()
	Prefetch(context.Background(), f, []Range{{0, 10000}})
	readPieces(t, f, Range{0, 10000}, 1000, data)
	got := under.readLog()
	if len(got) != 3 {
		t.Fatalf("reads %v, want 3 pieces of at most 4000 bytes", got)
	}
	if held, _ := f.(*coalescing).state(); held != 0 {
		t.Errorf("%d pieces still held after all were read", held)
	}
}

func TestCoalescingFailedFetchLeavesReadsToTheFile(t *testing.T) {
	t.Parallel()
	data := pattern(10000)
	boom := errors.New("store down")
	var mu sync.Mutex
	failed := false
	under := &countingFile{data: data, fail: func(int64) error {
		mu.Lock()
		defer mu.Unlock()
		if !failed {
			failed = true
			return boom
		}
		return nil
	}}
	f := Coalescing(under, DefaultCoalesceOptions)
	defer f.Close()
	Prefetch(context.Background(), f, []Range{{0, 4000}})
	readPieces(t, f, Range{0, 4000}, 4000, data)
	if n := len(under.readLog()); n != 2 {
		t.Fatalf("%d reads, want the failed fetch and one direct read", n)
	}
}

func TestCoalescingNewRowGroupReplacesHeldRanges(t *testing.T) {
	t.Parallel()
	data := pattern(10000)
	under := &countingFile{data: data}
	f := Coalescing(under, DefaultCoalesceOptions)
	defer f.Close()
	Prefetch(context.Background(), f, []Range{{0, 1000}})
	readPieces(t, f, Range{0, 1000}, 1000, data)
	Prefetch(context.Background(), f, []Range{{5000, 1000}})
	readPieces(t, f, Range{5000, 1000}, 1000, data)
	readPieces(t, f, Range{0, 1000}, 1000, data) // no longer held: read directly
	if n := len(under.readLog()); n != 3 {
		t.Fatalf("%d reads, want 3", n)
	}
}

// stuckFile never answers a read until the read's context ends.
type stuckFile struct{ countingFile }

func (f *stuckFile) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func TestCoalescingCloseStopsFetches(t *testing.T) {
	t.Parallel()
	f := Coalescing(&stuckFile{countingFile{data: pattern(100)}}, DefaultCoalesceOptions)
	Prefetch(context.Background(), f, []Range{{0, 50}})
	done := make(chan error, 1)
	go func() { done <- f.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waits for a stuck fetch")
	}
}

func TestCancelableForwardsPrefetch(t *testing.T) {
	t.Parallel()
	data := pattern(1 << 16)
	under := &countingFile{data: data}
	mem := prefetchIO{f: Coalescing(under, DefaultCoalesceOptions)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := Cancelable(mem).Open(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Prefetch(ctx, f, []Range{{0, 30000}})
	readPieces(t, f, Range{0, 30000}, 4096, data)
	if n := len(under.readLog()); n != 1 {
		t.Fatalf("%d reads through Cancelable, want the one fetch", n)
	}
}

type prefetchIO struct{ f File }

func (p prefetchIO) Open(context.Context, string) (File, error) { return p.f, nil }

// ctxCountingFile is a countingFile whose reads take a context.
type ctxCountingFile struct{ countingFile }

func (f *ctxCountingFile) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return f.ReadAt(p, off)
}

func TestCancelableReadsAContextFileInOnePiece(t *testing.T) {
	t.Parallel()
	plain := &countingFile{data: pattern(3 << 20)}
	withCtx := &ctxCountingFile{countingFile{data: pattern(3 << 20)}}
	tests := []struct {
		name   string
		file   File
		under  *countingFile
		pieces int
	}{
		{"a file that ignores contexts is read in chunks it can abandon", Coalescing(plain, DefaultCoalesceOptions), plain, 3},
		{"a file whose reads take a context is read whole", Coalescing(withCtx, DefaultCoalesceOptions), &withCtx.countingFile, 1},
	}
	for _, tc := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		f, err := Cancelable(prefetchIO{f: tc.file}).Open(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 3<<20)
		if n, err := f.ReadAt(p, 0); n != len(p) || err != nil || !bytes.Equal(p, tc.under.data) {
			t.Errorf("%s: ReadAt = %d, %v", tc.name, n, err)
		}
		if n := len(tc.under.readLog()); n != tc.pieces {
			t.Errorf("%s: %d reads of the file, want %d", tc.name, n, tc.pieces)
		}
		f.Close()
		cancel()
	}
}
