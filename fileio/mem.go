package fileio

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
)

// Mem is an in-memory FileIO for tests. Locations are matched as exact
// strings, whatever their scheme. It is safe for concurrent use.
type Mem struct {
	mu    sync.RWMutex
	files map[string][]byte
}

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
