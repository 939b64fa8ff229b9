package reader

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/reader/parquet"
)

// A source reads one file of any format as record batches in a read
// schema: its fields are matched to the file's columns by field id,
// promoted to the schema's types and, when the file lacks them, filled from
// partition constants, initial-defaults or nulls. The rows of one batch are
// consecutive rows of the file, so a batch's file position is that of its
// first row. Data files and delete files are both read through sources.
type source interface {
	// next returns the next batch and the file position (0-based row
	// ordinal) of its first row, or io.EOF after the last batch. The caller
	// releases the batch.
	next(ctx context.Context) (arrow.RecordBatch, int64, error)
	// close frees what the source holds; the file itself is closed by its
	// opener.
	close()
}

// sourceConfig is what a source reads.
type sourceConfig struct {
	// path names the file in messages.
	path string
	// schema is the read schema; batches have iceberg.ArrowSchema(schema).
	schema *iceberg.Schema
	// mapping gives field ids to files written without them.
	mapping iceberg.NameMapping
	// constants are identity-partition values by field id.
	constants map[int]any
	// rowGroups, start and length select a slice of the file (see Task).
	rowGroups     []int32
	start, length int64
	// pathStats, when set, lets a Parquet source skip row groups whose
	// file_path statistics exclude it (position delete files).
	pathStats string
	// prune, when set, skips Parquet row groups whose statistics rule out
	// the task's residual filter; counts records what it decided.
	prune     *parquet.Pruner
	counts    *counters
	batchSize int
	// maxRead bounds a piece of the file held whole (see WithMaxReadBytes).
	maxRead int64
	mem     memory.Allocator
	// dict holds the ids of top-level fields to read as dictionaries
	// (Scan.Dictionary), nil for none.
	dict map[int]bool
	// pages lets pqcodec decode the flat columns of Parquet files.
	pages bool
	// late, when set with pages, lets a Parquet source decode the residual
	// filter's columns first (parquet_late.go).
	late *lateFilter
	// out is iceberg.ArrowSchema(schema) with the fields of dict as
	// dictionaries, set by openSource.
	out *arrow.Schema
}

// openSource opens f, of the given format, as a source.
func openSource(ctx context.Context, f fileio.File, format scantask.FileFormat, cfg *sourceConfig) (source, error) {
	out, err := iceberg.ArrowSchema(cfg.schema)
	if err == nil {
		out, err = withDictionaries(out, cfg.schema, cfg.dict)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", cfg.path, err)
	}
	cfg.out = out
	if err := checkFormat(format, cfg.path); err != nil {
		return nil, err
	}
	switch format {
	case scantask.Avro:
		return newAvroSource(ctx, f, cfg)
	case scantask.ORC:
		return newORCSource(ctx, f, cfg)
	}
	return newParquetSource(ctx, f, cfg)
}

// assemble builds one batch of n rows in the read schema from the planned
// fields: get returns the converted column of a field read from the file.
func assemble(ctx context.Context, mem memory.Allocator, out *arrow.Schema, path string, plans []*fieldPlan, n int, get func(*fieldPlan) (arrow.Array, error)) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, len(plans))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, p := range plans {
		var (
			col arrow.Array
			err error
		)
		if p.src != nil {
			col, err = get(p)
		} else {
			col, err = fillArray(mem, p, n)
		}
		if err != nil {
			return nil, err
		}
		want := out.Field(i)
		if col, err = dictionaryFor(ctx, mem, col, want.Type); err != nil {
			return nil, fmt.Errorf("read %s: column %q: %w", path, want.Name, err)
		}
		cols = append(cols, col)
		if !arrow.TypeEqual(col.DataType(), want.Type, arrow.CheckMetadata()) || col.Len() != n {
			return nil, fmt.Errorf("read %s: column %q came out as %s with %d rows, want %s with %d (internal error)",
				path, want.Name, col.DataType(), col.Len(), want.Type, n)
		}
	}
	return array.NewRecordBatch(out, cols, int64(n)), nil
}
