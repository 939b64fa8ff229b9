// Package datafile writes Arrow record batches into Iceberg data files:
// Parquet with field ids, partitioned by the spec's transforms, rolled at
// a target size, with the column metrics manifests carry. It also writes
// position delete files.
package datafile

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// ErrSchemaMismatch marks an Arrow stream whose schema does not fit the
// table's: a missing required column, a column the table lacks, a type
// that cannot be promoted safely. The message names the column.
var ErrSchemaMismatch = errors.New("schema does not match the table")

// LocationFunc returns the location of a new data file for the partition
// path partitionPath (Iceberg's "a=1/b_bucket=3" form, "" unpartitioned).
type LocationFunc func(partitionPath string) string

// Options tune a Writer.
type Options struct {
	// Properties are the table's properties: write.target-file-size-bytes
	// (default 512 MiB), write.parquet.compression-codec (default zstd)
	// and -level, write.parquet.row-group-size-bytes, page and dictionary
	// sizes, write.metadata.metrics.default and
	// write.metadata.metrics.column.<name> (none, counts, truncate(N),
	// full; default truncate(16)), write.metadata.metrics.max-inferred-column-defaults.
	Properties map[string]string
	// Allocator allocates Arrow memory; nil is memory.DefaultAllocator.
	Allocator memory.Allocator
	// Workers bounds the goroutines that encode one batch's columns at
	// once; 0 is GOMAXPROCS, 1 encodes on the calling goroutine.
	Workers int
}

// Writer writes batches in the table's Arrow schema
// (iceberg.ArrowSchema(schema), see Conformer) into data files, one open
// file per partition, rolled at the target size; memory stays bounded by
// the open files' row-group buffers.
type Writer struct{ stub }

// New returns a writer of data files for a table with schema and spec,
// written through fio at the locations loc gives.
func New(ctx context.Context, fio fileio.FileIO, schema *iceberg.Schema, spec iceberg.PartitionSpec, loc LocationFunc, opts Options) (*Writer, error) {
	return newWriter(ctx, fio, schema, spec, loc, opts)
}

// Write routes the batch's rows to their partitions' files.
func (w *Writer) Write(ctx context.Context, batch arrow.RecordBatch) error {
	return w.write(ctx, batch)
}

// Close finishes every file and returns their manifest entries' data_file
// structs (content data, format PARQUET, partition tuple, record count,
// file size, metrics, split offsets, spec id).
func (w *Writer) Close(ctx context.Context) ([]iceberg.DataFile, error) { return w.close(ctx) }

// Abort stops writing and removes every file written so far.
func (w *Writer) Abort(ctx context.Context) error { return w.abort(ctx) }

// Conformer turns batches of a client's Arrow schema into batches of the
// table's Arrow schema.
type Conformer struct{ conformStub }

// NewConformer matches src's columns to the table schema by name (nested
// fields too): exact match first, then a case-insensitive one when it is
// unambiguous. Safe promotions are allowed (int8/16/32 to int/long,
// float32 to double, decimal to a wider precision with the same scale,
// string/large_string/string_view, binary/large_binary, timestamp units
// to microseconds when no precision is lost, dictionary to its value
// type); a missing optional column becomes nulls. Anything else wraps
// ErrSchemaMismatch and names the column, before any file is written.
func NewConformer(src *arrow.Schema, table *iceberg.Schema, mem memory.Allocator) (*Conformer, error) {
	return newConformer(src, table, mem)
}

// Conform returns batch in the table's Arrow schema; the caller releases
// the result. A value that cannot be converted (a null in a required
// column, a lossy timestamp) wraps ErrSchemaMismatch.
func (c *Conformer) Conform(batch arrow.RecordBatch) (arrow.RecordBatch, error) {
	return c.conform(batch)
}

// PositionDelete is one deleted row: a data file and a row position in it.
type PositionDelete struct {
	Path string
	Pos  int64
}

// WritePositionDeletes writes a v2 position delete file (Parquet,
// file_path field id 2147483546, pos 2147483545) at location, sorted by
// path then position, and returns its data_file struct (content position
// deletes, metrics for both columns, ReferencedDataFile set when every
// row names one data file). The caller sets Partition and SpecID: those of
// the data files the deletes apply to.
func WritePositionDeletes(ctx context.Context, fio fileio.FileIO, location string, deletes []PositionDelete, opts Options) (iceberg.DataFile, error) {
	return writePositionDeletes(ctx, fio, location, deletes, opts)
}
