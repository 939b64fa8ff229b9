package changelog

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
)

// Request is a change stream between two snapshots.
type Request struct {
	// FromSnapshotID is the exclusive start: an ancestor of ToSnapshotID
	// (it may have expired). Nil starts before the oldest ancestor.
	FromSnapshotID *int64
	// ToSnapshotID is the inclusive end.
	ToSnapshotID int64
	// Columns selects the table's columns by name (and _row_id, where the
	// table has row lineage); nil selects all. The change columns follow
	// them.
	Columns       []string
	Filter        expr.Expr
	CaseSensitive bool
	// ComputeUpdates pairs a delete and an insert of one identifier in one
	// snapshot into update_before and update_after (Spark's
	// compute_updates), by IdentifierColumns or, when they are empty, the
	// table's identifier fields.
	ComputeUpdates    bool
	IdentifierColumns []string
}

// Scan is a planned change stream.
type Scan struct {
	// Schema is the projected table schema; the batches Read emits have
	// OutputSchema(Schema)'s columns.
	Schema *iceberg.Schema
	// Units are the pieces Read streams, oldest snapshot first.
	Units []Unit
	// Snapshots counts the snapshots of the range that change rows.
	Snapshots int
}

// Plan plans the changes of t from r.FromSnapshotID to r.ToSnapshotID.
// Errors name the table and wrap the package's sentinels or the
// planner's.
func Plan(ctx context.Context, t Table, r Request, opts ...Option) (*Scan, error) {
	o := newOptions(opts)
	scan, err := plan(ctx, t, r, o)
	if err != nil {
		return nil, fmt.Errorf("changes of %s: %w", t.Name, err)
	}
	return scan, nil
}

func plan(ctx context.Context, t Table, r Request, o *options) (*Scan, error) {
	snaps, err := walkRange(t.Metadata, r.FromSnapshotID, r.ToSnapshotID)
	if err != nil {
		return nil, err
	}
	p := &snapshotPlanner{t: t, r: r, o: o}
	// The schema comes from an incremental plan of the end snapshot alone:
	// the current schema, as Java's changelog reads with, without reading
	// more than the end snapshot's own manifests.
	head, err := p.appends(ctx, r.ToSnapshotID)
	if err != nil {
		return nil, err
	}
	scan := &Scan{Schema: head.Schema}
	if p.identifier, err = identifierIDs(t.Metadata, head.Schema, r); err != nil {
		return nil, err
	}
	for _, rs := range snaps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		units, err := p.snapshotUnits(ctx, rs)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", rs.snap.SnapshotID, err)
		}
		scan.Units = append(scan.Units, units...)
	}
	scan.Snapshots = len(snaps)
	for i := range scan.Units {
		scan.Units[i].Schema = head.Schema
		scan.Units[i].Identifier = p.identifier
	}
	return scan, nil
}

// identifierIDs resolves the columns updates are computed by; nil when
// the request computes none. They must be projected: Spark compares
// them in the view's rows.
func identifierIDs(md *iceberg.TableMetadata, projected *iceberg.Schema, r Request) ([]int, error) {
	if !r.ComputeUpdates {
		return nil, nil
	}
	var ids []int
	if len(r.IdentifierColumns) == 0 {
		ids = md.CurrentSchema().IdentifierFieldIDs
		if len(ids) == 0 {
			return nil, fmt.Errorf("%w: computing updates needs identifier columns, and the table has no identifier fields", ErrInvalidRequest)
		}
	}
	for _, name := range r.IdentifierColumns {
		f, ok := md.CurrentSchema().FindColumn(name, r.CaseSensitive)
		if !ok {
			return nil, fmt.Errorf("%w: identifier column %q is not in the table", ErrInvalidRequest, name)
		}
		ids = append(ids, f.ID)
	}
	for _, id := range ids {
		if _, ok := projected.FieldByID(id); !ok {
			return nil, fmt.Errorf("%w: identifier field %d must be among the columns", ErrInvalidRequest, id)
		}
	}
	return ids, nil
}

// snapshotPlanner plans the snapshots of a range one after another,
// keeping the last full plan for the next snapshot, whose parent it
// usually is.
type snapshotPlanner struct {
	t          Table
	r          Request
	o          *options
	identifier []int
	last       *planner.Plan
}

// appends plans the data files snapshot id appended, reading its manifest
// list and the data manifests it wrote only.
func (p *snapshotPlanner) appends(ctx context.Context, id int64) (*planner.Plan, error) {
	s, _ := p.t.Metadata.SnapshotByID(id)
	return p.o.planner.Plan(ctx, p.t, planner.Request{Columns: p.r.Columns, Filter: p.r.Filter, CaseSensitive: p.r.CaseSensitive,
		Incremental: &planner.Incremental{FromSnapshotID: s.ParentSnapshotID, ToSnapshotID: id}, KeepFiles: true})
}

// full plans the live files of a snapshot with their deletes; nil for no
// snapshot.
func (p *snapshotPlanner) full(ctx context.Context, id *int64) (*planner.Plan, error) {
	if id == nil {
		return &planner.Plan{}, nil
	}
	if p.last != nil && p.last.Snapshot != nil && p.last.Snapshot.SnapshotID == *id {
		return p.last, nil
	}
	if _, ok := p.t.Metadata.SnapshotByID(*id); !ok {
		return nil, fmt.Errorf("%w: snapshot %d, whose files the next one changes, is not in the metadata", ErrSnapshotExpired, *id)
	}
	plan, err := p.o.planner.Plan(ctx, p.t, planner.Request{Selection: planner.Selection{SnapshotID: id},
		Filter: p.r.Filter, CaseSensitive: p.r.CaseSensitive, KeepFiles: true})
	if err != nil {
		return nil, err
	}
	p.last = plan
	return plan, nil
}

