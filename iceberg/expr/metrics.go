package expr

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// Metrics are the column statistics of a data file (or of a delete file,
// or of one Parquet row group) by field id, as manifests store them. They
// use the types of iceberg.DataFile, so a file's metrics are a view of its
// manifest entry, not a copy.
type Metrics struct {
	// RecordCount is the number of rows; negative when unknown.
	RecordCount int64
	// ValueCounts, NullCounts and NaNCounts count values (nulls and NaNs
	// included), nulls and NaNs per column; a missing entry is unknown.
	ValueCounts, NullCounts, NaNCounts iceberg.ColumnCounts
	// Lower and Upper are bounds in the single-value binary serialization
	// of the column's type when written (Appendix D). String and binary
	// bounds may be truncated: a lower bound to a prefix, an upper bound
	// to a prefix incremented so it stays above every value.
	Lower, Upper iceberg.ColumnBounds
}

// MetricsOf returns the metrics a manifest holds for a file, sharing the
// file's memory.
func MetricsOf(df *iceberg.DataFile) Metrics {
	return Metrics{
		RecordCount: df.RecordCount,
		ValueCounts: df.ValueCounts,
		NullCounts:  df.NullValueCounts,
		NaNCounts:   df.NaNValueCounts,
		Lower:       df.LowerBounds,
		Upper:       df.UpperBounds,
	}
}

// MetricsEvaluator decides from a file's column metrics whether rows can
// match a filter (inclusive: false means no row matches, so the file is
// skipped) or whether all rows must match (strict: true means the filter
// need not be applied to the file's rows). It follows Iceberg Java's
// InclusiveMetricsEvaluator and StrictMetricsEvaluator.
type MetricsEvaluator struct {
	filter    Expr
	inclusive bool
	topLevel  map[int]bool
}

// NewMetricsEvaluator prepares a filter for metrics evaluation. An unbound
// filter is bound to schema case-sensitively. Bounds are decoded with the
// type of the column in schema, so bounds written before a type promotion
// (int to long, float to double, date to timestamp) read correctly.
func NewMetricsEvaluator(schema *iceberg.Schema, e Expr, inclusive bool) (*MetricsEvaluator, error) {
	if err := checkDepth(e); err != nil {
		return nil, err
	}
	if !IsBound(e) {
		bound, err := Bind(e, schema, true)
		if err != nil {
			return nil, err
		}
		e = bound
	}
	top := make(map[int]bool, len(schema.Fields))
	for _, f := range schema.Fields {
		top[f.ID] = true
	}
	return &MetricsEvaluator{filter: RewriteNot(e), inclusive: inclusive, topLevel: top}, nil
}

// Eval evaluates the filter on a data or delete file's metrics.
func (m *MetricsEvaluator) Eval(df *iceberg.DataFile) (bool, error) {
	ok, err := m.EvalMetrics(MetricsOf(df))
	if err != nil {
		return false, fmt.Errorf("metrics of %s: %w", df.Path, err)
	}
	return ok, nil
}

// EvalMetrics evaluates the filter on metrics. A bound that does not
// decode as its column's type is an error wrapping iceberg.ErrInvalidMetadata.
func (m *MetricsEvaluator) EvalMetrics(mt Metrics) (bool, error) {
	if m.inclusive {
		switch {
		case mt.RecordCount == 0:
			return false, nil // no rows, nothing can match
		case mt.RecordCount < 0:
			return true, nil
		}
		return visitBool(m.filter, func(p Predicate) (bool, error) {
			c, err := newColumnStats(mt, p)
			if err != nil {
				return false, err
			}
			return c.mightMatch(p), nil
		})
	}
	if mt.RecordCount <= 0 {
		return true, nil // every row of an empty file matches
	}
	return visitBool(m.filter, func(p Predicate) (bool, error) {
		c, err := newColumnStats(mt, p)
		if err != nil {
			return false, err
		}
		return c.mustMatch(p, m.topLevel[p.Ref.ID]), nil
	})
}

// columnStats are one column's metrics, bounds decoded.
type columnStats struct {
	values, nulls, nans          int64
	hasValues, hasNulls, hasNaNs bool
	lower, upper                 any // nil when absent (or inverted)
	floating                     bool
}

func newColumnStats(mt Metrics, p Predicate) (columnStats, error) {
	id := p.Ref.ID
	c := columnStats{floating: isFloating(p.Ref.Type)}
	c.values, c.hasValues = mt.ValueCounts.Get(id)
	c.nulls, c.hasNulls = mt.NullCounts.Get(id)
	c.nans, c.hasNaNs = mt.NaNCounts.Get(id)
	if p.Op.Unary() {
		return c, nil
	}
	lo, _ := mt.Lower.Get(id)
	hi, _ := mt.Upper.Get(id)
	lower, upper, err := decodeBounds(p.Ref.Type, lo, hi)
	if err != nil {
		return c, fmt.Errorf("column %s (id %d): %w", p.Ref.Name, id, err)
	}
	c.lower, c.upper = lower, upper
	return c, nil
}

// mayContainNull is false only when a null count of 0 is recorded.
func (c columnStats) mayContainNull() bool { return !c.hasNulls || c.nulls != 0 }

// nullsOnly is true when the counts show every value is null.
func (c columnStats) nullsOnly() bool {
	return c.hasValues && c.hasNulls && c.values-c.nulls == 0
}

// mayContainNaN is false only when a NaN count of 0 is recorded.
func (c columnStats) mayContainNaN() bool { return !c.hasNaNs || c.nans != 0 }

// nanOnly is true when the counts show every value is NaN.
func (c columnStats) nanOnly() bool { return c.hasNaNs && c.hasValues && c.nans == c.values }

// canContainNaN, for strict evaluation, assumes a float column without a
// NaN count may hold NaN (writers before NaN counts put NaN in bounds);
// Java assumes it does not.
func (c columnStats) canContainNaN() bool { return c.floating && (!c.hasNaNs || c.nans > 0) }

// uniqueValue returns the column's only value when bounds and counts prove
// there is one (no nulls, no NaN, lower = upper), else nil.
func (c columnStats) uniqueValue() any {
	if c.mayContainNull() || c.lower == nil || c.upper == nil || isNaN(c.lower) || isNaN(c.upper) {
		return nil
	}
	if c.floating && c.mayContainNaN() {
		return nil
	}
	if cmp, ok := compareValues(c.lower, c.upper); !ok || cmp != 0 {
		return nil
	}
	return c.lower
}
