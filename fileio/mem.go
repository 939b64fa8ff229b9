package fileio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Mem is an in-memory FileIO for tests. Locations are matched as exact
// strings, whatever their scheme. Like an object store it has no folders of
// its own: ReadDir implies them from the "/" in the stored locations. It is
// safe for concurrent use.
type Mem struct {
	mu    sync.RWMutex
	files map[string][]byte
}

var (
	_ Lister      = (*Mem)(nil)
	_ SizedOpener = (*Mem)(nil)
	_ Creator     = (*Mem)(nil)
	_ Remover     = (*Mem)(nil)

	_ ExclusiveCreator = (*Mem)(nil)
)

// NewMem returns an empty in-memory FileIO.
func NewMem() *Mem { return &Mem{files: map[string][]byte{}} }

// Put stores a copy of data at location, replacing any earlier file there.
// Files already open keep the bytes they were opened with.
func (m *Mem) Put(location string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[location] = bytes.Clone(data)
}

// Open opens the file stored at location, or fails with an error wrapping
// ErrNotFound.
func (m *Mem) Open(ctx context.Context, location string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	m.mu.RLock()
	data, ok := m.files[location]
	m.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("open %s: %w", location, ErrNotFound)
	}
	return &memFile{r: bytes.NewReader(data), size: int64(len(data))}, nil
}

// OpenSized opens the file stored at location trusting size as its
// length, as an object store's reader does with no HEAD request: reads past
// the stored bytes end in io.EOF.
func (m *Mem) OpenSized(ctx context.Context, location string, size int64) (File, error) {
	f, err := m.Open(ctx, location)
	if err != nil {
		return nil, err
	}
	f.(*memFile).size = size
	return f, nil
}

// ReadDir lists the names directly below dir as an object store lists a
// prefix with a "/" delimiter: a stored location dir/a/b implies a folder
// a, one dir/f a file f. A folder with nothing below it lists as empty.
func (m *Mem) ReadDir(ctx context.Context, dir string) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	prefix := strings.TrimRight(dir, "/") + "/"
	m.mu.RLock()
	defer m.mu.RUnlock()
	byName := map[string]Entry{}
	for loc, data := range m.files {
		rest, ok := strings.CutPrefix(loc, prefix)
		if !ok || rest == "" {
			continue
		}
		if name, _, nested := strings.Cut(rest, "/"); nested {
			byName[name] = Entry{Name: name, IsDir: true}
		} else if _, seen := byName[name]; !seen {
			byName[name] = Entry{Name: name, Size: int64(len(data))}
		}
	}
	entries := make([]Entry, 0, len(byName))
	for _, e := range byName {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Create starts a file at location that appears, whole, when the writer is
// closed.
func (m *Mem) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, err)
	}
	return &memWriter{m: m, location: location}, nil
}

// CreateExclusive starts a file at location that appears when the writer
// is closed, unless a file is there by then: Close then fails wrapping
// ErrExist and the other file stays.
func (m *Mem) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("create %s: %w", location, err)
	}
	return &memWriter{m: m, location: location, exclusive: true}, nil
}

// Remove deletes the file at location.
func (m *Mem) Remove(ctx context.Context, location string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove %s: %w", location, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[location]; !ok {
		return fmt.Errorf("remove %s: %w", location, ErrNotFound)
	}
	delete(m.files, location)
	return nil
}

// memWriter buffers a file being created until Close stores it.
type memWriter struct {
	m         *Mem
	location  string
	buf       bytes.Buffer
	closed    bool
	exclusive bool
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, fs.ErrClosed
	}
	return w.buf.Write(p)
}

// Close stores what was written; closing twice is an error.
func (w *memWriter) Close() error {
	if w.closed {
		return fs.ErrClosed
	}
	w.closed = true
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	if _, taken := w.m.files[w.location]; taken && w.exclusive {
		return fmt.Errorf("create %s: %w", w.location, ErrExist)
	}
	w.m.files[w.location] = bytes.Clone(w.buf.Bytes())
	return nil
}

// memFile is an open in-memory file.
type memFile struct {
	r      *bytes.Reader
	size   int64
	closed atomic.Bool
}

// ReadAt reads from the stored bytes; it fails once the file is closed.
func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed.Load() {
		return 0, fs.ErrClosed
	}
	return f.r.ReadAt(p, off)
}

// Size returns the file's length in bytes.
func (f *memFile) Size() int64 { return f.size }

// Close marks the file closed; closing twice is an error, as for *os.File.
func (f *memFile) Close() error {
	if f.closed.Swap(true) {
		return fs.ErrClosed
	}
	return nil
}
