// Package fileiotest provides FileIO implementations for tests of what
// iceflight does when storage misbehaves.
package fileiotest

import (
	"context"
	"path"
	"strings"
	"sync"

	"github.com/iceflight/iceflight/fileio"
)

// Blocking is a FileIO that stands for storage that hangs, as a FIFO or a
// hung NFS or FUSE mount does: for the locations it matches, Open (or, with
// OnRead, every ReadAt of the opened file) blocks, deaf to any context, until
// Release. Other locations, and every call after Release, go to the wrapped
// FileIO.
type Blocking struct {
	inner  fileio.FileIO
	match  func(location string) bool
	onRead bool

	entered chan string
	release chan struct{}
	once    sync.Once
}

// BlockingOption configures a Blocking made by NewBlocking.
type BlockingOption func(*Blocking)

// OnRead makes the matched files open normally and block on ReadAt instead.
func OnRead() BlockingOption { return func(b *Blocking) { b.onRead = true } }

// NewBlocking returns a Blocking over inner for the locations match accepts.
func NewBlocking(inner fileio.FileIO, match func(location string) bool, opts ...BlockingOption) *Blocking {
	b := &Blocking{inner: inner, match: match, entered: make(chan string, 1024), release: make(chan struct{})}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Entered receives the location of every call that started to block.
func (b *Blocking) Entered() <-chan string { return b.entered }

// Release unblocks every blocked call and every later one. It is safe to
// call more than once; tests call it in Cleanup so no goroutine outlives
// them.
func (b *Blocking) Release() { b.once.Do(func() { close(b.release) }) }

// block waits for Release, saying first that it does.
func (b *Blocking) block(location string) {
	select {
	case b.entered <- location:
	default:
	}
	<-b.release
}

// Open opens location through the wrapped FileIO, blocking first when it
// matches and blocking is on Open.
func (b *Blocking) Open(ctx context.Context, location string) (fileio.File, error) {
	if !b.match(location) {
		return b.inner.Open(ctx, location)
	}
	if !b.onRead {
		b.block(location)
	}
	f, err := b.inner.Open(ctx, location)
	if err != nil || !b.onRead {
		return f, err
	}
	return &blockingFile{File: f, b: b, location: location}, nil
}

// blockingFile is an open file whose reads block until Release.
type blockingFile struct {
	fileio.File
	b        *Blocking
	location string
}

// ReadAt blocks until Release, then reads.
func (f *blockingFile) ReadAt(p []byte, off int64) (int, error) {
	f.b.block(f.location)
	return f.File.ReadAt(p, off)
}

// Unwrap returns the file read through, for fileio.InfoOf.
func (f *blockingFile) Unwrap() fileio.File { return f.File }

// AllButFirst returns a match for NewBlocking that accepts every location
// kind accepts but the first one it is asked about (and that one again):
// the first of several like files goes through, the others wait for
// Release. It is safe for concurrent use.
func AllButFirst(kind func(location string) bool) func(location string) bool {
	var mu sync.Mutex
	first := ""
	return func(loc string) bool {
		if !kind(loc) {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if first == "" {
			first = loc
		}
		return loc != first
	}
}

// IsManifest reports whether location names a manifest (an Avro file that
// is not a manifest list, whose names start with snap-).
func IsManifest(location string) bool {
	return strings.HasSuffix(location, ".avro") && !strings.Contains(path.Base(location), "snap-")
}
