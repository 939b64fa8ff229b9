package fileiotest

import (
	"context"
	"sync"

	"github.com/iceflight/iceflight/fileio"
)

// Counting is a FileIO that counts how its files are opened: by Open,
// which on an object store costs a HEAD request for the size, or by
// OpenSized, which trusts the size its caller knows. Both open the file
// with the wrapped FileIO; a sized open reports the size it was given, as
// a store that asks for no size would.
type Counting struct {
	inner fileio.FileIO

	mu     sync.Mutex
	opened map[string]int // location → Open calls
	sized  map[string]int // location → OpenSized calls
}

// NewCounting returns a Counting over inner.
func NewCounting(inner fileio.FileIO) *Counting {
	return &Counting{inner: inner, opened: map[string]int{}, sized: map[string]int{}}
}

// Open opens location with the wrapped FileIO and counts it as unsized.
func (c *Counting) Open(ctx context.Context, location string) (fileio.File, error) {
	c.mu.Lock()
	c.opened[location]++
	c.mu.Unlock()
	return c.inner.Open(ctx, location)
}

// OpenSized opens location with the wrapped FileIO and counts it as sized.
func (c *Counting) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	c.mu.Lock()
	c.sized[location]++
	c.mu.Unlock()
	f, err := c.inner.Open(ctx, location)
	if err != nil {
		return nil, err
	}
	return sizedFile{File: f, size: size}, nil
}

// Opens returns how many times each location was opened without a size.
func (c *Counting) Opens() map[string]int { return c.snapshot(c.opened) }

// SizedOpens returns how many times each location was opened with a size.
func (c *Counting) SizedOpens() map[string]int { return c.snapshot(c.sized) }

func (c *Counting) snapshot(m map[string]int) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sizedFile is a file whose size is what its opener said.
type sizedFile struct {
	fileio.File
	size int64
}

func (f sizedFile) Size() int64 { return f.size }

// Unwrap returns the file read through, for fileio.InfoOf.
func (f sizedFile) Unwrap() fileio.File { return f.File }
