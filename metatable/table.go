package metatable

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Table is the table whose metadata tables are read.
type Table struct {
	// Name is the table's identifier, used in messages.
	Name string
	// MetadataLocation is the metadata file Metadata was read from: the
	// last row of metadata_log_entries.
	MetadataLocation string
	Metadata         *iceberg.TableMetadata
	// IO opens the table's manifest lists and manifests by the locations
	// its metadata records (a relocated table's IO maps them).
	IO fileio.FileIO
}

// Defaults of the options.
const (
	// DefaultBatchRows bounds the rows of a batch: a files table's row
	// with readable_metrics of a wide table is kilobytes.
	DefaultBatchRows = 8192
	// DefaultUnitBytes is the bytes of manifests a unit of a files or
	// entries table reads at most, unless one manifest is larger.
	DefaultUnitBytes = 64 << 20
	// DefaultMaxManifestBytes bounds a manifest or manifest list read into
	// memory, as the planner's default does.
	DefaultMaxManifestBytes = 256 << 20
)

// Option tunes Plan and Read.
type Option func(*options)

type options struct {
	mem         memory.Allocator
	batchRows   int
	unitBytes   int64
	maxManifest int64
	stats       *ReadStats
}

func newOptions(opts []Option) *options {
	o := &options{mem: memory.DefaultAllocator, batchRows: DefaultBatchRows, unitBytes: DefaultUnitBytes, maxManifest: DefaultMaxManifestBytes}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithAllocator makes Read build its batches with mem.
func WithAllocator(mem memory.Allocator) Option { return func(o *options) { o.mem = mem } }

// WithBatchRows bounds the rows of each batch Read emits; 0 or less keeps
// DefaultBatchRows.
func WithBatchRows(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.batchRows = n
		}
	}
}

// WithUnitBytes sets how many bytes of manifests Plan puts in one unit of
// a files or entries table (a unit holds at least one manifest); 0 or less
// keeps DefaultUnitBytes.
func WithUnitBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.unitBytes = n
		}
	}
}

// WithMaxManifestBytes bounds the manifests and manifest lists Plan and
// Read read into memory: a larger one is an error wrapping
// fileio.ErrTooLarge. 0 or less sets no bound.
func WithMaxManifestBytes(n int64) Option { return func(o *options) { o.maxManifest = n } }

// WithStats makes Read add what it did to s.
func WithStats(s *ReadStats) Option { return func(o *options) { o.stats = s } }

// ReadStats counts what Read did: for a caller's statistics, and for tests
// of how much a read holds at once.
type ReadStats struct {
	// Files counts the manifest lists and manifests read.
	Files int64
	// Rows counts the rows the metadata table produced, Emitted those the
	// filter kept, Batches the batches emitted.
	Rows, Emitted, Batches int64
	// PeakHeld is the most rows a read held at once: the decoded entries of
	// the manifest being read (or the partitions being aggregated) and the
	// rows of the batch being built.
	PeakHeld int64

	held int64
}

// hold records n more rows held; release n fewer.
func (s *ReadStats) hold(n int) {
	if s == nil {
		return
	}
	s.held += int64(n)
	s.PeakHeld = max(s.PeakHeld, s.held)
}

func (s *ReadStats) release(n int) {
	if s != nil {
		s.held -= int64(n)
	}
}
