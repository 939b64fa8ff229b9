package fileio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Local is the FileIO for the local file system. It opens bare paths
// (absolute or relative to the working directory) and file URIs:
// file:/abs, file:///abs and file://localhost/abs.
//
// Locations are taken literally, never percent-decoded: Iceberg writers
// record Hadoop path strings, whose escaped partition values ("h=17%3A00")
// are the real names on disk.
type Local struct{}

// NewLocal returns a FileIO for the local file system.
func NewLocal() *Local { return &Local{} }

// Open opens the local file at location. A missing file is an error wrapping
// ErrNotFound; a directory is not a file.
func (*Local) Open(ctx context.Context, location string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	p, err := LocalPath(location)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s: %w", location, ErrNotFound)
		}
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", location, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: is a directory", location)
	}
	return &localFile{File: f, size: st.Size()}, nil
}

// localFile is an open local file; its size is taken once, at open, so that
// a reader sees one consistent length.
type localFile struct {
	*os.File
	size int64
}

// Size returns the file's length in bytes when it was opened.
func (f *localFile) Size() int64 { return f.size }

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
