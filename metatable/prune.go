package metatable

import (
	"fmt"
	"slices"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// What a metadata table's filter prunes before rows are read, as Iceberg
// Java's metadata tables prune with it: manifests whose partition
// summaries rule out the filter's partition.* (or data_file.partition.*)
// predicates, for the files, entries and partitions tables
// (BaseMetadataTable.transformSpec: each partition field becomes an
// identity field of the metadata table's partition column); manifests of
// a content the filter's data_file.content predicates rule out, for the
// entries tables (BaseEntriesTable.ManifestContentEvaluator); snapshots
// whose id the filter's reference_snapshot_id predicates rule out, for
// all_manifests (AllManifestsTable.SnapshotEvaluator). Pruning only skips
// what no row could pass: every row is still tested by the whole filter.

// manifestPruner decides from a manifest list entry whether a manifest
// can hold rows that pass the filter.
type manifestPruner struct {
	bySpec  map[int]*expr.ManifestEvaluator
	filter  expr.Expr // rewritten without NOT, for the content test
	content bool      // test data_file.content too (entries tables)
}

// newManifestPruner returns the pruner of a scan's filter; nil prunes
// nothing.
func newManifestPruner(s *scanState) (*manifestPruner, error) {
	if s.filter == nil {
		return nil, nil
	}
	p := &manifestPruner{bySpec: map[int]*expr.ManifestEvaluator{}, filter: expr.RewriteNot(s.filter), content: s.kind.entryKind()}
	current := s.t.Metadata.CurrentSchema()
	for _, spec := range s.t.Metadata.Specs {
		identity := iceberg.PartitionSpec{ID: spec.ID, Fields: make([]iceberg.PartitionField, len(spec.Fields))}
		for i, f := range spec.Fields {
			identity.Fields[i] = iceberg.PartitionField{SourceID: f.FieldID, FieldID: f.FieldID, Name: f.Name, Transform: iceberg.IdentityTransform{}}
		}
		ev, err := expr.NewManifestEvaluator(identity, spec.PartitionType(current), s.filter)
		if err != nil {
			return nil, fmt.Errorf("partition spec %d: %w", spec.ID, err)
		}
		p.bySpec[spec.ID] = ev
	}
	return p, nil
}

// keep reports whether the manifest may hold rows that pass the filter.
func (p *manifestPruner) keep(mf *iceberg.ManifestFile) (bool, error) {
	if p == nil {
		return true, nil
	}
	if ev := p.bySpec[mf.SpecID]; ev != nil {
		if ok, err := ev.Eval(mf); err != nil || !ok {
			return false, err
		}
	}
	if p.content {
		return evalBound(p.filter, func(pr expr.Predicate) bool { return contentMightMatch(pr, mf.Content) }), nil
	}
	return true, nil
}

// contentMightMatch reports whether a manifest of content may hold files
// for which a predicate on data_file.content holds: data manifests hold
// content 0 only, delete manifests 1 and 2.
func contentMightMatch(p expr.Predicate, content iceberg.ManifestContent) bool {
	if p.Ref.ID != idDataFileContent {
		return true
	}
	holds := []int32{0}
	if content == iceberg.ManifestContentDeletes {
		holds = []int32{1, 2}
	}
	values := make([]int32, 0, len(p.Values))
	for _, v := range p.Values {
		if i, ok := v.(int32); ok {
			values = append(values, i)
		}
	}
	switch p.Op {
	case expr.OpIsNull, expr.OpIsNaN:
		return false
	case expr.OpEq, expr.OpIn:
		return slices.ContainsFunc(values, func(v int32) bool { return slices.Contains(holds, v) })
	case expr.OpNotEq, expr.OpNotIn:
		return !all(holds, func(h int32) bool { return slices.Contains(values, h) })
	}
	return true
}

// snapshotMightMatch reports whether all_manifests' rows of a snapshot
// may pass a predicate on reference_snapshot_id.
func snapshotMightMatch(p expr.Predicate, id int64) bool {
	if p.Ref.ID != idReferenceSnapshot {
		return true
	}
	switch p.Op {
	case expr.OpIsNull, expr.OpIsNaN:
		return false
	case expr.OpIn:
		return slices.ContainsFunc(p.Values, func(v any) bool { return v == any(id) })
	case expr.OpNotIn:
		return !slices.ContainsFunc(p.Values, func(v any) bool { return v == any(id) })
	}
	lit, ok := firstLong(p)
	if !ok {
		return true
	}
	switch p.Op {
	case expr.OpLt:
		return id < lit
	case expr.OpLtEq:
		return id <= lit
	case expr.OpGt:
		return id > lit
	case expr.OpGtEq:
		return id >= lit
	case expr.OpEq:
		return id == lit
	case expr.OpNotEq:
		return id != lit
	}
	return true
}

func firstLong(p expr.Predicate) (int64, bool) {
	if len(p.Values) != 1 {
		return 0, false
	}
	v, ok := p.Values[0].(int64)
	return v, ok
}

// evalBound evaluates a bound expression without NOT (RewriteNot) with
// leaf deciding whether each predicate might hold; what it cannot judge
// might.
func evalBound(e expr.Expr, leaf func(expr.Predicate) bool) bool {
	switch e := e.(type) {
	case expr.FalseExpr:
		return false
	case expr.AndExpr:
		return all(e.Terms, func(t expr.Expr) bool { return evalBound(t, leaf) })
	case expr.OrExpr:
		return slices.ContainsFunc(e.Terms, func(t expr.Expr) bool { return evalBound(t, leaf) })
	case expr.Predicate:
		return leaf(e)
	}
	return true
}

// all reports whether f holds for every element of s.
func all[E any](s []E, f func(E) bool) bool {
	return !slices.ContainsFunc(s, func(e E) bool { return !f(e) })
}
