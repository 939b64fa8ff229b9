package metatable

import (
	"fmt"
	"slices"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// scanState is what a read of one unit shares across its rows: the
// metadata table's schema, the projection, the bound filter and where the
// filter's fields are.
type scanState struct {
	t    Table
	kind Kind
	// snap is the snapshot read by the tables of one snapshot; nil for the
	// tables of the whole table or a table without snapshots.
	snap            *iceberg.Snapshot
	full, projected *iceberg.Schema
	// filter is bound to full; nil keeps every row.
	filter expr.Expr
	// filterPaths gives, for each field the filter tests, the ids from its
	// top-level column down to it; filterTops gives, for those top-level
	// columns, their types pruned to what the filter tests (a filter on
	// one column's readable metrics computes no other column's).
	filterPaths map[int][]int
	filterTops  map[int]iceberg.Type
}

// newScanState prepares the read of a unit of table t.
func newScanState(t Table, u Unit) (*scanState, error) {
	full, err := Schema(u.Kind, t.Metadata)
	if err != nil {
		return nil, err
	}
	s := &scanState{t: t, kind: u.Kind, full: full}
	if u.SnapshotID != nil {
		snap, ok := t.Metadata.SnapshotByID(*u.SnapshotID)
		if !ok {
			return nil, fmt.Errorf("%w: %s table: snapshot %d is not in the table's metadata", ErrInvalidUnit, u.Kind, *u.SnapshotID)
		}
		s.snap = snap
	}
	if s.projected, err = projectIDs(full, u.Columns); err != nil {
		return nil, err
	}
	if len(u.Filter) > 0 {
		e, err := expr.ParseJSON(u.Filter)
		if err != nil {
			return nil, fmt.Errorf("%w: filter: %v", ErrInvalidUnit, err)
		}
		if err := s.bindFilter(e, u.CaseSensitive); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// bindFilter binds e to the metadata table's schema and finds its fields.
func (s *scanState) bindFilter(e expr.Expr, caseSensitive bool) error {
	bound, err := expr.Bind(e, s.full, caseSensitive)
	if err != nil {
		return fmt.Errorf("filter of the %s table: %w", s.kind, err)
	}
	if _, all := bound.(expr.TrueExpr); all {
		return nil
	}
	s.filter = bound
	s.filterPaths, s.filterTops = map[int][]int{}, map[int]iceberg.Type{}
	var ids []int
	expr.Walk(bound, func(p expr.Predicate) {
		if path := fieldPath(s.full.Fields, p.Ref.ID); path != nil {
			s.filterPaths[p.Ref.ID] = path
			ids = append(ids, p.Ref.ID)
		}
	})
	for _, f := range iceberg.SelectIDs([]*iceberg.Schema{s.full}, ids...).Fields {
		s.filterTops[f.ID] = f.Type
	}
	return nil
}

// fieldPath returns the ids from a top-level field down to the field id,
// through structs; nil when no struct path leads to it.
func fieldPath(fields []iceberg.NestedField, id int) []int {
	for _, f := range fields {
		if f.ID == id {
			return []int{id}
		}
		if st, ok := f.Type.(*iceberg.StructType); ok {
			if rest := fieldPath(st.Fields, id); rest != nil {
				return append([]int{f.ID}, rest...)
			}
		}
	}
	return nil
}

// projectIDs returns the schema of the fields with ids, each inside its
// enclosing structs, in the schema's order, as Iceberg Java's projection
// of a metadata table keeps it whatever the order asked. An id that is not
// a field of the schema (reached through structs) is an error wrapping
// ErrInvalidUnit.
func projectIDs(full *iceberg.Schema, ids []int) (*iceberg.Schema, error) {
	for _, id := range ids {
		if fieldPath(full.Fields, id) == nil {
			return nil, fmt.Errorf("%w: column id %d is not a field of the metadata table", ErrInvalidUnit, id)
		}
	}
	position := map[int]int{}
	for i, f := range full.Fields {
		position[f.ID] = i
	}
	fields := slices.Clone(iceberg.SelectIDs([]*iceberg.Schema{full}, ids...).Fields)
	slices.SortFunc(fields, func(a, b iceberg.NestedField) int { return position[a.ID] - position[b.ID] })
	return iceberg.NewSchema(0, fields...), nil
}

// columnIDs returns the ids that select projected out of full for
// projectIDs: a field's own id where the projection keeps it whole, else
// those of what it keeps below it.
func columnIDs(full, projected []iceberg.NestedField) []int {
	ids := []int{}
	for _, p := range projected {
		i := slices.IndexFunc(full, func(f iceberg.NestedField) bool { return f.ID == p.ID })
		if i < 0 {
			continue
		}
		ps, pok := p.Type.(*iceberg.StructType)
		fs, fok := full[i].Type.(*iceberg.StructType)
		if !pok || !fok || len(ps.Fields) == len(fs.Fields) && ps.String() == fs.String() {
			ids = append(ids, p.ID)
			continue
		}
		ids = append(ids, columnIDs(fs.Fields, ps.Fields)...)
	}
	return ids
}