// snapshotUnits plans one snapshot's changes.
func (p *snapshotPlanner) snapshotUnits(ctx context.Context, rs rangeSnapshot) ([]Unit, error) {
	base := Unit{Ordinal: rs.ordinal, CommitSnapshotID: rs.snap.SnapshotID, NameMapping: p.t.Metadata.Properties["schema.name-mapping.default"]}
	if rs.snap.Operation() == "append" {
		plan, err := p.appends(ctx, rs.snap.SnapshotID)
		if err != nil {
			return nil, err
		}
		var changes []Change
		for _, task := range tasksOf(plan) {
			c, err := newChange(AddedRows, task, task.Deletes, nil)
			if err != nil {
				return nil, err
			}
			changes = append(changes, c)
		}
		base.FilterSchema = plan.FilterSchema
		return split(base, changes), nil
	}
	before, err := p.full(ctx, rs.snap.ParentSnapshotID)
	if err != nil {
		return nil, err
	}
	after, err := p.full(ctx, &rs.snap.SnapshotID)
	if err != nil {
		return nil, err
	}
	changes, err := diff(before, after)
	if err != nil {
		return nil, err
	}
	base.EqualitySchema = mergeSchemas(before.EqualitySchema, after.EqualitySchema)
	base.FilterSchema = mergeSchemas(before.FilterSchema, after.FilterSchema)
	inserts, deletes := false, false
	for _, c := range changes {
		inserts = inserts || c.Kind == AddedRows
		deletes = deletes || c.Kind != AddedRows
	}
	if inserts && deletes {
		base.Group = true
		base.Changes = changes
		return []Unit{base}, nil
	}
	return split(base, changes), nil
}

// split makes a unit of each change: a snapshot that only inserts or only
// deletes has no carry-overs or updates to find across its files.
func split(base Unit, changes []Change) []Unit {
	units := make([]Unit, len(changes))
	for i, c := range changes {
		units[i] = base
		units[i].Changes = []Change{c}
	}
	return units
}

// diff tells the changes of a snapshot from its live files and deletes
// and its parent's. Files are told apart by their recorded paths, which
// a table never reuses.
func diff(before, after *planner.Plan) ([]Change, error) {
	old := map[string]*scantask.Task{}
	for _, task := range tasksOf(before) {
		old[recorded(task)] = task
	}
	var changes []Change
	for _, task := range tasksOf(after) {
		prev, kept := old[recorded(task)]
		if !kept {
			c, err := newChange(AddedRows, task, task.Deletes, nil)
			if err != nil {
				return nil, err
			}
			changes = append(changes, c)
			continue
		}
		delete(old, recorded(task))
		had := map[string]bool{}
		for _, d := range prev.Deletes {
			had[d.Path] = true
		}
		var added []*scantask.DeleteFile
		for _, d := range task.Deletes {
			if !had[d.Path] {
				added = append(added, d)
			}
		}
		if len(added) == 0 {
			continue
		}
		c, err := newChange(DeletedRows, task, added, prev.Deletes)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c)
	}
	// Removed files in the parent plan's order, for a stable plan.
	for _, task := range tasksOf(before) {
		if _, removed := old[recorded(task)]; removed {
			c, err := newChange(DeletedFile, task, task.Deletes, nil)
			if err != nil {
				return nil, err
			}
			changes = append(changes, c)
		}
	}
	return changes, nil
}

// newChange copies a planned task into a change with the given deletes,
// dropping what a unit does not carry (the manifest's file records) and
// carrying the residual as JSON.
func newChange(kind ChangeKind, task *scantask.Task, deletes, earlier []*scantask.DeleteFile) (Change, error) {
	t := *task
	t.File = nil
	t.Residual = nil
	t.Deletes = stripFiles(deletes)
	c := Change{Kind: kind, Task: &t, Earlier: stripFiles(earlier)}
	if task.Residual != nil && task.Residual.Expr != nil {
		if _, always := task.Residual.Expr.(expr.TrueExpr); !always {
			b, err := json.Marshal(task.Residual.Expr)
			if err != nil {
				return Change{}, fmt.Errorf("residual of %s: %w", task.Path, err)
			}
			c.Residual = b
		}
	}
	return c, nil
}

func stripFiles(deletes []*scantask.DeleteFile) []*scantask.DeleteFile {
	if len(deletes) == 0 {
		return nil
	}
	out := make([]*scantask.DeleteFile, len(deletes))
	for i, d := range deletes {
		c := *d
		c.File = nil
		out[i] = &c
	}
	return out
}

func tasksOf(p *planner.Plan) []*scantask.Task {
	var out []*scantask.Task
	for _, e := range p.Endpoints {
		out = append(out, e.Tasks...)
	}
	return out
}

func recorded(t *scantask.Task) string {
	if t.FilePath != "" {
		return t.FilePath
	}
	return t.Path
}

// mergeSchemas joins the fields of two plans' schemas; nil when both are.
func mergeSchemas(a, b *iceberg.Schema) *iceberg.Schema {
	var schemas []*iceberg.Schema
	var ids []int
	for _, s := range []*iceberg.Schema{a, b} {
		if s == nil {
			continue
		}
		schemas = append(schemas, s)
		for _, f := range s.Fields {
			ids = append(ids, f.ID)
		}
	}
	if len(schemas) == 0 {
		return nil
	}
	if len(schemas) == 1 {
		return schemas[0]
	}
	return iceberg.SelectIDs(schemas, ids...)
}
