package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// One task is read in three stages, whatever the file format:
//
//  1. A source (Parquet, Avro, ORC) yields the data file's rows in the read
//     schema: the projected fields minus the computed metadata columns, plus
//     the equality-delete key fields the projection lacks; each batch comes
//     with the file position of its first row.
//  2. The deletes that apply to the file (position deletes or a deletion
//     vector, and equality deletes) give a selection vector of the rows they
//     keep; a file with no deletes skips this stage.
//  3. finish takes the kept rows of each read column, computes the metadata
//     columns from the task and the row positions, drops the extra key
//     columns and emits the batch in the projected schema. When the read
//     schema is the projected schema and no row is deleted, the source's
//     batch is emitted as is.

// outColumn says how to produce one column of the projected schema.
type outColumn struct {
	kind colKind
	// read is the column's index in the read batch, or -1.
	read int
	// fill holds the value of a colConst or colStorage column.
	fill *fieldPlan
}

// readPlan is the shape of one task's read.
type readPlan struct {
	task *Task
	out  *arrow.Schema
	// read is the schema the source reads; its first fields are the
	// projected fields that are read, in projection order, then the extra
	// equality key fields.
	read *iceberg.Schema
	cols []outColumn
	// direct is set when a read batch is already an output batch.
	direct bool
	// keys maps a delete file's equality field ids (as one string) to the
	// paths of those fields in the read batch.
	keys map[string][]keyPath
	// filter is the task's residual filter, nil when every row matches.
	filter *rowFilter
	// check validates what leaves each stage (see WithValidation).
	check validator
	// dict holds the read fields the source emits as dictionaries.
	dict map[int]bool
}

func newReadPlan(scan Scan, task *Task) (*readPlan, error) {
	out, err := OutputSchema(scan)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", task.Path, err)
	}
	p := &readPlan{task: task, out: out, direct: true}
	want := scan.dictionarySet()
	var fields []iceberg.NestedField
	for _, f := range scan.Schema.Fields {
		kind, computed := metadataKind(f.ID)
		c := outColumn{kind: kind, read: -1}
		if computed {
			af, err := iceberg.ArrowField(f)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", task.Path, err)
			}
			c.fill = &fieldPlan{field: f, target: af.Type}
			if kind == colConst {
				if c.fill.fill, err = metadataValue(f, task); err != nil {
					return nil, err
				}
			}
			p.direct = false
		} else {
			if kind != colRead {
				// Lineage columns absent from a file read as null, then
				// inherit; they are optional (spec: Row Lineage).
				f.Required = false
				f.InitialDefault = nil
				p.direct = false
			}
			c.read = len(fields)
			fields = append(fields, f)
			if want[f.ID] {
				if p.dict == nil {
					p.dict = make(map[int]bool)
				}
				p.dict[f.ID] = true
			}
		}
		p.cols = append(p.cols, c)
	}
	for _, d := range task.Deletes {
		if d.Kind != scantask.EqualityDeletes {
			continue
		}
		ids := idsKey(d.EqualityIDs)
		if _, done := p.keys[ids]; done {
			continue
		}
		if len(d.EqualityIDs) == 0 {
			return nil, fmt.Errorf("%w: equality delete file %s has no equality ids", ErrInvalidTask, d.Path)
		}
		paths := make([]keyPath, len(d.EqualityIDs))
		for i, id := range d.EqualityIDs {
			if fields, paths[i], err = addEqualityKeyField(fields, int(id), scan); err != nil {
				return nil, fmt.Errorf("equality delete file %s for %s: %w", d.Path, task.Path, err)
			}
		}
		if p.keys == nil {
			p.keys = make(map[string][]keyPath)
		}
		p.keys[ids] = paths
	}
	if p.filter, fields, err = newRowFilter(scan, task, fields); err != nil {
		return nil, err
	}
	if len(fields) != len(scan.Schema.Fields) {
		p.direct = false
	}
	p.read = iceberg.NewSchema(scan.Schema.ID, fields...)
	return p, nil
}

// describe fills the storage columns from the open file f, once the
// source has read from it.
func (p *readPlan) describe(f fileio.File) {
	for _, c := range p.cols {
		if c.kind == colStorage {
			c.fill.fill = storageValue(c.fill.field.ID, f)
		}
	}
}

