package hdfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	hdfsclient "github.com/colinmarc/hdfs/v2"

	"github.com/iceflight/iceflight/fileio"
)

// Open opens the file at location, asking the NameNode for its size.
func (f *FileIO) Open(ctx context.Context, location string) (fileio.File, error) {
	t, err := f.parse(location)
	if err != nil {
		return nil, err
	}
	var r *hdfsclient.FileReader
	var opener *hdfsclient.Client
	err = f.retry(ctx, t, func(c *hdfsclient.Client) error {
		var err error
		r, err = c.Open(t.path)
		opener = c
		return err
	})
	if err != nil {
		return nil, f.wrap("open", location, t, err)
	}
	if r.Stat().IsDir() {
		r.Close()
		return nil, fmt.Errorf("open %s: %w (a folder)", location, fileio.ErrNotRegular)
	}
	hf := &file{fio: f, t: t, location: location, size: r.Stat().Size()}
	hf.info.Note(fileio.Info{ModTime: r.Stat().ModTime()})
	hf.idle = append(hf.idle, pooled{r, opener})
	return hf, nil
}

// OpenSized opens the file at location, trusting size as its length, with
// no call to the NameNode. The library cannot read a file without asking
// the NameNode for its status first (its reader is made only by
// Client.Open, which does so), so that request moves to the first ReadAt:
// a file opened and never read costs none, one read costs the same as
// after Open.
func (f *FileIO) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	t, err := f.parse(location)
	if err != nil {
		return nil, err
	}
	return &file{fio: f, t: t, location: location, size: size}, nil
}

// file is an open HDFS file. The library's reader keeps a position and a
// DataNode connection, so it serves one read at a time: concurrent ReadAt
// calls each take an idle reader or open another one.
type file struct {
	fio      *FileIO
	t        target
	location string
	size     int64
	// info holds the modification time of the first status the NameNode
	// sent; HDFS has no entity tag.
	info fileio.InfoCell

	mu     sync.Mutex
	idle   []pooled
	closed bool
}

// pooled is an idle reader and the client that opened it: a reader of a
// client dropped after a failure is not reused, so that its failure is
// not blamed on the client that replaced it.
type pooled struct {
	r *hdfsclient.FileReader
	c *hdfsclient.Client
}

func (h *file) Size() int64 { return h.size }

// Info returns the file's modification time, once the NameNode sent it.
func (h *file) Info() fileio.Info { return h.info.Info() }

// ReadAt reads len(p) bytes at off, as io.ReaderAt does: fewer only at the
// end of the file, with io.EOF. Reads that fail for a reason that may pass
// are retried on a fresh reader, then fail wrapping fileio.ErrUnavailable.
func (h *file) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", h.location, off)
	}
	if off >= h.size {
		return 0, io.EOF
	}
	want := p
	if rest := h.size - off; int64(len(want)) > rest {
		want = want[:rest]
	}
	var n int
	// ReadAt has no context: a read is bounded by the FileIO's network
	// timeout and its attempts (fileio.Cancelable bounds it by a caller's).
	err := h.fio.retry(context.Background(), h.t, func(c *hdfsclient.Client) error {
		var err error
		n, err = h.readOnce(c, want, off)
		return err
	})
	if err != nil {
		return n, h.fio.wrap("read", h.location, h.t, err)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readOnce reads all of p at off with one reader of the file.
func (h *file) readOnce(c *hdfsclient.Client, p []byte, off int64) (int, error) {
	r, err := h.reader(c)
	if err != nil {
		return 0, err
	}
	// The reader holds the file status the NameNode sent when it was
	// opened: a size given to OpenSized that is wrong shows on the first
	// read, before any byte is handed on.
	h.info.Note(fileio.Info{ModTime: r.Stat().ModTime()})
	if got := r.Stat().Size(); got != h.size {
		h.put(r, c)
		return 0, fmt.Errorf("%w: the file has %d bytes, %d were recorded", fileio.ErrSizeMismatch, got, h.size)
	}
	n, err := r.ReadAt(p, off)
	if err != nil {
		// The reader may hold a broken DataNode connection: drop it.
		r.Close()
		if n < len(p) && errors.Is(err, io.EOF) {
			// The library turns a connection cut mid-block into io.EOF.
			err = io.ErrUnexpectedEOF
		}
		return n, err
	}
	h.put(r, c)
	return n, nil
}

// reader takes an idle reader opened by c, or opens one with c.
func (h *file) reader(c *hdfsclient.Client) (*hdfsclient.FileReader, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, fmt.Errorf("%w: the file is closed", io.ErrClosedPipe)
	}
	for len(h.idle) > 0 {
		p := h.idle[len(h.idle)-1]
		h.idle = h.idle[:len(h.idle)-1]
		if p.c == c {
			h.mu.Unlock()
			return p.r, nil
		}
		p.r.Close()
	}
	h.mu.Unlock()
	return c.Open(h.t.path)
}

// put returns r, opened by c, to the idle readers, or closes it if the
// file is closed.
func (h *file) put(r *hdfsclient.FileReader, c *hdfsclient.Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		r.Close()
		return
	}
	h.idle = append(h.idle, pooled{r, c})
}

// Close closes the file's readers.
func (h *file) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	var errs []error
	for _, p := range h.idle {
		errs = append(errs, p.r.Close())
	}
	h.idle = nil
	return errors.Join(errs...)
}
