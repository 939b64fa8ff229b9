package fileio

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
)

var (
	_ Lister      = (*Local)(nil)
	_ SizedOpener = (*Local)(nil)
)

// ReadDir lists the local folder dir, sorted by name. It opens dir as Open
// opens a file, so a confined Local lists only below its roots (through
// their os.Root, whatever symlinks lead elsewhere), and a FIFO or device in
// a folder's place is refused at once instead of blocking the call.
// Symlinks are listed as they are, not followed: IsDir is false for a
// symlink to a folder, as for os.DirEntry, so a walk over listings stays
// where it started. A missing folder wraps ErrNotFound; errors name dir,
// never the path it resolved to.
func (l *Local) ReadDir(ctx context.Context, dir string) ([]Entry, error) {
	f, err := l.openDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, osError(err))
	}
	entries := make([]Entry, 0, len(des))
	for _, de := range des {
		e := Entry{Name: de.Name(), IsDir: de.IsDir()}
		// Info is an lstat(2) of the entry; one removed since the
		// listing keeps its name, with no size.
		if info, err := de.Info(); err == nil {
			e.ModTime = info.ModTime()
			if info.Mode().IsRegular() {
				e.Size = info.Size()
			}
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// scanBatch is how many names ScanDir reads from the kernel at a time.
const scanBatch = 256

// ScanDir calls fn with the name of each entry of the local folder dir and
// whether it is a folder (a symlink is not), in the order the file system
// keeps them, until fn returns false. Names are read a batch at a time and
// nothing is stat'ed, so a table's metadata folder of many thousand
// manifests is read only as far as the caller needs: the cheap way to ask
// "is there a metadata file here" or to collect names only. dir is opened
// as ReadDir opens it.
func (l *Local) ScanDir(ctx context.Context, dir string, fn func(name string, isDir bool) bool) error {
	f, err := l.openDir(ctx, dir)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		des, err := f.ReadDir(scanBatch)
		for _, de := range des {
			if !fn(de.Name(), de.IsDir()) {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", dir, osError(err))
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("list %s: %w", dir, err)
		}
	}
}

// openDir opens the local folder dir, refusing anything else at once.
func (l *Local) openDir(ctx context.Context, dir string) (*os.File, error) {
	f, err := l.openAny(ctx, dir)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", dir, osError(err))
	}
	if !st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("list %s: not a folder (%s)", dir, fileKind(st.Mode()))
	}
	return f, nil
}

// OpenSized opens location as Open does. A local open asks the kernel for
// the file's type anyway (only regular files are read), and that fstat(2)
// gives the size with it, so the size the caller knows costs nothing to
// check and the file's own length is kept: a file shorter than its
// manifest says then reads short, rather than past its end.
func (l *Local) OpenSized(ctx context.Context, location string, _ int64) (File, error) {
	return l.Open(ctx, location)
}
