package writer

import (
	"context"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// posColumn is the row position metadata column.
const posColumn = "_pos"

// parseFilter parses a filter of the filter grammar; its errors are the
// caller's, so they wrap ErrInvalidArgument.
func parseFilter(id catalog.Identifier, s string) (expr.Expr, error) {
	f, err := planner.ParseFilter(s)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w: filter %q: %w", id, ErrInvalidArgument, s, err)
	}
	return f, nil
}

// matchPlan is the files of a branch head a filter may match, planned
// to read their row positions: one entry per data file, with every task
// (split) of it.
type matchPlan struct {
	plan  *planner.Plan
	scan  reader.Scan
	files map[string][]*scantask.Task // by recorded location
	order []string
}

// covered reports whether every row of the file matches: the planner
// left it no residual (partition or strict metrics settle it).
func (m *matchPlan) covered(loc string) bool {
	for _, task := range m.files[loc] {
		if task.Residual != nil {
			return false
		}
	}
	return true
}

// planMatches plans the filter on the branch head of t, projecting cols
// (nil: _pos only).
func (w *Writer) planMatches(ctx context.Context, t *catalog.Table, branch string, filter expr.Expr, cols []string) (*matchPlan, error) {
	if branch == "" {
		branch = mainBranch
	}
	if cols == nil {
		cols = []string{posColumn}
	}
	pt := planner.Table{Name: t.Identifier.String(), MetadataLocation: t.MetadataLocation, Metadata: t.Metadata, IO: t.IO, Check: t.CheckFile}
	req := planner.Request{Columns: cols, CaseSensitive: false, Filter: filter, TargetSplitBytes: math.MaxInt64 / 2}
	if _, ok := t.Metadata.Refs[branch]; ok {
		req.Ref = branch
	}
	plan, err := w.planner.Plan(ctx, pt, req)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", t.Identifier, err)
	}
	mapping, err := t.Metadata.NameMapping()
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Identifier, err)
	}
	m := &matchPlan{plan: plan, files: map[string][]*scantask.Task{},
		scan: reader.Scan{Schema: plan.Schema, NameMapping: mapping, EqualitySchema: plan.EqualitySchema, FilterSchema: plan.FilterSchema}}
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			loc := task.FilePath
			if loc == "" {
				loc = task.Path
			}
			if _, ok := m.files[loc]; !ok {
				m.order = append(m.order, loc)
			}
			m.files[loc] = append(m.files[loc], task)
		}
	}
	return m, nil
}

// readerFor returns the reader of the table's files: the writer's own
// (its allocator and delete cache) through the table's FileIO, which may
// hold credentials of its own.
func (w *Writer) readerFor(t *catalog.Table) *reader.Reader {
	if w.reader != nil {
		return w.reader.WithFileIO(t.IO)
	}
	return reader.New(t.IO, reader.WithAllocator(w.mem))
}

// positions returns the row positions of the tasks' rows that survive
// their deletes and residuals; noResidual reads every live row.
func positions(ctx context.Context, rd *reader.Reader, scan reader.Scan, tasks []*scantask.Task, noResidual bool) (*roaring64.Bitmap, error) {
	bm := roaring64.New()
	idx := -1
	for i, f := range scan.Schema.Fields {
		if f.ID == iceberg.FieldIDRowPosition {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("%w: scan projects no %s column", iceberg.ErrInvalidMetadata, posColumn)
	}
	for _, task := range tasks {
		if noResidual {
			task = withoutResidual(task)
		}
		err := rd.Read(ctx, scan, task, func(b arrow.RecordBatch) error {
			col, ok := b.Column(idx).(*array.Int64)
			if !ok {
				return fmt.Errorf("%s column of %s is %s, want int64", posColumn, task.Path, b.Column(idx).DataType())
			}
			for i := 0; i < col.Len(); i++ {
				bm.Add(uint64(col.Value(i)))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", task.FilePath, err)
		}
	}
	return bm, nil
}

// withoutResidual is a copy of task that reads every live row; the plan's
// task, which other reads may share, is left as it is.
func withoutResidual(task *scantask.Task) *scantask.Task {
	t := *task
	t.Residual = nil
	return &t
}
