package fileio

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Local is the FileIO for the local file system. It opens bare paths
// (absolute or relative to the working directory) and file URIs:
// file:/abs, file:///abs and file://localhost/abs.
//
// Locations are taken literally, never percent-decoded: Iceberg writers
// record Hadoop path strings, whose escaped partition values ("h=17%3A00")
// are the real names on disk.
//
// A Local made by NewLocal reads anywhere the process may; one made by
// NewLocalWithin only below its root folders.
type Local struct {
	roots []localRoot
}

// NewLocal returns a FileIO for the whole local file system.
func NewLocal() *Local { return &Local{} }

// openFlags open a file for reading without waiting: a FIFO or a device
// would otherwise block open(2) until a writer comes, holding the call
// forever. On a regular file O_NONBLOCK changes nothing.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// Open opens the local file at location. A missing file is an error wrapping
// ErrNotFound; anything but a regular file (a folder, FIFO, socket or
// device) is refused with ErrNotRegular, and a confined Local refuses
// locations outside its roots with ErrOutsideRoot. Errors name location,
// never the path it resolved to.
func (l *Local) Open(ctx context.Context, location string) (File, error) {
	f, err := l.openAny(ctx, location)
	if err != nil {
		return nil, err
	}
	// The type is taken from the open file, not the path, so that nothing
	// can be swapped in between the check and the reads.
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", location, osError(err))
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w (%s)", location, ErrNotRegular, fileKind(st.Mode()))
	}
	return &localFile{File: f, size: st.Size(), mod: st.ModTime()}, nil
}

// openAny opens whatever is at location, a file or a folder, without
// blocking on a FIFO and, in a confined Local, only within its roots.
func (l *Local) openAny(ctx context.Context, location string) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	p, err := LocalPath(location)
	if err != nil {
		return nil, err
	}
	if len(l.roots) > 0 {
		return l.openWithin(location, p)
	}
	f, err := os.OpenFile(p, openFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", location, osError(err))
	}
	return f, nil
}

// fileKind names the type of a file that is not regular, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// localFile is an open local file; its size is taken once, at open, so that
// a reader sees one consistent length.
type localFile struct {
	*os.File
	size int64
	mod  time.Time
}

// Size returns the file's length in bytes when it was opened.
func (f *localFile) Size() int64 { return f.size }

// Info returns the file's modification time when it was opened; a local
// disk has no entity tag.
func (f *localFile) Info() Info { return Info{ModTime: f.mod} }

// LocalPath converts a local location (a bare path or a file URI with an
// empty or "localhost" host) to a path of the operating system. Any other
// URI is an error wrapping ErrUnsupportedScheme.
func LocalPath(location string) (string, error) {
	scheme := Scheme(location)
	switch scheme {
	case "":
		return location, nil
	case "file":
	default:
		return "", fmt.Errorf("open %s: %w %q for a local path", location, ErrUnsupportedScheme, scheme)
	}
	rest := location[len("file:"):]
	if strings.HasPrefix(rest, "//") {
		host, p, _ := strings.Cut(rest[2:], "/")
		if host != "" && !strings.EqualFold(host, "localhost") {
			return "", fmt.Errorf("open %s: %w: file URI names remote host %q", location, ErrUnsupportedScheme, host)
		}
		rest = "/" + p
	}
	if rest == "" {
		return "", fmt.Errorf("open %s: file URI has no path", location)
	}
	// file:///C:/x names the Windows path C:/x.
	if runtime.GOOS == "windows" && len(rest) >= 3 && rest[0] == '/' && rest[2] == ':' {
		rest = rest[1:]
	}
	return filepath.FromSlash(rest), nil
}
