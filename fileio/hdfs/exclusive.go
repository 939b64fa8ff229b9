package hdfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	hdfsclient "github.com/colinmarc/hdfs/v2"

	"github.com/iceflight/iceflight/fileio"
)

var _ fileio.ExclusiveCreator = (*FileIO)(nil)

// CreateExclusive starts a file at location that Close creates only where
// none exists. colinmarc/hdfs renames with overwrite (rename2 with
// OverwriteDest), so the temporary-file-and-rename of Create cannot
// refuse a file that is there; instead Close creates location itself
// without the OVERWRITE flag, which the NameNode refuses with
// FileAlreadyExistsException (then Close fails wrapping fileio.ErrExist),
// and writes the bytes it buffered. The file is visible, growing, while
// that last write runs: a reader that opens it then reads short and fails
// its parse, and loads again. Exclusive files are metadata files, small
// enough to buffer.
func (f *FileIO) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	t, err := f.parse(location)
	if err != nil {
		return nil, err
	}
	return &exclusiveWriter{ctx: ctx, fio: f, t: t, location: location}, nil
}

// exclusiveWriter buffers a file until Close creates it.
type exclusiveWriter struct {
	ctx      context.Context
	fio      *FileIO
	t        target
	location string
	buf      bytes.Buffer
	done     bool
}

func (w *exclusiveWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("write %s: %w", w.location, fs.ErrClosed)
	}
	if err := w.ctx.Err(); err != nil {
		w.done = true
		return 0, fmt.Errorf("write %s: %w", w.location, err)
	}
	return w.buf.Write(p)
}

// Close creates the file, failing with fileio.ErrExist when one is there,
// and writes it whole; a write that fails after the create removes the
// file again.
func (w *exclusiveWriter) Close() error {
	if w.done {
		return fs.ErrClosed
	}
	w.done = true
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", w.location, err)
	}
	var fw *hdfsclient.FileWriter
	var client *hdfsclient.Client
	err := w.fio.retry(w.ctx, w.t, func(c *hdfsclient.Client) error {
		if err := c.MkdirAll(path.Dir(w.t.path), 0o755); err != nil {
			return err
		}
		var err error
		fw, err = c.Create(w.t.path)
		client = c
		return err
	})
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", w.location, fileio.ErrExist)
	}
	if err != nil {
		return w.fio.wrap("create", w.location, w.t, err)
	}
	// The ordinary writer's completion waits out block replication.
	inner := &writer{ctx: w.ctx, fio: w.fio, t: w.t, c: client, w: fw, tmp: w.t.path, location: w.location}
	if _, err := fw.Write(w.buf.Bytes()); err != nil {
		inner.abort()
		return w.fio.wrap("write", w.location, w.t, err)
	}
	if err := inner.complete(); err != nil {
		inner.removeTmp()
		return w.fio.wrap("write", w.location, w.t, err)
	}
	return nil
}
