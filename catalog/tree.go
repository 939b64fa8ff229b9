package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/iceflight/iceflight/fileio"
)

// tree is the storage a Directory walks to find tables and their current
// metadata files: a local folder or an object-store prefix. Listings and
// reads go through fileio either way; what differs is what a name means.
// On a local disk a name may be a symlink, so every path is resolved before
// it is trusted; on an object store a name is only a string, and a key
// below the warehouse prefix is below the warehouse.
type tree interface {
	// inside returns where p really is and whether it lies within the
	// warehouse (on a local disk: and exists).
	inside(p string) (string, bool)
	// join names name in the folder dir.
	join(dir, name string) string
	// base returns the last segment of p.
	base(p string) string
	// rel returns p, a folder within the warehouse, relative to its root,
	// with "/" between segments.
	rel(p string) (string, bool)
	// scan calls fn with the name of each entry of the folder dir and
	// whether it is a folder, in no set order, until fn returns false.
	scan(ctx context.Context, dir string, fn func(name string, isDir bool) bool) error
	// exists reports whether there is an entry named p, whatever its kind:
	// a metadata file name that is no regular file is still the table's
	// newest version, and reading it then fails naming it.
	exists(ctx context.Context, p string) bool
	// maybeFolder reports whether p could be a folder: false only when it
	// is known not to be one.
	maybeFolder(ctx context.Context, p string) bool
	// readSmall reads the small file p (a version hint).
	readSmall(ctx context.Context, p string) ([]byte, error)
	// stamp tells one version of the file p from another.
	stamp(ctx context.Context, p string) (fileStamp, error)
}

// fileStamp tells one version of a file from another: its size and
// modification time (0 where the storage does not say).
type fileStamp struct {
	size, modNanos int64
}

// hintBytes bounds a version hint file: a real one holds a number or a
// file name.
const hintBytes = 256

// localTree is a warehouse folder on the local disk. Its listings and
// reads go through a fileio.Local confined to the warehouse (and the extra
// roots), which opens through os.Root and never blocks on a FIFO.
type localTree struct {
	root string // absolute, symlinks resolved
	fio  *fileio.Local
}

func (t *localTree) inside(p string) (string, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !fileio.Within(real, t.root) {
		return "", false
	}
	return real, true
}

func (t *localTree) join(dir, name string) string { return filepath.Join(dir, name) }

func (t *localTree) base(p string) string { return filepath.Base(p) }

func (t *localTree) rel(p string) (string, bool) {
	rel, err := filepath.Rel(t.root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// scan reads names only, a batch at a time: a folder of thousands of
// manifests costs no stat of each, and a search stops at what it wants.
func (t *localTree) scan(ctx context.Context, dir string, fn func(string, bool) bool) error {
	return t.fio.ScanDir(ctx, dir, fn)
}

func (t *localTree) exists(_ context.Context, p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func (t *localTree) maybeFolder(_ context.Context, p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func (t *localTree) readSmall(ctx context.Context, p string) ([]byte, error) {
	return readHintFile(ctx, t.fio, p)
}

func (t *localTree) stamp(_ context.Context, p string) (fileStamp, error) {
	st, err := os.Stat(p)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: st.Size(), modNanos: st.ModTime().UnixNano()}, nil
}

// objectTree is a warehouse below a prefix of an object store (or any
// storage named by URI: s3://, gs://, abfss://, hdfs://), read through the
// FileIO that serves its scheme. There are no symlinks to follow, so a
// location is within the warehouse when, cleaned, it lies below the
// warehouse URI (see fileio.Under).
type objectTree struct {
	root string // the warehouse URI, cleaned, without a trailing "/"
	fio  fileio.FileIO
}

// inside takes p as it is written, which is the key the store reads, once
// it lies below the root both so and cleaned (see checkObject).
func (t *objectTree) inside(p string) (string, bool) {
	clean, ok := fileio.CleanLocation(p)
	if !ok || !fileio.Under(clean, t.root) || !mappedBelow(p, t.root) {
		return "", false
	}
	return p, true
}

func (t *objectTree) join(dir, name string) string { return strings.TrimRight(dir, "/") + "/" + name }

func (t *objectTree) base(p string) string {
	p = strings.TrimRight(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

func (t *objectTree) rel(p string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimRight(p, "/"), t.root+"/")
	return rest, ok && rest != ""
}

func (t *objectTree) scan(ctx context.Context, dir string, fn func(string, bool) bool) error {
	entries, err := fileio.ReadDir(ctx, t.fio, dir)
	for _, e := range entries {
		if !fn(e.Name, e.IsDir) {
			break
		}
	}
	return err
}

// listAll returns the entries of the folder dir of t, with names and
// folder marks only, in no set order.
func listAll(ctx context.Context, t tree, dir string) ([]fileio.Entry, error) {
	var out []fileio.Entry
	err := t.scan(ctx, dir, func(name string, isDir bool) bool {
		out = append(out, fileio.Entry{Name: name, IsDir: isDir})
		return true
	})
	return out, err
}

func (t *objectTree) exists(ctx context.Context, p string) bool {
	f, err := t.fio.Open(ctx, p)
	if err == nil {
		f.Close()
		return true
	}
	// Storage that fails otherwise (down, refusing) is not taken for a
	// missing file: the read that follows reports it.
	return !errors.Is(err, fileio.ErrNotFound)
}

// maybeFolder is true: an object store has no folders to ask about, and a
// prefix with nothing below it lists as empty.
func (t *objectTree) maybeFolder(context.Context, string) bool { return true }

func (t *objectTree) readSmall(ctx context.Context, p string) ([]byte, error) {
	return readHintFile(ctx, t.fio, p)
}

// stamp is the object's size: metadata files on object stores are written
// once under a new name, and an Open (a HEAD request) is what a listing
// would cost too.
func (t *objectTree) stamp(ctx context.Context, p string) (fileStamp, error) {
	f, err := t.fio.Open(ctx, p)
	if err != nil {
		return fileStamp{}, err
	}
	defer f.Close()
	return fileStamp{size: f.Size()}, nil
}

// readHintFile reads the hint file at location, of at most hintBytes: a
// larger one is no hint, and is not read.
func readHintFile(ctx context.Context, fio fileio.FileIO, location string) ([]byte, error) {
	return fileio.ReadAll(ctx, fio, location, hintBytes)
}
