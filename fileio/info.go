package fileio

import (
	"sync/atomic"
	"time"
)

// Info is what a store says about a file beside its bytes and length.
type Info struct {
	// ModTime is when the file was last modified; zero when the store
	// does not say.
	ModTime time.Time
	// ETag is the store's entity tag of the file's content, as the store
	// spells it (quotes included); empty when the store has none, as
	// local disks and HDFS do not.
	ETag string
}

// Describer is a File that knows its Info. Object stores send a file's
// modification time and entity tag with every answer, so their files learn
// them from the open or the first read, at no extra request: Info is zero
// until then.
type Describer interface {
	Info() Info
}

// Unwrapper is a File that wraps another, for InfoOf to look through.
type Unwrapper interface {
	Unwrap() File
}

// InfoOf returns what f's store said about it, looking through wrappers,
// and whether anything was said.
func InfoOf(f File) (Info, bool) {
	for f != nil {
		if d, ok := f.(Describer); ok {
			i := d.Info()
			return i, !i.ModTime.IsZero() || i.ETag != ""
		}
		u, ok := f.(Unwrapper)
		if !ok {
			break
		}
		f = u.Unwrap()
	}
	return Info{}, false
}

// InfoCell holds a file's Info once a store has told it; it is safe for
// concurrent use, as reads of one file run in parallel.
type InfoCell struct {
	p atomic.Pointer[Info]
}

// Note keeps i unless an Info was kept before: a file is immutable once
// written (Iceberg never rewrites one), so the first answer stands.
func (c *InfoCell) Note(i Info) {
	if i.ModTime.IsZero() && i.ETag == "" {
		return
	}
	c.p.CompareAndSwap(nil, &i)
}

// Info returns the Info kept, or zero.
func (c *InfoCell) Info() Info {
	if i := c.p.Load(); i != nil {
		return *i
	}
	return Info{}
}
