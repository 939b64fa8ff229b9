package writer

import (
	"context"
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/writer/datafile"
)

// copyOnWrite rewrites data files without some of their rows: Iceberg's
// copy-on-write for deletes and for overwrites that match part of a file.
type copyOnWrite struct {
	w    *Writer
	t    *catalog.Table
	dw   *datafile.Writer
	conf *datafile.Conformer
	// rows counts the rows kept.
	rows int64
}

// newCopyOnWrite plans the full rows (every column and _pos) of the
// files to rewrite.
func (w *Writer) newCopyOnWrite(ctx context.Context, t *catalog.Table) (*copyOnWrite, error) {
	dw, err := w.newDataWriter(ctx, t)
	if err != nil {
		return nil, err
	}
	return &copyOnWrite{w: w, t: t, dw: dw}, nil
}

// allColumns is the projection of a rewrite: every top-level column of
// the current schema, then _pos.
func allColumns(md *iceberg.TableMetadata) []string {
	var cols []string
	for _, f := range md.CurrentSchema().Fields {
		cols = append(cols, f.Name)
	}
	return append(cols, posColumn)
}

// rewrite copies the live rows of tasks (one data file, planned with
// allColumns) except those at positions in drop.
func (c *copyOnWrite) rewrite(ctx context.Context, m *matchPlan, tasks []*scantask.Task, drop *roaring64.Bitmap) error {
	rd := c.w.readerFor(c.t)
	for _, task := range tasks {
		task = withoutResidual(task)
		err := rd.Read(ctx, m.scan, task, func(b arrow.RecordBatch) error { return c.keep(ctx, b, drop) })
		if err != nil {
			return fmt.Errorf("rewrite %s: %w", task.FilePath, err)
		}
	}
	return nil
}

// keep writes the runs of rows of b whose _pos (the last column) is not
// in drop.
func (c *copyOnWrite) keep(ctx context.Context, b arrow.RecordBatch, drop *roaring64.Bitmap) error {
	n := int(b.NumCols())
	pos, ok := b.Column(n - 1).(*array.Int64)
	if !ok {
		return fmt.Errorf("%s column is %s, want int64", posColumn, b.Column(n-1).DataType())
	}
	fields := b.Schema().Fields()[:n-1]
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns()[:n-1], b.NumRows())
	defer rec.Release()
	if c.conf == nil {
		conf, err := datafile.NewConformer(rec.Schema(), c.t.Metadata.CurrentSchema(), c.w.mem)
		if err != nil {
			return err
		}
		c.conf = conf
	}
	rows := pos.Len()
	for i := 0; i < rows; {
		if drop.Contains(uint64(pos.Value(i))) {
			i++
			continue
		}
		j := i
		for j < rows && !drop.Contains(uint64(pos.Value(j))) {
			j++
		}
		if err := c.write(ctx, rec, int64(i), int64(j)); err != nil {
			return err
		}
		c.rows += int64(j - i)
		i = j
	}
	return nil
}

func (c *copyOnWrite) write(ctx context.Context, rec arrow.RecordBatch, i, j int64) error {
	part := rec.NewSlice(i, j)
	defer part.Release()
	conformed, err := c.conf.Conform(part)
	if err != nil {
		return err
	}
	defer conformed.Release()
	return c.dw.Write(ctx, conformed)
}

// close finishes the rewritten files; on error every file is removed.
func (c *copyOnWrite) close(ctx context.Context) ([]iceberg.DataFile, error) {
	files, err := c.dw.Close(ctx)
	if err != nil {
		return nil, errors.Join(err, c.dw.Abort(context.WithoutCancel(ctx)))
	}
	return files, nil
}

// abort removes what was written.
func (c *copyOnWrite) abort(ctx context.Context) {
	_ = c.dw.Abort(context.WithoutCancel(ctx))
}
