package metatable

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// Every metadata table is a set of row sources (a snapshot, a manifest
// entry, a partition's counts) and, for each top-level column, how a
// source gives the column's value as a literal (literal.go's Go form,
// structs as maps by field id). One rowWriter turns sources into batches
// for all of them: it computes the projected columns, and the columns the
// filter tests, only.

// valueFunc gives a column's value for a row source; t is the column's
// type as projected, so that a struct column builds only the fields asked
// for.
type valueFunc[T any] func(src T, t iceberg.Type) (any, error)

// columns are a metadata table's columns by field id.
type columns[T any] map[int]valueFunc[T]

// rowWriter appends the rows of one unit to batches of at most max rows,
// keeping those the filter accepts, and emits each full batch.
type rowWriter[T any] struct {
	ctx      context.Context
	scan     *scanState
	fields   []iceberg.NestedField // the projected top-level fields
	values   []valueFunc[T]
	schema   *arrow.Schema
	builders []array.Builder
	rows     int
	emit     func(arrow.RecordBatch) error
	o        *options

	// The filter's columns: for each top-level column it tests, its value
	// function, and per row its value, computed once.
	filterValues map[int]valueFunc[T]
	rowValues    map[int]any
}

func newRowWriter[T any](ctx context.Context, s *scanState, cols columns[T], emit func(arrow.RecordBatch) error, o *options) (*rowWriter[T], error) {
	w := &rowWriter[T]{ctx: ctx, scan: s, fields: s.projected.Fields, emit: emit, o: o}
	for _, f := range w.fields {
		v, ok := cols[f.ID]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no column %d (%s)", ErrInvalidUnit, s.kind, f.ID, f.Name)
		}
		w.values = append(w.values, v)
	}
	if s.filter != nil {
		w.filterValues = map[int]valueFunc[T]{}
		for top := range s.filterTops {
			v, ok := cols[top]
			if !ok {
				return nil, fmt.Errorf("%w: %s has no column %d", ErrInvalidUnit, s.kind, top)
			}
			w.filterValues[top] = v
		}
		w.rowValues = map[int]any{}
	}
	schema, err := iceberg.ArrowSchema(s.projected)
	if err != nil {
		return nil, err
	}
	w.schema = schema
	return w, nil
}

// add appends src's row when the filter accepts it, and emits the batch
// once it is full.
func (w *rowWriter[T]) add(src T) error {
	if stats := w.o.stats; stats != nil {
		stats.Rows++
	}
	if w.scan.filter != nil {
		ok, err := w.accept(src)
		if err != nil || !ok {
			return err
		}
	}
	if w.builders == nil {
		w.builders = make([]array.Builder, len(w.fields))
		for i, f := range w.schema.Fields() {
			w.builders[i] = array.NewBuilder(w.o.mem, f.Type)
		}
	}
	for i, f := range w.fields {
		v, err := w.values[i](src, f.Type)
		if err != nil {
			return fmt.Errorf("%s column %s: %w", w.scan.kind, f.Name, err)
		}
		if err := iceberg.AppendLiteral(w.builders[i], f.Type, v); err != nil {
			return fmt.Errorf("%s column %s: %w", w.scan.kind, f.Name, err)
		}
	}
	w.rows++
	w.o.stats.hold(1)
	if w.rows >= w.o.batchRows {
		return w.flush()
	}
	return nil
}

// accept evaluates the filter on src's row, computing each column it tests
// once.
func (w *rowWriter[T]) accept(src T) (bool, error) {
	clear(w.rowValues)
	var failed error
	get := func(id int) any {
		p := w.scan.filterPaths[id]
		v, done := w.rowValues[p[0]]
		if !done {
			var err error
			if v, err = w.filterValues[p[0]](src, w.scan.filterTops[p[0]]); err != nil && failed == nil {
				top, _ := w.scan.full.FieldByID(p[0])
				failed = fmt.Errorf("%s column %s: %w", w.scan.kind, top.Name, err)
			}
			w.rowValues[p[0]] = v
		}
		for _, id := range p[1:] {
			m, _ := v.(map[int]any)
			v = m[id]
		}
		return v
	}
	ok, err := expr.Eval(w.scan.filter, get)
	if failed != nil {
		return false, failed
	}
	return ok, err
}

// flush emits the rows appended so far as one batch, unless the read's
// context has ended.
func (w *rowWriter[T]) flush() error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.rows == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(w.builders))
	for i, b := range w.builders {
		cols[i] = b.NewArray()
	}
	rec := array.NewRecordBatch(w.schema, cols, int64(w.rows))
	for _, c := range cols {
		c.Release()
	}
	w.o.stats.release(w.rows)
	if stats := w.o.stats; stats != nil {
		stats.Emitted += int64(w.rows)
		stats.Batches++
	}
	w.rows = 0
	return w.emit(rec)
}

// release frees the builders; call it once the writer is done, flushed or
// not.
func (w *rowWriter[T]) release() {
	for _, b := range w.builders {
		b.Release()
	}
	w.builders = nil
}
