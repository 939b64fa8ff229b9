package fileio

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Cancelable returns a FileIO that gives up on storage that hangs: its Open,
// and ReadAt on the files it opens, return the error of the Open's context
// as soon as that context is done, even while the underlying call is stuck
// (a FIFO, a hung NFS or FUSE mount). A blocking system call cannot be
// interrupted, so the call runs in a goroutine of its own that the caller
// abandons; the goroutine ends, and closes what it opened, whenever the call
// returns. A call's slot and memory are thus never held by its storage.
//
// Reads go through buffers of the wrapper's own, copied out once a read
// completes, so an abandoned read never writes into memory its caller has
// since released. An Open whose context can never be done (Background)
// costs nothing extra.
func Cancelable(fio FileIO) FileIO {
	if _, ok := fio.(*cancelable); ok {
		return fio
	}
	return &cancelable{fio: fio}
}

// cancelable always has the optional methods of a FileIO (Lister,
// SizedOpener, Creator, Remover) and forwards each to the wrapped FileIO,
// which answers ErrUnsupportedScheme for what it cannot do: a type per
// combination of capabilities would be sixteen types.
type cancelable struct{ fio FileIO }

var (
	_ Lister      = (*cancelable)(nil)
	_ SizedOpener = (*cancelable)(nil)
	_ Creator     = (*cancelable)(nil)
	_ Remover     = (*cancelable)(nil)
)

// Await runs fn in a goroutine of its own and returns its results, or ctx's
// error as soon as ctx is done; fn then runs on, unobserved, and its results
// are dropped. It is for calls that block beyond a caller's reach, such as
// file system calls on a hung mount; fn must not write anything the caller
// still uses after Await returns.
func Await[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	var zero T
	if ctx.Done() == nil {
		return fn()
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Open opens location through the wrapped FileIO, giving up when ctx is done.
func (c *cancelable) Open(ctx context.Context, location string) (File, error) {
	return c.open(ctx, location, func() (File, error) { return c.fio.Open(ctx, location) })
}

// OpenSized opens location through the wrapped FileIO trusting size where
// it can (see the package's OpenSized), giving up when ctx is done.
func (c *cancelable) OpenSized(ctx context.Context, location string, size int64) (File, error) {
	return c.open(ctx, location, func() (File, error) { return OpenSized(ctx, c.fio, location, size) })
}

// ReadDir lists dir through the wrapped FileIO, giving up when ctx is done;
// it wraps ErrUnsupportedScheme when that FileIO cannot list.
func (c *cancelable) ReadDir(ctx context.Context, dir string) ([]Entry, error) {
	entries, err := Await(ctx, func() ([]Entry, error) { return ReadDir(ctx, c.fio, dir) })
	if err != nil && err == ctx.Err() {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	return entries, err
}

// Create starts a file through the wrapped FileIO, which must be a Creator.
// It is not abandoned: a writer left behind by a caller that gave up would
// be neither closed nor known to be discarded.
func (c *cancelable) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	return Create(ctx, c.fio, location)
}

// CreateExclusive starts a file, only where none exists, through the
// wrapped FileIO, which must be an ExclusiveCreator; like Create it is not
// abandoned.
func (c *cancelable) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	return CreateExclusive(ctx, c.fio, location)
}

// Remove deletes location through the wrapped FileIO, which must be a
// Remover, giving up when ctx is done.
func (c *cancelable) Remove(ctx context.Context, location string) error {
	_, err := Await(ctx, func() (struct{}, error) { return struct{}{}, Remove(ctx, c.fio, location) })
	if err != nil && err == ctx.Err() {
		return fmt.Errorf("remove %s: %w", location, err)
	}
	return err
}

// open runs fn, which opens location, giving up when ctx is done.
func (c *cancelable) open(ctx context.Context, location string, fn func() (File, error)) (File, error) {
	if ctx.Done() == nil {
		return fn()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	type result struct {
		f   File
		err error
	}
	// Unbuffered: a file either reaches the caller or, once the caller
	// has gone, is closed by the goroutine that opened it.
	ch := make(chan result)
	go func() {
		f, err := fn()
		select {
		case ch <- result{f, err}:
		case <-ctx.Done():
			if f != nil {
				f.Close()
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return &cancelableFile{f: r.f, ctx: ctx, location: location}, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("open %s: %w", location, ctx.Err())
	}
}

// cancelableFile is a File whose reads give up when the context it was
// opened with is done.
type cancelableFile struct {
	f        File
	ctx      context.Context
	location string
	// abandoned is set once a read was left running; the file is then
	// closed without waiting for it.
	abandoned atomic.Bool
}

// readChunk bounds each read handed to a goroutine, and so the buffers the
// wrapper keeps.
const readChunk = 1 << 20

// chunks holds the read buffers, each of readChunk bytes.
var chunks = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// ReadAt reads len(p) bytes at off in pieces of at most readChunk bytes,
// each in a goroutine that the call abandons when the file's context is done.
// A file whose reads end with their context (a ContextReaderAt: an object
// store's) is read directly, in one piece: on a store each piece would be a
// request of its own.
func (f *cancelableFile) ReadAt(p []byte, off int64) (int, error) {
	if cr, ok := f.f.(ContextReaderAt); ok {
		return cr.ReadAtContext(f.ctx, p, off)
	}
	type result struct {
		n   int
		err error
	}
	n := 0
	for n < len(p) {
		if err := f.ctx.Err(); err != nil {
			return n, fmt.Errorf("read %s: %w", f.location, err)
		}
		want := min(len(p)-n, readChunk)
		bp := chunks.Get().(*[]byte)
		buf := (*bp)[:want]
		ch := make(chan result)
		at := off + int64(n)
		go func() {
			m, err := f.f.ReadAt(buf, at)
			select {
			case ch <- result{m, err}:
			case <-f.ctx.Done():
				// Nobody copies buf any more; it returns to the pool.
				chunks.Put(bp)
			}
		}()
		select {
		case r := <-ch:
			copy(p[n:], buf[:r.n])
			chunks.Put(bp)
			n += r.n
			if r.err != nil || r.n < want {
				return n, r.err
			}
		case <-f.ctx.Done():
			f.abandoned.Store(true)
			return n, fmt.Errorf("read %s: %w", f.location, f.ctx.Err())
		}
	}
	return n, nil
}

// Size returns the wrapped file's size.
func (f *cancelableFile) Size() int64 { return f.f.Size() }

// Unwrap returns the wrapped file.
func (f *cancelableFile) Unwrap() File { return f.f }

// Close closes the wrapped file; after an abandoned read it does so in the
// background, as closing may wait for the read.
func (f *cancelableFile) Close() error {
	if f.abandoned.Load() {
		go f.f.Close()
		return nil
	}
	return f.f.Close()
}
