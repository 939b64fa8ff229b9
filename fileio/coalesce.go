package fileio

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"sync"
)

// Range is a byte range of a file: Length bytes from Offset.
type Range struct {
	Offset, Length int64
}

// End returns the offset just past r.
func (r Range) End() int64 { return r.Offset + r.Length }

// Coalesce sorts ranges and merges those that overlap or lie at most maxGap
// bytes apart, as long as a merged range stays within maxLength bytes (a
// single range longer than that is kept whole). On an object store every
// range costs a request and its round trip, while the bytes of a small gap
// cost next to nothing, so reading the gap beats asking twice. Empty ranges
// are dropped; ranges is not modified.
func Coalesce(ranges []Range, maxGap, maxLength int64) []Range {
	rs := make([]Range, 0, len(ranges))
	for _, r := range ranges {
		if r.Length > 0 && r.Offset >= 0 {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.Offset, b.Offset) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			end := max(last.End(), r.End())
			if r.Offset-last.End() <= maxGap && end-last.Offset <= maxLength {
				last.Length = end - last.Offset
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// Prefetcher is a File that can be told which ranges are about to be read,
// so it can fetch them together and ahead of the reads. Readers that know
// their access pattern (the column chunks of a Parquet row group) announce
// it; a file that is not a Prefetcher is simply read as asked.
type Prefetcher interface {
	// Prefetch starts fetching ranges, replacing what an earlier call held.
	// It returns at once; a failed fetch only means that the reads of its
	// bytes go to the file itself and meet the failure there.
	Prefetch(ctx context.Context, ranges []Range)
}

// Prefetch announces ranges to f when f is a Prefetcher, and does nothing
// otherwise.
func Prefetch(ctx context.Context, f File, ranges []Range) {
	if p, ok := f.(Prefetcher); ok {
		p.Prefetch(ctx, ranges)
	}
}

// Prefetch forwards ranges to the wrapped file, so that wrapping a remote
// file in Cancelable keeps its coalescing.
func (f *cancelableFile) Prefetch(ctx context.Context, ranges []Range) {
	Prefetch(ctx, f.f, ranges)
}

// CoalesceOptions bound what a Coalescing file fetches ahead.
// CoalesceOptions bound what a Coalescing file fetches ahead.
type CoalesceOptions struct {
	// MaxGap is the largest gap between two ranges fetched as one.
	MaxGap int64
	// MaxLength is the longest range one fetch asks for; longer announced
	// ranges are fetched in pieces of this length.
	MaxLength int64
	// ReadAhead bounds the bytes fetched ahead of the reads and not yet
	// read. Further pieces are fetched as earlier ones are read, or when a
	// read reaches them first.
	ReadAhead int64
}

// DefaultCoalesceOptions suit an object store: a gap under 1 MiB costs less
// to read than a second request's round trip; 8 MiB pieces keep a request
// long enough to reach the store's throughput and short enough to retry;
// 32 MiB ahead per open file covers the projected chunks of most row
// groups at once while bounding a reader's memory.
var DefaultCoalesceOptions = CoalesceOptions{MaxGap: 1 << 20, MaxLength: 8 << 20, ReadAhead: 32 << 20}

// Coalescing returns f made a Prefetcher: Prefetch splits the announced
// ranges into pieces of at most MaxLength, merges neighbours (Coalesce) and
// fetches each merged range with one ReadAt of f (one ranged GET on an
// object store) in the background, in offset order, as far ahead as
// ReadAhead allows; a range is dropped once its announced bytes were read,
// which makes room for the next. ReadAt serves what the ranges hold,
// waiting for a fetch under way or starting the fetch of a range not yet
// started; reads outside them go to f. Close stops the fetches, waits for
// them and then closes f.
func Coalescing(f File, opts CoalesceOptions) File {
	switch f.(type) {
	case *coalescing, coalescingContext:
		return f
	}
	c := &coalescing{File: f, opts: opts}
	if _, ok := f.(ContextReaderAt); ok {
		return coalescingContext{c}
	}
	return c
}

type coalescing struct {
	File
	opts CoalesceOptions

	mu     sync.Mutex
	held   []*block // sorted by offset, not overlapping
	ahead  int64    // bytes of started blocks still held
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Unwrap returns the file read through.
func (c *coalescing) Unwrap() File { return c.File }

// block is one merged range, fetched by one goroutine; data and err are
// set before done is closed and never change afterwards.
type block struct {
	Range
	// need counts the announced bytes of the range not read yet; at zero
	// the block is dropped. It and started are guarded by the file's mu.
	need    int64
	started bool
	done    chan struct{}
	data    []byte
	err     error
}

// Prefetch replaces the held ranges with ranges, split and coalesced, and
// starts fetching as many as the read-ahead bound allows.
func (c *coalescing) Prefetch(ctx context.Context, ranges []Range) {
	var pieces []Range
	for _, r := range ranges {
		if r.Offset < 0 || r.Length <= 0 || r.End() > c.Size() {
			continue
		}
		for off := r.Offset; off < r.End(); off += c.opts.MaxLength {
			pieces = append(pieces, Range{off, min(c.opts.MaxLength, r.End()-off)})
		}
	}
	// The union of the pieces tells how many bytes of each merged range
	// will be read.
	union := Coalesce(pieces, 0, c.Size())
	merged := Coalesce(pieces, c.opts.MaxGap, c.opts.MaxLength)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.held, c.ahead = nil, 0
	u := 0
	for _, r := range merged {
		b := &block{Range: r, done: make(chan struct{})}
		// A stretch of the union may straddle two merged ranges (cut at
		// MaxLength): count what overlaps.
		for ; u < len(union) && union[u].End() <= r.Offset; u++ {
		}
		for v := u; v < len(union) && union[v].Offset < r.End(); v++ {
			b.need += min(union[v].End(), r.End()) - max(union[v].Offset, r.Offset)
		}
		c.held = append(c.held, b)
	}
	c.fillLocked()
}

// fillLocked starts blocks in offset order while the read-ahead bound
// allows, and always one when none is under way.
func (c *coalescing) fillLocked() {
	for _, b := range c.held {
		if b.started {
			continue
		}
		if c.ahead > 0 && c.ahead+b.Length > c.opts.ReadAhead {
			return
		}
		c.startLocked(b)
	}
}

// startLocked starts fetching b.
func (c *coalescing) startLocked(b *block) {
	b.started = true
	c.ahead += b.Length
	ctx := c.ctx
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(b.done)
		buf := make([]byte, b.Length)
		n, err := readAtContext(ctx, c.File, buf, b.Offset)
		if n < len(buf) && (err == nil || errors.Is(err, io.EOF)) {
			err = io.ErrUnexpectedEOF
		}
		b.data, b.err = buf[:n], err
	}()
}

// ContextReaderAt is a File whose reads can be given a context of their
// own, shorter than the one it was opened with, and end when it does; a
// Coalescing file fetches through it so that Close and the next Prefetch
// stop fetches under way, and Cancelable hands it each read whole.
type ContextReaderAt interface {
	ReadAtContext(ctx context.Context, p []byte, off int64) (int, error)
}

func readAtContext(ctx context.Context, f File, p []byte, off int64) (int, error) {
	if cr, ok := f.(ContextReaderAt); ok {
		return cr.ReadAtContext(ctx, p, off)
	}
	return f.ReadAt(p, off)
}

// ReadAt copies from a held range that covers all of p, once it is fetched
// (starting the fetch if the read comes first), and otherwise reads f.
func (c *coalescing) ReadAt(p []byte, off int64) (int, error) {
	return c.read(context.Background(), p, off, c.File.ReadAt)
}

// read is ReadAt, waiting for a fetch no longer than ctx lasts and reading
// with direct what no held range covers.
func (c *coalescing) read(ctx context.Context, p []byte, off int64, direct func([]byte, int64) (int, error)) (int, error) {
	b := c.claim(off, int64(len(p)))
	if b == nil {
		return direct(p, off)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if b.err != nil {
		return direct(p, off)
	}
	n := copy(p, b.data[off-b.Offset:])
	c.consumed(b, int64(n))
	return n, nil
}

// coalescingContext is a Coalescing file over a ContextReaderAt, and so
// one itself: Cancelable then hands it its reads whole, without chunks.
type coalescingContext struct{ *coalescing }

// ReadAtContext is ReadAt with reads of the file given ctx.
func (c coalescingContext) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	return c.read(ctx, p, off, func(p []byte, off int64) (int, error) {
		return c.File.(ContextReaderAt).ReadAtContext(ctx, p, off)
	})
}

// claim returns the held block that holds [off, off+n), started, or nil.
func (c *coalescing) claim(off, n int64) *block {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, _ := slices.BinarySearchFunc(c.held, off, func(b *block, off int64) int {
		return cmp.Compare(b.End(), off+1)
	})
	if i == len(c.held) || c.held[i].Offset > off || off+n > c.held[i].End() {
		return nil
	}
	b := c.held[i]
	if !b.started {
		c.startLocked(b)
	}
	return b
}

// consumed counts n bytes of b as read. Once all its announced bytes are,
// b is dropped (a read still copying from it keeps its data alive) and the
// next blocks may start.
func (c *coalescing) consumed(b *block, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b.need <= 0 {
		return
	}
	if b.need -= n; b.need > 0 {
		return
	}
	if i := slices.Index(c.held, b); i >= 0 {
		c.held = slices.Delete(c.held, i, i+1)
		c.ahead -= b.Length
		c.fillLocked()
	}
}

// Close stops the fetches under way, waits for them and closes the file.
func (c *coalescing) Close() error {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.held, c.ahead = nil, 0
	c.mu.Unlock()
	c.wg.Wait()
	return c.File.Close()
}
