package fileio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

var (
	_ Creator          = (*Local)(nil)
	_ ExclusiveCreator = (*Local)(nil)
	_ Remover          = (*Local)(nil)
)

// localFS is where a Local writes: through the os.Root of one of its roots
// (names relative to it, which the kernel keeps from leading out of it by
// a symlink or ".."), or the whole file system (absolute names).
type localFS struct {
	root *os.Root
}

func (f localFS) mkdirAll(name string) error {
	if f.root != nil {
		return f.root.MkdirAll(name, 0o755)
	}
	return os.MkdirAll(name, 0o755)
}

func (f localFS) create(name string) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if f.root != nil {
		return f.root.OpenFile(name, flags, 0o644)
	}
	return os.OpenFile(name, flags, 0o644)
}

func (f localFS) rename(from, to string) error {
	if f.root != nil {
		return f.root.Rename(from, to)
	}
	return os.Rename(from, to)
}

func (f localFS) link(from, to string) error {
	if f.root != nil {
		return f.root.Link(from, to)
	}
	return os.Link(from, to)
}

func (f localFS) remove(name string) error {
	if f.root != nil {
		return f.root.Remove(name)
	}
	return os.Remove(name)
}

// writePath returns where a write to location goes: the file system and
// the name within it. A confined Local takes the location lexically below
// one of its roots (as configured or resolved) and refuses any other with
// ErrOutsideRoot; the os.Root then refuses a symlink leading out.
func (l *Local) writePath(op, location string) (localFS, string, error) {
	p, err := LocalPath(location)
	if err != nil {
		return localFS{}, "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return localFS{}, "", fmt.Errorf("%s %s: %w", op, location, err)
	}
	if len(l.roots) == 0 {
		return localFS{}, abs, nil
	}
	for i := range l.roots {
		r := &l.roots[i]
		for _, base := range []string{r.real, r.given} {
			if !Within(abs, base) || abs == base {
				continue
			}
			rel, err := filepath.Rel(base, abs)
			if err != nil {
				continue
			}
			return localFS{root: r.root}, rel, nil
		}
	}
	return localFS{}, "", fmt.Errorf("%s %s: %w", op, location, ErrOutsideRoot)
}

// Create starts a file at location, creating its folders as needed. The
// bytes go to a hidden temporary file in the same folder, renamed over
// location when Close succeeds, so a reader never sees half a file and a
// write cut short (an error, the context ending) leaves nothing behind. A
// confined Local writes only below its roots (ErrOutsideRoot otherwise).
func (l *Local) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	return l.create(ctx, location, false)
}

// CreateExclusive starts a file at location as Create does, but Close
// publishes it with a hard link, which the kernel refuses when a file is
// already there: then Close fails wrapping ErrExist and the other file
// stays. Two writers racing for one name get one winner, as the commit of
// a directory catalog needs.
func (l *Local) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	return l.create(ctx, location, true)
}

func (l *Local) create(ctx context.Context, location string, exclusive bool) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, err)
	}
	fsys, name, err := l.writePath("create", location)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(name)
	if err := fsys.mkdirAll(dir); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, localWriteError(err))
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(name)+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := fsys.create(tmp)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", location, localWriteError(err))
	}
	return &localWriter{ctx: ctx, fs: fsys, f: f, tmp: tmp, name: name, location: location, exclusive: exclusive}, nil
}

// Remove deletes the file at location (or an empty folder, as a purge
// tidies up after the files). A missing one wraps ErrNotFound; a confined
// Local deletes only below its roots.
func (l *Local) Remove(ctx context.Context, location string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove %s: %w", location, err)
	}
	fsys, name, err := l.writePath("remove", location)
	if err != nil {
		return err
	}
	if err := fsys.remove(name); err != nil {
		return fmt.Errorf("remove %s: %w", location, localWriteError(err))
	}
	return nil
}

// localWriteError is osError, with os.Root's refusal of a path that leads
// out of its root reported as ErrOutsideRoot.
func localWriteError(err error) error {
	// os.Root.MkdirAll reports the escape in an error of its own type.
	if escapes(err) || strings.HasSuffix(err.Error(), "path escapes from parent") {
		return ErrOutsideRoot
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return osError(err)
}

// localWriter writes a temporary file and publishes it on Close.
type localWriter struct {
	ctx       context.Context
	fs        localFS
	f         *os.File
	tmp, name string
	location  string
	exclusive bool
	done      bool
}

// Write appends p to the temporary file; once the context has ended it
// discards the file and fails.
func (w *localWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, fs.ErrClosed
	}
	if err := w.ctx.Err(); err != nil {
		w.abort()
		return 0, fmt.Errorf("write %s: %w", w.location, err)
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.abort()
		return n, fmt.Errorf("write %s: %w", w.location, osError(err))
	}
	return n, nil
}

// abort drops the temporary file; the location is untouched.
func (w *localWriter) abort() {
	w.done = true
	w.f.Close()
	w.fs.remove(w.tmp)
}

// Close syncs the temporary file (a published file must survive a crash)
// and puts it at the location: a rename, or for an exclusive create a hard
// link that fails when the name is taken.
func (w *localWriter) Close() error {
	if w.done {
		return fs.ErrClosed
	}
	if err := w.ctx.Err(); err != nil {
		w.abort()
		return fmt.Errorf("create %s: %w", w.location, err)
	}
	w.done = true
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.fs.remove(w.tmp)
		return fmt.Errorf("create %s: %w", w.location, osError(err))
	}
	if !w.exclusive {
		if err := w.fs.rename(w.tmp, w.name); err != nil {
			w.fs.remove(w.tmp)
			return fmt.Errorf("create %s: %w", w.location, localWriteError(err))
		}
		return nil
	}
	err = w.fs.link(w.tmp, w.name)
	w.fs.remove(w.tmp)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", w.location, ErrExist)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", w.location, localWriteError(err))
	}
	return nil
}
