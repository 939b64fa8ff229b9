package datafile

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// maxOpenFiles bounds the files a Writer keeps open at once; past it the
// least recently written one is finished (Iceberg Java's fanout writer
// keeps them all open; a bound keeps memory to a known number of row
// group buffers at the cost of more, smaller files for scattered input).
const maxOpenFiles = 100

// stub is the Writer's state; the name is the seam's.
type stub struct {
	fio      fileio.FileIO
	schema   *iceberg.Schema
	arrow    *arrow.Schema
	spec     iceberg.PartitionSpec
	partType *iceberg.StructType
	part     *partitioner // nil: unpartitioned
	loc      LocationFunc
	cfg      config
	cols     map[int]*leafColumn
	open     map[string]*parquetFile
	done     []iceberg.DataFile
	clock    int64
	closed   bool
}

func newWriter(ctx context.Context, fio fileio.FileIO, schema *iceberg.Schema, spec iceberg.PartitionSpec, loc LocationFunc, opts Options) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if loc == nil {
		return nil, errors.New("new data file writer: no LocationFunc")
	}
	cfg, err := parseConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("new data file writer: %w", err)
	}
	as, err := iceberg.ArrowSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("new data file writer: %w", err)
	}
	cols, err := leafColumns(schema, opts.Properties)
	if err != nil {
		return nil, fmt.Errorf("new data file writer: %w", err)
	}
	w := &Writer{stub{fio: fio, schema: schema, arrow: as, spec: spec, loc: loc, cfg: cfg, cols: cols,
		partType: spec.PartitionType(schema), open: map[string]*parquetFile{}}}
	if !spec.IsUnpartitioned() || len(spec.Fields) > 0 {
		if w.part, err = newPartitioner(schema, spec); err != nil {
			return nil, fmt.Errorf("new data file writer: %w", err)
		}
	}
	return w, nil
}

func (w *Writer) write(ctx context.Context, batch arrow.RecordBatch) error {
	if w.closed {
		return errors.New("write data files: writer is closed")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !batch.Schema().Equal(w.arrow) {
		return fmt.Errorf("%w: batch schema %v is not the table's Arrow schema (use a Conformer)", ErrSchemaMismatch, batch.Schema())
	}
	if batch.NumRows() == 0 {
		return nil
	}
	if w.part == nil {
		return w.writeTo(ctx, "", nil, batch)
	}
	tuples, keys, err := w.part.tuples(batch)
	if err != nil {
		return fmt.Errorf("write data files: %w", err)
	}
	// Group row indices by partition, in order of first appearance.
	var order []string
	groups := map[string][]int64{}
	for i, k := range keys {
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], int64(i))
	}
	if len(order) == 1 {
		return w.writeTo(ctx, order[0], tuples[0], batch)
	}
	for _, k := range order {
		idx := groups[k]
		sub, err := takeRows(w.cfg.mem, batch, idx)
		if err != nil {
			return fmt.Errorf("write data files: split batch by partition: %w", err)
		}
		err = w.writeTo(ctx, k, tuples[idx[0]], sub)
		sub.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// takeRows returns the rows idx of batch as a new batch.
func takeRows(mem memory.Allocator, batch arrow.RecordBatch, idx []int64) (arrow.RecordBatch, error) {
	b := array.NewInt64Builder(mem)
	b.AppendValues(idx, nil)
	indices := b.NewArray()
	b.Release()
	defer indices.Release()
	ctx := compute.WithAllocator(context.Background(), mem)
	cols := make([]arrow.Array, 0, batch.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, c := range batch.Columns() {
		out, err := compute.TakeArray(ctx, c, indices)
		if err != nil {
			return nil, err
		}
		cols = append(cols, out)
	}
	return array.NewRecordBatch(batch.Schema(), cols, int64(len(idx))), nil
}

// writeTo writes rec, all of one partition, to that partition's file,
// opening one (and finishing the least recently used when too many are
// open) or rolling to a new one at the target size.
func (w *Writer) writeTo(ctx context.Context, key string, tuple []any, rec arrow.RecordBatch) error {
	f := w.open[key]
	if f == nil {
		if len(w.open) >= maxOpenFiles {
			if err := w.finishLRU(); err != nil {
				return err
			}
		}
		path := ""
		if w.part != nil {
			path = PartitionPath(w.spec, w.partType, tuple)
		}
		var err error
		if f, err = openParquet(ctx, w.fio, w.loc(path), w.arrow, w.schema.Fields, w.cfg); err != nil {
			return err
		}
		f.tuple = tuple
		w.open[key] = f
	}
	w.clock++
	f.lastUse = w.clock
	if err := f.write(rec); err != nil {
		return err
	}
	if f.size() >= w.cfg.targetFileSize {
		return w.finish(key)
	}
	return nil
}

func (w *Writer) finishLRU() error {
	var oldest string
	var at int64 = -1
	for k, f := range w.open {
		if at < 0 || f.lastUse < at {
			oldest, at = k, f.lastUse
		}
	}
	return w.finish(oldest)
}

func (w *Writer) finish(key string) error {
	f := w.open[key]
	delete(w.open, key)
	df, err := f.finish(w.cols, w.spec.ID)
	if err != nil {
		return err
	}
	w.done = append(w.done, df)
	return nil
}

func (w *Writer) close(ctx context.Context) ([]iceberg.DataFile, error) {
	if w.closed {
		return nil, errors.New("close data file writer: already closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.closed = true
	var errs []error
	for _, k := range w.sortedOpen() {
		if err := w.finish(k); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return w.done, nil
}

// sortedOpen lists the open files' keys in the order they were last used,
// so Close's output is stable for a given input.
func (w *Writer) sortedOpen() []string {
	keys := make([]string, 0, len(w.open))
	for k := range w.open {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && w.open[keys[j]].lastUse < w.open[keys[j-1]].lastUse; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func (w *Writer) abort(ctx context.Context) error {
	w.closed = true
	var errs []error
	for k, f := range w.open {
		if err := f.abandon(); err != nil {
			errs = append(errs, fmt.Errorf("abandon data file %s: %w", f.location, err))
		}
		// A store that ignores the cancelled context has committed it.
		if err := fileio.Remove(ctx, w.fio, f.location); err != nil && !errors.Is(err, fileio.ErrNotFound) {
			errs = append(errs, err)
		}
		delete(w.open, k)
	}
	for _, df := range w.done {
		if err := fileio.Remove(ctx, w.fio, df.Path); err != nil && !errors.Is(err, fileio.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	w.done = nil
	return errors.Join(errs...)
}
