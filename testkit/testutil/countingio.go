package testutil

import (
	"context"
	"sync/atomic"

	"github.com/iceflight/iceflight/fileio"
)

// CountingIO is a FileIO that counts opens, reads and files still open,
// to prove what a request did or did not touch.
type CountingIO struct {
	Base fileio.FileIO
	// Opens, Reads and InUse count files opened, ReadAt calls and files
	// not yet closed.
	Opens, Reads, InUse atomic.Int64
	// Fault, when set, may fail an open (read < 0) or the read-th ReadAt.
	Fault atomic.Pointer[func(loc string, read int64) error]
}

type countingFile struct {
	fileio.File
	io  *CountingIO
	loc string
}

// Open opens loc through Base, counting it, unless Fault fails it.
func (c *CountingIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	if fault := c.Fault.Load(); fault != nil {
		if err := (*fault)(loc, -1); err != nil {
			return nil, err
		}
	}
	f, err := c.Base.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	c.Opens.Add(1)
	c.InUse.Add(1)
	return &countingFile{File: f, io: c, loc: loc}, nil
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n := f.io.Reads.Add(1)
	if fault := f.io.Fault.Load(); fault != nil {
		if err := (*fault)(f.loc, n); err != nil {
			return 0, err
		}
	}
	return f.File.ReadAt(p, off)
}

func (f *countingFile) Close() error {
	f.io.InUse.Add(-1)
	return f.File.Close()
}

// Unwrap returns the file read through, for fileio.InfoOf.
func (f *countingFile) Unwrap() fileio.File { return f.File }
