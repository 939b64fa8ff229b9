package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sentinel errors of the local file system's confinement.
var (
	// ErrOutsideRoot marks a location that lies, or resolves through
	// symlinks, outside every folder a FileIO may read.
	ErrOutsideRoot = errors.New("lies outside the folders this server may read")
	// ErrNotRegular marks a location that is not a regular file: a folder,
	// FIFO, socket or device, none of which is ever a table's file.
	ErrNotRegular = errors.New("not a regular file")
)

// localRoot is one folder a confined Local may read below.
type localRoot struct {
	given string // absolute and clean, as configured
	real  string // given with symlinks resolved
	root  *os.Root
}

// NewLocalWithin returns a FileIO for the local file system that opens only
// files below the folders roots, after resolving symlinks: a location that
// lies outside them, names them through "..", or reaches out of them by a
// symlink is refused with an error wrapping ErrOutsideRoot. Each file is
// opened through an os.Root, so a symlink swapped in after the check cannot
// lead out of its root either. Close releases the roots.
func NewLocalWithin(roots ...string) (*Local, error) {
	if len(roots) == 0 {
		return nil, errors.New("local file system: no root folders")
	}
	l := &Local{}
	for _, r := range roots {
		given, err := filepath.Abs(r)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(given)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		root, err := os.OpenRoot(real)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		l.roots = append(l.roots, localRoot{given: given, real: real, root: root})
	}
	return l, nil
}

// Roots returns the folders l may read, symlinks resolved; nil when l reads
// anywhere.
func (l *Local) Roots() []string {
	out := make([]string, 0, len(l.roots))
	for _, r := range l.roots {
		out = append(out, r.real)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Close releases the root folders of a confined Local: later opens fail,
// files already open stay readable.
func (l *Local) Close() error {
	var errs []error
	for _, r := range l.roots {
		errs = append(errs, r.root.Close())
	}
	return errors.Join(errs...)
}

// openWithin opens the path p of location through the root that holds it.
// The lexical check comes first so that nothing outside the roots is even
// looked at: whether such a file exists is not the table's business.
func (l *Local) openWithin(location, p string) (*os.File, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	if _, ok := l.rootOf(abs, true); !ok {
		return nil, fmt.Errorf("open %s: %w", location, ErrOutsideRoot)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", location, osError(err))
	}
	r, ok := l.rootOf(real, false)
	if !ok {
		return nil, fmt.Errorf("open %s: %w", location, ErrOutsideRoot)
	}
	rel, err := filepath.Rel(r.real, real)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", location, ErrOutsideRoot)
	}
	f, err := r.root.OpenFile(rel, openFlags, 0)
	if err != nil {
		if escapes(err) {
			// A symlink changed between the check and the open.
			return nil, fmt.Errorf("open %s: %w", location, ErrOutsideRoot)
		}
		return nil, fmt.Errorf("open %s: %w", location, osError(err))
	}
	return f, nil
}

// rootOf returns the root that holds p, an absolute path; lexical also
// accepts the root's path as configured, before symlinks are resolved.
func (l *Local) rootOf(p string, lexical bool) (*localRoot, bool) {
	for i := range l.roots {
		r := &l.roots[i]
		if Within(p, r.real) || lexical && Within(p, r.given) {
			return r, true
		}
	}
	return nil, false
}

// Within reports whether p is the folder dir or lies below it, comparing
// whole segments ("/wh/t2" is not within "/wh/t"). Both must be clean
// absolute paths (as filepath.Abs and filepath.EvalSymlinks return them):
// it is a string comparison, as a plan checks every one of its files.
func Within(p, dir string) bool {
	if !strings.HasPrefix(p, dir) {
		return false
	}
	return len(p) == len(dir) || p[len(dir)] == filepath.Separator || strings.HasSuffix(dir, string(filepath.Separator))
}

// escapes reports whether err is os.Root's refusal of a path that leads out
// of the root. Package os has no exported value for it, only its message.
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent"
}

// osError reduces an error of package os to its cause, so that a message
// names the location as recorded and never the server path it mapped to;
// a missing file becomes ErrNotFound.
func osError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
