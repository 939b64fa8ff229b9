package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/iceflight/iceflight/fileio"
)

// ReadDir lists the objects and common prefixes directly below dir, with
// delimiter "/", page by page. A prefix with nothing under it lists as
// empty, as on every object store.
func (f *FileIO) ReadDir(ctx context.Context, dir string) ([]fileio.Entry, error) {
	l, err := parseLocation(dir)
	if err != nil {
		return nil, fmt.Errorf("list %w", err)
	}
	b, err := f.bucket(l)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	list := fileio.NewListing(l.key)
	q := &storage.Query{Prefix: list.Prefix(), Delimiter: "/"}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Updated"}); err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	it := b.Objects(ctx, q)
	it.PageInfo().MaxSize = f.listPage
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, f.wrap("list", dir, l, err)
		}
		if a.Prefix != "" {
			list.Folder(a.Prefix)
			continue
		}
		list.File(a.Name, a.Size, a.Updated)
	}
	return list.Entries(), nil
}

// Create starts an upload to loc. The object appears only when Close
// returns nil (GCS commits an upload whole); a write cut short by ctx, or
// a Close after a failed Write, leaves nothing behind.
func (f *FileIO) Create(ctx context.Context, loc string) (io.WriteCloser, error) {
	return f.create(ctx, loc, false)
}

func (f *FileIO) create(ctx context.Context, loc string, exclusive bool) (io.WriteCloser, error) {
	l, err := parseLocation(loc)
	if err != nil {
		return nil, fmt.Errorf("create %w", err)
	}
	if l.key == "" || strings.HasSuffix(l.key, "/") {
		return nil, fmt.Errorf("create %s: not an object name", loc)
	}
	obj, err := f.object(l)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", loc, err)
	}
	if exclusive {
		obj = obj.If(storage.Conditions{DoesNotExist: true})
	}
	ctx, cancel := context.WithCancel(ctx)
	return &writer{fio: f, loc: loc, l: l, w: obj.NewWriter(ctx), cancel: cancel, exclusive: exclusive}, nil
}

// writer is an upload in progress.
type writer struct {
	fio    *FileIO
	loc    string
	l      location
	w      *storage.Writer
	cancel context.CancelFunc
	failed bool
	// exclusive uploads with ifGenerationMatch=0: only where no object is.
	exclusive bool
}

// Write buffers or sends p.
func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.failed = true
		return n, w.fio.wrap("write", w.loc, w.l, err)
	}
	return n, nil
}

// Close commits the upload, or abandons it after a failed Write.
func (w *writer) Close() error {
	defer w.cancel()
	if w.failed {
		w.cancel()
		w.w.Close()
		return fmt.Errorf("write %s: abandoned after a failed write", w.loc)
	}
	if err := w.w.Close(); err != nil {
		if w.exclusive && preconditionFailed(err) {
			return fmt.Errorf("write %s: %w", w.loc, fileio.ErrExist)
		}
		return w.fio.wrap("write", w.loc, w.l, err)
	}
	return nil
}

// Remove deletes the object at loc; a missing one wraps fileio.ErrNotFound.
func (f *FileIO) Remove(ctx context.Context, loc string) error {
	l, err := parseLocation(loc)
	if err != nil {
		return fmt.Errorf("remove %w", err)
	}
	obj, err := f.object(l)
	if err != nil {
		return fmt.Errorf("remove %s: %w", loc, err)
	}
	if err := obj.Delete(ctx); err != nil {
		return f.wrap("remove", loc, l, err)
	}
	return nil
}
