package fileio

import (
	"context"
	"fmt"
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
	f, err := l.openAny(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", dir, osError(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("list %s: not a folder (%s)", dir, fileKind(st.Mode()))
	}
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

// OpenSized opens location as Open does. A local open asks the kernel for
// the file's type anyway (only regular files are read), and that fstat(2)
// gives the size with it, so the size the caller knows costs nothing to
// check and the file's own length is kept: a file shorter than its
// manifest says then reads short, rather than past its end.
func (l *Local) OpenSized(ctx context.Context, location string, _ int64) (File, error) {
	return l.Open(ctx, location)
}
