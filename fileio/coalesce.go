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
type CoalesceOptions struct {
	// MaxGap is the largest gap between two ranges fetched as one.
	MaxGap int64
	// MaxLength is the longest range that merging may make.
	MaxLength int64
	// ReadAhead is the most bytes held at once; ranges past it, in offset
	// order, are not fetched ahead but read when asked.
	ReadAhead int64
}

// DefaultCoalesceOptions suit an object store: a gap under 1 MiB costs less
// to read than a second request's round trip, and 64 MiB ahead covers the
// projected columns of a typical row group per open file.
var DefaultCoalesceOptions = CoalesceOptions{MaxGap: 1 << 20, MaxLength: 64 << 20, ReadAhead: 64 << 20}

// Coalescing returns f made a Prefetcher: Prefetch merges the announced
// ranges (Coalesce) and fetches each merged range with one ReadAt of f (one
// ranged GET on an object store) in the background, and ReadAt serves what
// they hold, waiting for a fetch under way. Reads outside the held ranges
// go to f. Close stops the fetches, waits for them and then closes f.
func Coalescing(f File, opts CoalesceOptions) File {
	if _, ok := f.(*coalescing); ok {
		return f
	}
	return &coalescing{File: f, opts: opts}
}

type coalescing struct {
	File
	opts CoalesceOptions

	mu     sync.Mutex
	held   []*block // sorted by offset, not overlapping
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// block is one merged range, fetched by one goroutine; data and err are
// set before done is closed and never change afterwards.
type block struct {
	Range
	done chan struct{}
	data []byte
	err  error
}

// Prefetch replaces the held ranges with ranges, coalesced, and starts
// fetching them.
func (c *coalescing) Prefetch(ctx context.Context, ranges []Range) {
	merged := Coalesce(ranges, c.opts.MaxGap, c.opts.MaxLength)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
	fctx, cancel := context.WithCancel(ctx)
	c.cancel = cancel
	c.held = c.held[:0]
	budget := c.opts.ReadAhead
	for _, r := range merged {
		if r.End() > c.Size() || r.Length > budget {
			continue
		}
		budget -= r.Length
		b := &block{Range: r, done: make(chan struct{})}
		c.held = append(c.held, b)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer close(b.done)
			buf := make([]byte, b.Length)
			n, err := readAtContext(fctx, c.File, buf, b.Offset)
			if n < len(buf) && (err == nil || errors.Is(err, io.EOF)) {
				err = io.ErrUnexpectedEOF
			}
			b.data, b.err = buf[:n], err
		}()
	}
}

// ContextReaderAt is a File whose reads can be given a context of their
// own, shorter than the one it was opened with; a Coalescing file fetches
// through it so that Close and the next Prefetch stop fetches under way.
type ContextReaderAt interface {
	ReadAtContext(ctx context.Context, p []byte, off int64) (int, error)
}

func readAtContext(ctx context.Context, f File, p []byte, off int64) (int, error) {
	if cr, ok := f.(ContextReaderAt); ok {
		return cr.ReadAtContext(ctx, p, off)
	}
	return f.ReadAt(p, off)
}

// ReadAt copies from a held range that covers all of p, once it is fetched,
// and otherwise reads f.
func (c *coalescing) ReadAt(p []byte, off int64) (int, error) {
	if b := c.covering(off, int64(len(p))); b != nil {
		<-b.done
		if b.err == nil {
			return copy(p, b.data[off-b.Offset:]), nil
		}
	}
	return c.File.ReadAt(p, off)
}

// covering returns the held block that holds [off, off+n), or nil.
func (c *coalescing) covering(off, n int64) *block {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, _ := slices.BinarySearchFunc(c.held, off, func(b *block, off int64) int {
		return cmp.Compare(b.End(), off+1)
	})
	if i < len(c.held) && c.held[i].Offset <= off && off+n <= c.held[i].End() {
		return c.held[i]
	}
	return nil
}

// Close stops the fetches under way, waits for them and closes the file.
func (c *coalescing) Close() error {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.held = nil
	c.mu.Unlock()
	c.wg.Wait()
	return c.File.Close()
}
