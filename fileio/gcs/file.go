package gcs

import (
	"context"
	"fmt"
	"io"
	"sync"

	"cloud.google.com/go/storage"

	"github.com/iceflight/iceflight/fileio"
)

// Open opens the object at loc, asking GCS for its size (one metadata
// request). Reads then cost one ranged GET each.
func (f *FileIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	l, err := parseLocation(loc)
	if err != nil {
		return nil, fmt.Errorf("open %w", err)
	}
	obj, err := f.object(l)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	attrs, err := obj.Attrs(ctx)
	if err != nil {
		return nil, f.wrap("open", loc, l, err)
	}
	// Pin the generation read: a file replaced while open cannot mix
	// bytes of two versions.
	fl := &file{fio: f, ctx: ctx, loc: loc, l: l, obj: obj.Generation(attrs.Generation), size: attrs.Size}
	fl.attrs.Do(func() { fl.info = objectInfo(attrs) })
	return fl, nil
}

// OpenSized opens the object at loc trusting size as its length, with no
// request: a task carries its data file's size. A missing object is
// reported by the first read.
func (f *FileIO) OpenSized(ctx context.Context, loc string, size int64) (fileio.File, error) {
	l, err := parseLocation(loc)
	if err != nil {
		return nil, fmt.Errorf("open %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	obj, err := f.object(l)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	return &file{fio: f, ctx: ctx, loc: loc, l: l, obj: obj, size: size}, nil
}

// file is an open GCS object. Reads use the context of the Open that made
// it, since io.ReaderAt takes none; they are safe for concurrent use.
type file struct {
	fio  *FileIO
	ctx  context.Context
	loc  string
	l    location
	obj  *storage.ObjectHandle
	size int64

	// attrs asks the object's attributes once, for info.
	attrs sync.Once
	info  fileio.Info
}

// Info returns the object's update time and entity tag. The client's read
// answers carry no entity tag, so a file opened by size asks the object's
// attributes once, with the context it was opened with; if that fails,
// Info is zero.
func (f *file) Info() fileio.Info {
	f.attrs.Do(func() {
		if attrs, err := f.obj.Attrs(f.ctx); err == nil {
			f.info = objectInfo(attrs)
		}
	})
	return f.info
}

// objectInfo is the Info of an object's attributes.
func objectInfo(attrs *storage.ObjectAttrs) fileio.Info {
	return fileio.Info{ModTime: attrs.Updated, ETag: attrs.Etag}
}

// ReadAt reads len(p) bytes at off with one ranged GET, clipped to the
// file's size; a read that reaches the end returns io.EOF with the bytes.
// The reader's attributes carry the object's length from the answer, so a
// size given to OpenSized that is wrong fails the read with
// fileio.ErrSizeMismatch.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	n, err := fileio.ReadRange(p, off, f.size, func(off, n int64) (io.ReadCloser, int64, error) {
		r, err := f.obj.NewRangeReader(f.ctx, off, n)
		if err != nil {
			return nil, 0, err
		}
		return r, r.Attrs.Size, nil
	})
	if err != nil && err != io.EOF {
		return n, f.fio.wrap("read", f.loc, f.l, err)
	}
	return n, err
}

// Size returns the object's length in bytes.
func (f *file) Size() int64 { return f.size }

// Close releases nothing: every read has closed its own response.
func (f *file) Close() error { return nil }
