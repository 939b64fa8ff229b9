package changelog

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/reader"
)

// The change types of _change_type, as Spark spells them.
const (
	Insert       = "INSERT"
	Delete       = "DELETE"
	UpdateBefore = "UPDATE_BEFORE"
	UpdateAfter  = "UPDATE_AFTER"
)

// ChangeColumns are the columns that follow the table's in a change
// stream, in Spark's order, with Iceberg Java's field ids
// (MetadataColumns: Integer.MAX_VALUE - 104, - 105, - 106).
var ChangeColumns = []iceberg.NestedField{
	{ID: 2147483543, Name: "_change_type", Type: iceberg.StringType{}, Required: true, Doc: "Record type in changelog"},
	{ID: 2147483542, Name: "_change_ordinal", Type: iceberg.IntType{}, Doc: "Change ordinal in changelog"},
	{ID: 2147483541, Name: "_commit_snapshot_id", Type: iceberg.LongType{}, Doc: "Commit snapshot ID"},
}

// Schema returns the schema of a change stream of schema: its columns,
// then ChangeColumns.
func Schema(schema *iceberg.Schema) *iceberg.Schema {
	fields := append(append([]iceberg.NestedField(nil), schema.Fields...), ChangeColumns...)
	return iceberg.NewSchema(schema.ID, fields...)
}

// OutputSchema returns the Arrow schema of the batches Read emits for a
// scan of schema: the table's columns as the reader reads them, then
// _change_type (string), _change_ordinal (int) and _commit_snapshot_id
// (long), as Spark's changelog view has them, with their field ids.
func OutputSchema(schema *iceberg.Schema) (*arrow.Schema, error) {
	rows, err := reader.OutputSchema(reader.Scan{Schema: schema})
	if err != nil {
		return nil, err
	}
	changes, err := iceberg.ArrowSchema(iceberg.NewSchema(0, ChangeColumns...))
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(append(append([]arrow.Field(nil), rows.Fields()...), changes.Fields()...), nil), nil
}

// Read streams one unit of a change stream of t, calling emit with each
// batch in OutputSchema(u.Schema); emit owns the batch and releases it.
// Read stops at emit's first error and returns it, and stops when ctx
// ends. Errors name the table and the file that failed.
func Read(ctx context.Context, t Table, u Unit, emit func(arrow.RecordBatch) error, opts ...Option) error {
	o := newOptions(opts)
	if err := read(ctx, t, u, emit, o); err != nil {
		return fmt.Errorf("changes of %s, snapshot %d: %w", t.Name, u.CommitSnapshotID, err)
	}
	return nil
}

func read(ctx context.Context, t Table, u Unit, emit func(arrow.RecordBatch) error, o *options) error {
	if u.Schema == nil {
		return fmt.Errorf("%w: unit without a schema", ErrInvalidRequest)
	}
	out, err := OutputSchema(u.Schema)
	if err != nil {
		return err
	}
	scan := reader.Scan{Schema: u.Schema, EqualitySchema: u.EqualitySchema, FilterSchema: u.FilterSchema}
	if u.NameMapping != "" {
		if scan.NameMapping, err = iceberg.ParseNameMapping([]byte(u.NameMapping)); err != nil {
			return fmt.Errorf("name mapping: %w", err)
		}
	}
	rd := reader.New(t.IO, reader.WithAllocator(o.mem))
	var g *group
	if u.Group {
		g = newGroup(u, o)
		defer g.release()
	}
	for _, c := range u.Changes {
		kind := Insert
		if c.Kind != AddedRows {
			kind = Delete
		}
		each := func(b arrow.RecordBatch) error {
			if g != nil {
				return g.add(b, kind)
			}
			rec, err := withChangeColumns(o.mem, out, b, constantKinds(kind, int(b.NumRows())), u)
			if err != nil {
				return err
			}
			return emit(rec)
		}
		if err := readChange(ctx, rd, scan, c, each); err != nil {
			return err
		}
	}
	if g != nil {
		return g.emit(ctx, out, emit)
	}
	return nil
}

// readChange reads one change's rows with the reader.
func readChange(ctx context.Context, rd *reader.Reader, scan reader.Scan, c Change, emit func(arrow.RecordBatch) error) error {
	if c.Task == nil {
		return fmt.Errorf("%w: change without a task", ErrInvalidRequest)
	}
	task := *c.Task
	if len(c.Residual) > 0 {
		e, err := expr.ParseJSON(c.Residual)
		if err != nil {
			return fmt.Errorf("residual of %s: %w", task.Path, err)
		}
		task.Residual = &scantask.Residual{Expr: e}
	}
	switch c.Kind {
	case AddedRows, DeletedFile:
		return rd.Read(ctx, scan, &task, emit)
	case DeletedRows:
		return rd.ReadDeleted(ctx, scan, &task, c.Earlier, emit)
	}
	return fmt.Errorf("%w: change of kind %q", ErrInvalidRequest, c.Kind)
}

func constantKinds(kind string, n int) []string {
	kinds := make([]string, n)
	for i := range kinds {
		kinds[i] = kind
	}
	return kinds
}

// withChangeColumns returns rows (which stays the caller's) with the
// change columns appended: kinds per row, the unit's ordinal and
// snapshot.
func withChangeColumns(mem memory.Allocator, out *arrow.Schema, rows arrow.RecordBatch, kinds []string, u Unit) (arrow.RecordBatch, error) {
	n := int(rows.NumRows())
	if len(kinds) != n {
		return nil, fmt.Errorf("%d change types for %d rows (internal error)", len(kinds), n)
	}
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues(kinds, nil)
	ob := array.NewInt32Builder(mem)
	defer ob.Release()
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	for range n {
		ob.Append(int32(u.Ordinal))
		ib.Append(u.CommitSnapshotID)
	}
	cols := append([]arrow.Array(nil), rows.Columns()...)
	extra := []arrow.Array{sb.NewArray(), ob.NewArray(), ib.NewArray()}
	defer func() {
		for _, a := range extra {
			a.Release()
		}
	}()
	return array.NewRecordBatch(out, append(cols, extra...), int64(n)), nil
}