// finish turns one read batch into an output batch, or nil when deletes
// remove every row. The caller releases the result; batch stays the
// caller's.
func (p *readPlan) finish(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, pos int64, del rowSelector) (arrow.RecordBatch, error) {
	var keep []int32
	if del != nil {
		var err error
		if keep, err = del.keep(batch, pos, p.keys); err != nil {
			return nil, fmt.Errorf("apply deletes to %s: %w", p.task.Path, err)
		}
		if err := p.check.selection(stageDeletes, keep, batch.NumRows()); err != nil {
			return nil, err
		}
		if keep != nil && len(keep) == 0 {
			return nil, nil
		}
	}
	if p.filter != nil {
		var err error
		if keep, err = p.filter.keep(ctx, mem, batch, keep); err != nil {
			return nil, fmt.Errorf("filter rows of %s: %w", p.task.Path, err)
		}
		if err := p.check.selection(stageResidual, keep, batch.NumRows()); err != nil {
			return nil, err
		}
		if keep != nil && len(keep) == 0 {
			return nil, nil
		}
	}
	if p.direct && keep == nil {
		batch.Retain()
		return batch, nil
	}
	n := int(batch.NumRows())
	var indices arrow.Array
	if keep != nil {
		n = len(keep)
		indices = int32Array(mem, keep)
		defer indices.Release()
	}
	cctx := withComputeAllocator(ctx, mem)
	cols := make([]arrow.Array, 0, len(p.cols))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, c := range p.cols {
		var read arrow.Array
		if c.read >= 0 {
			col := batch.Column(c.read)
			if indices == nil {
				col.Retain()
				read = col
			} else {
				taken, err := compute.TakeArrayOpts(cctx, col, indices, compute.TakeOptions{BoundsCheck: false})
				if err != nil {
					return nil, fmt.Errorf("apply deletes to %s: %w", p.task.Path, err)
				}
				read = taken
				if err := p.check.array(stageProjection, batch.ColumnName(c.read), read); err != nil {
					read.Release()
					return nil, err
				}
			}
		}
		var (
			col arrow.Array
			err error
		)
		switch c.kind {
		case colRead:
			col = read
		case colConst, colStorage:
			col, err = fillArray(mem, c.fill, n)
		case colPos:
			col = positionColumn(mem, pos, keep, n)
		case colRowID, colLastUpdated:
			col, err = lineageColumn(mem, c.kind, read, p.task, pos, keep, n)
			read.Release()
		}
		if err == nil {
			// A metadata column asked for as a dictionary is computed dense.
			col, err = dictionaryFor(ctx, mem, col, p.out.Field(i).Type)
		}
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	out := array.NewRecordBatch(p.out, cols, int64(n))
	if err := p.check.batch(stageConstants, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// int32Array wraps kept row indices as an Arrow array for take.
func int32Array(mem memory.Allocator, vals []int32) arrow.Array {
	buf := memory.NewResizableBuffer(mem)
	defer buf.Release()
	buf.Resize(len(vals) * 4)
	copy(arrow.Int32Traits.CastFromBytes(buf.Bytes()), vals)
	return newArray(arrow.PrimitiveTypes.Int32, len(vals), []*memory.Buffer{nil, buf}, nil, 0, 0)
}

// release frees the constant columns the plan caches.
func (p *readPlan) release() {
	for _, c := range p.cols {
		if c.fill != nil {
			releasePlans([]*fieldPlan{c.fill})
		}
	}
}

// run reads the task through src and emits each output batch. Delete
// files are loaded when the first batch arrives, so a task whose row
// groups hold no rows never reads them. The rows emitted are recorded on
// the task's span (Read's).
func (r *Reader) run(ctx context.Context, scan Scan, p *readPlan, src source, sel *deletedSelection, emit func(arrow.RecordBatch) error) error {
	var (
		del    rowSelector
		loaded = len(p.task.Deletes) == 0
		rows   int64
	)
	defer func() {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("iceflight.format", p.task.Format.String()),
			attribute.Int64("iceflight.rows", rows))
	}()
	p.check = validator{on: r.validate, path: p.task.Path}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, pos, err := src.next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := p.check.batch(stageDecode, batch); err != nil {
			batch.Release()
			return err
		}
		if !loaded {
			loaded = true
			if del, err = r.selector(ctx, scan, p.task, sel); err != nil {
				batch.Release()
				return err
			}
		}
		n, err := r.step(ctx, p, batch, pos, del, emit)
		rows += n
		if err != nil {
			return err
		}
	}
}

// step finishes one read batch and emits it, returning the rows emitted.
// The batches are released by defers so that a panic on the way, which
// Read recovers, leaves no Arrow memory behind.
func (r *Reader) step(ctx context.Context, p *readPlan, batch arrow.RecordBatch, pos int64, del rowSelector, emit func(arrow.RecordBatch) error) (int64, error) {
	defer batch.Release()
	out, err := p.finish(ctx, r.mem, batch, pos, del)
	if err != nil || out == nil {
		return 0, err
	}
	defer out.Release()
	return out.NumRows(), emit(out)
}
