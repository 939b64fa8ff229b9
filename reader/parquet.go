package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// parquetRead is the state of one Read of a Parquet data file.
type parquetRead struct {
	mem       memory.Allocator
	batchSize int
	scan      Scan
	task      *iceflightv1.Task
	outSchema *arrow.Schema
}

func (r *parquetRead) run(ctx context.Context, f fileio.File, emit func(arrow.RecordBatch) error) error {
	path := r.task.GetPath()
	pf, err := openParquet(f, r.mem, path)
	if err != nil {
		return err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(r.batchSize)}, r.mem)
	if err != nil {
		return fmt.Errorf("read parquet schema of %s: %w", path, err)
	}
	rowGroups, rows, err := r.rowGroups(pf)
	if err != nil {
		return err
	}
	constants, err := partitionConstants(r.scan.Schema, r.task)
	if err != nil {
		return err
	}
	proj, err := planProjection(fr, r.scan, constants, path)
	if err != nil {
		return err
	}
	defer proj.release()

	var rr pqarrow.RecordReader
	if len(proj.leaves) > 0 && rows > 0 {
		if rr, err = fr.GetRecordReader(ctx, proj.leaves, rowGroups); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		defer rr.Release()
	}
	int96 := make(map[*fieldPlan]*int96Column)
	for _, p := range proj.fields {
		if !p.int96 {
			continue
		}
		c, err := newInt96Column(pf, p.src.sf.ColIndex, rowGroups, p.target, path, p.src.name)
		if err != nil {
			return err
		}
		defer c.close()
		int96[p] = c
	}

	conv := &converter{ctx: ctx, mem: r.mem, path: path}
	for remaining := rows; remaining > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(r.batchSize), remaining)
		var rec arrow.RecordBatch
		if rr != nil {
			if !rr.Next() {
				if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("read %s: %w", path, err)
				}
				return fmt.Errorf("%w: %s ended %d rows early", ErrInvalidTask, path, remaining)
			}
			rec = rr.RecordBatch()
			if n = rec.NumRows(); n <= 0 || n > remaining {
				return fmt.Errorf("%w: %s: batch of %d rows with %d left to read", ErrInvalidTask, path, n, remaining)
			}
		}
		out, err := r.assemble(conv, proj, rec, int96, int(n))
		if err != nil {
			return err
		}
		err = emit(out)
		out.Release()
		if err != nil {
			return err
		}
		remaining -= n
	}
	return nil
}

// rowGroups returns the row groups the task reads and their rows: those it
// names; else, for a byte-range split, those whose midpoint falls in the
// range (as parquet-mr assigns row groups to splits for Iceberg Java), so
// that splits of one file never read a row twice; else all.
func (r *parquetRead) rowGroups(pf *file.Reader) ([]int, int64, error) {
	md := pf.MetaData()
	var groups []int
	switch {
	case len(r.task.GetRowGroups()) == 0 && r.task.GetLength() > 0:
		start, end := r.task.GetStart(), r.task.GetStart()+r.task.GetLength()
		for i := 0; i < md.NumRowGroups(); i++ {
			mid, err := rowGroupMidpoint(md.RowGroup(i))
			if err != nil {
				return nil, 0, fmt.Errorf("read row group %d of %s: %w", i, r.task.GetPath(), err)
			}
			if start <= mid && mid < end {
				groups = append(groups, i)
			}
		}
	case len(r.task.GetRowGroups()) == 0:
		groups = make([]int, md.NumRowGroups())
		for i := range groups {
			groups[i] = i
		}
	default:
		for _, g := range r.task.GetRowGroups() {
			if g < 0 || int(g) >= md.NumRowGroups() {
				return nil, 0, fmt.Errorf("%w: row group %d of %s, which has %d", ErrInvalidTask, g, r.task.GetPath(), md.NumRowGroups())
			}
			groups = append(groups, int(g))
		}
	}
	var rows int64
	for _, g := range groups {
		rows += md.RowGroup(g).NumRows()
	}
	return groups, rows, nil
}

// rowGroupMidpoint is the byte offset halfway through a row group's column
// chunks.
func rowGroupMidpoint(rg *metadata.RowGroupMetaData) (int64, error) {
	var start, size int64 = -1, 0
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			return 0, err
		}
		off := cc.DataPageOffset()
		if d := cc.DictionaryPageOffset(); d > 0 && d < off {
			off = d
		}
		if start < 0 || off < start {
			start = off
		}
		size += cc.TotalCompressedSize()
	}
	return start + size/2, nil
}

// assemble builds one output batch of n rows from pqarrow's batch rec (nil
// when no column comes through pqarrow).
func (r *parquetRead) assemble(conv *converter, proj *projection, rec arrow.RecordBatch, int96 map[*fieldPlan]*int96Column, n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, len(proj.fields))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, p := range proj.fields {
		var (
			col arrow.Array
			err error
		)
		switch {
		case p.int96:
			col, err = int96[p].read(r.mem, n)
		case p.src != nil:
			if rec == nil || p.pos >= int(rec.NumCols()) || rec.Schema().Field(p.pos).Name != p.src.name {
				return nil, fmt.Errorf("read %s: column %q not where expected (internal error)", conv.path, p.src.name)
			}
			col, err = conv.convert(p, rec.Column(p.pos))
		default:
			col, err = fillArray(r.mem, p, n)
		}
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
		want := r.outSchema.Field(i)
		if !arrow.TypeEqual(col.DataType(), want.Type, arrow.CheckMetadata()) || col.Len() != n {
			return nil, fmt.Errorf("read %s: column %q came out as %s with %d rows, want %s with %d (internal error)",
				conv.path, want.Name, col.DataType(), col.Len(), want.Type, n)
		}
	}
	return array.NewRecordBatch(r.outSchema, cols, int64(n)), nil
}

// release frees the fill arrays the plans cache.
func (p *projection) release() {
	var walk func(ps []*fieldPlan)
	walk = func(ps []*fieldPlan) {
		for _, fp := range ps {
			if fp.cache != nil {
				fp.cache.Release()
				fp.cache = nil
			}
			walk(fp.children)
		}
	}
	walk(p.fields)
}
