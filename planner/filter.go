package planner

import (
	"bytes"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// ParseFilter reads a filter in either form the command accepts: the
// Iceberg REST catalog's Expression JSON (an object, or true/false), or
// the SQL-like string syntax of package expr.
func ParseFilter(s string) (expr.Expr, error) {
	trimmed := bytes.TrimSpace([]byte(s))
	if len(trimmed) > 0 && (trimmed[0] == '{' || string(trimmed) == "true" || string(trimmed) == "false") {
		return expr.ParseJSON(trimmed)
	}
	return expr.Parse(s)
}

// filterSchema returns the fields the tasks' residuals test, inside their
// enclosing structs, or nil when no task has a residual.
func (f *scanFilter) filterSchema(schema *iceberg.Schema, tasks []*Task) *iceberg.Schema {
	if f == nil {
		return nil
	}
	residual := false
	for _, t := range tasks {
		residual = residual || t.Residual != nil
	}
	if !residual {
		return nil
	}
	var ids []int
	expr.Walk(f.bound, func(p expr.Predicate) { ids = append(ids, p.Ref.ID) })
	return iceberg.SelectIDs([]*iceberg.Schema{schema}, ids...)
}

// scanFilter is a row filter bound to the scan's schema, with the
// evaluators of each partition spec built once per plan.
type scanFilter struct {
	// defaulted lists the filter's fields that have an initial-default: a
	// file written before such a field existed has no metrics for it, yet
	// its rows hold the default, not null, so metrics cannot judge them.
	defaulted []int
	bound     expr.Expr
	inclusive *expr.MetricsEvaluator
	strict    *expr.MetricsEvaluator
	specs     map[int]*specFilter
	md        *iceberg.TableMetadata
}

type specFilter struct {
	manifest  *expr.ManifestEvaluator
	partition *expr.PartitionEvaluator
	// unpartitioned is the residual of every file of a spec without
	// fields, the whole filter, shared: a ticket of a filter of megabytes
	// then encodes it once, not once per file.
	unpartitioned *scantask.Residual
}

// newScanFilter binds a filter; nil means no filter.
func newScanFilter(md *iceberg.TableMetadata, schema *iceberg.Schema, filter expr.Expr, caseSensitive bool) (*scanFilter, error) {
	if filter == nil {
		return nil, nil
	}
	bound, err := expr.Bind(filter, schema, caseSensitive)
	if err != nil {
		return nil, err
	}
	if _, ok := bound.(expr.TrueExpr); ok {
		return nil, nil
	}
	inclusive, err := expr.NewMetricsEvaluator(schema, bound, true)
	if err != nil {
		return nil, err
	}
	strict, err := expr.NewMetricsEvaluator(schema, bound, false)
	if err != nil {
		return nil, err
	}
	f := &scanFilter{bound: bound, inclusive: inclusive, strict: strict, specs: map[int]*specFilter{}, md: md}
	expr.Walk(bound, func(p expr.Predicate) {
		if field, ok := schema.FieldByID(p.Ref.ID); ok && field.InitialDefault != nil {
			f.defaulted = append(f.defaulted, p.Ref.ID)
		}
	})
	if err := f.prepare(); err != nil {
		return nil, err
	}
	return f, nil
}

// metricColumns returns the columns whose metrics the filter's evaluators
// read: those it tests. A scan without a filter needs none.
func (f *scanFilter) metricColumns() iceberg.MetricColumns {
	if f == nil {
		return iceberg.MetricColumns{}
	}
	var ids []int
	expr.Walk(f.bound, func(p expr.Predicate) { ids = append(ids, p.Ref.ID) })
	return iceberg.MetricsOf(ids...)
}

// metricsApply reports whether a data file's metrics describe every field
// the filter tests; see defaulted.
func (f *scanFilter) metricsApply(df *iceberg.DataFile) bool {
	for _, id := range f.defaulted {
		_, values := df.ValueCounts.Get(id)
		_, nulls := df.NullValueCounts.Get(id)
		if !values && !nulls {
			return false
		}
	}
	return true
}

// prepare builds the evaluators of every spec up front, so the parallel
// manifest readers only read the map.
func (f *scanFilter) prepare() error {
	for _, spec := range f.md.Specs {
		pt := partitionType(f.md, spec)
		m, err := expr.NewManifestEvaluator(spec, pt, f.bound)
		if err != nil {
			return fmt.Errorf("partition spec %d: %w", spec.ID, err)
		}
		p, err := expr.NewPartitionEvaluator(spec, pt, f.bound)
		if err != nil {
			return fmt.Errorf("partition spec %d: %w", spec.ID, err)
		}
		sf := &specFilter{manifest: m, partition: p}
		if len(spec.Fields) == 0 {
			sf.unpartitioned = newResidual(expr.Residual(spec, nil, f.bound))
		}
		f.specs[spec.ID] = sf
	}
	return nil
}

// forSpec returns a spec's evaluators; nil for no filter.
func (f *scanFilter) forSpec(id int) *specFilter {
	if f == nil {
		return nil
	}
	return f.specs[id]
}

// residual returns the filter still to apply to a data file's rows, or
// nil when its partition or its metrics prove that every row matches.
func (f *scanFilter) residual(spec iceberg.PartitionSpec, df *iceberg.DataFile) *scantask.Residual {
	if f == nil {
		return nil
	}
	sf := f.specs[spec.ID]
	var r expr.Expr
	if sf == nil || sf.unpartitioned == nil {
		r = expr.Residual(spec, df.Partition, f.bound)
		if _, ok := r.(expr.TrueExpr); ok {
			return nil
		}
	}
	if all, err := f.strict.Eval(df); err == nil && all && f.metricsApply(df) {
		return nil
	}
	if r == nil {
		return sf.unpartitioned
	}
	return newResidual(r)
}

// newResidual is r as a task carries it; nil when every row matches.
func newResidual(r expr.Expr) *scantask.Residual {
	if _, ok := r.(expr.TrueExpr); ok {
		return nil
	}
	return &scantask.Residual{Expr: r}
}
