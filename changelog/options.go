package changelog

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/planner"
)

// Table is the table whose changes are planned and read: its name for
// messages, its metadata and the FileIO its files are opened with.
type Table = planner.Table

// DefaultMaxGroupBytes bounds the Arrow bytes of the rows Read groups for
// one snapshot that both deletes and inserts rows.
const DefaultMaxGroupBytes = 256 << 20

// Option tunes Plan and Read.
type Option func(*options)

type options struct {
	mem      memory.Allocator
	planner  *planner.Planner
	maxGroup int64
}

func newOptions(opts []Option) *options {
	o := &options{mem: memory.DefaultAllocator, maxGroup: DefaultMaxGroupBytes}
	for _, opt := range opts {
		opt(o)
	}
	if o.planner == nil {
		o.planner = planner.New()
	}
	return o
}

// WithAllocator makes Read build its batches with mem.
func WithAllocator(mem memory.Allocator) Option { return func(o *options) { o.mem = mem } }

// WithPlanner makes Plan plan the snapshots with p (and its manifest
// cache); by default each Plan uses a planner of its own.
func WithPlanner(p *planner.Planner) Option { return func(o *options) { o.planner = p } }

// WithMaxGroupBytes bounds the Arrow bytes of the rows Read holds to group
// one snapshot's deletes and inserts; beyond it Read fails with
// ErrGroupTooLarge. 0 or less keeps DefaultMaxGroupBytes.
func WithMaxGroupBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.maxGroup = n
		}
	}
}
