package expr

import (
	"bytes"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// ManifestEvaluator decides from a manifest list entry's partition field
// summaries whether the manifest can hold files matching a row filter, so
// planning can skip reading it (spec: "Scan Planning"). It follows Iceberg
// Java's ManifestEvaluator.
type ManifestEvaluator struct {
	filter Expr
	pos    map[int]int
}

// NewManifestEvaluator projects a bound row filter inclusively onto spec,
// the spec of the manifests it will see; partType orders the summaries
// (nil means spec order).
func NewManifestEvaluator(spec iceberg.PartitionSpec, partType *iceberg.StructType, rowFilter Expr) (*ManifestEvaluator, error) {
	if err := checkDepth(rowFilter); err != nil {
		return nil, err
	}
	if !IsBound(rowFilter) {
		return nil, fmt.Errorf("%w: manifest evaluator needs a bound filter", ErrInvalidFilter)
	}
	filter, err := Inclusive(spec, nil, rowFilter)
	if err != nil {
		return nil, err
	}
	return &ManifestEvaluator{filter: filter, pos: positions(spec, partType)}, nil
}

// Eval reports whether the manifest may hold matching files. Manifests
// without summaries may. A bound that does not decode as its partition
// field's type is an error wrapping iceberg.ErrInvalidMetadata.
func (e *ManifestEvaluator) Eval(m *iceberg.ManifestFile) (bool, error) {
	if m.Partitions == nil {
		// Without summaries only a constant filter decides.
		return visitBool(e.filter, func(Predicate) (bool, error) { return true, nil })
	}
	return visitBool(e.filter, func(p Predicate) (bool, error) {
		i, found := e.pos[p.Ref.ID]
		if !found || i >= len(m.Partitions) {
			return true, nil
		}
		ok, err := summaryMightMatch(p, m.Partitions[i])
		if err != nil {
			return false, fmt.Errorf("manifest %s: partition field %s: %w", m.Path, p.Ref.Name, err)
		}
		return ok, nil
	})
}

// visitBool evaluates an expression with NOT already pushed down, leaving
// predicates to leaf.
func visitBool(e Expr, leaf func(Predicate) (bool, error)) (bool, error) {
	switch e := e.(type) {
	case TrueExpr:
		return true, nil
	case FalseExpr:
		return false, nil
	case NotExpr:
		v, err := visitBool(e.Child, leaf)
		return !v, err
	case AndExpr:
		for _, t := range e.Terms {
			if ok, err := visitBool(t, leaf); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case OrExpr:
		for _, t := range e.Terms {
			if ok, err := visitBool(t, leaf); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case Predicate:
		return leaf(e)
	}
	return true, nil
}

func summaryMightMatch(p Predicate, s iceberg.FieldSummary) (bool, error) {
	floating := isFloating(p.Ref.Type)
	// All values null: no lower bound, and for floats no NaN either.
	allNull := s.ContainsNull && s.LowerBound == nil &&
		(!floating || (s.ContainsNaN != nil && !*s.ContainsNaN))
	switch p.Op {
	case OpIsNull:
		return s.ContainsNull, nil
	case OpNotNull:
		return !allNull, nil
	case OpIsNaN:
		return !(s.ContainsNaN != nil && !*s.ContainsNaN) && !allNull, nil
	case OpNotNaN:
		onlyNaN := s.ContainsNaN != nil && *s.ContainsNaN && !s.ContainsNull && s.LowerBound == nil
		return !onlyNaN, nil
	case OpNotStartsWith:
		return summaryNotStartsWith(p, s), nil
	}
	lower, upper, err := decodeBounds(p.Ref.Type, s.LowerBound, s.UpperBound)
	if err != nil {
		return false, err
	}
	if p.Op == OpNotEq || p.Op == OpNotIn {
		// Only a manifest whose every value is one excluded value fails.
		if s.ContainsNull || lower == nil || upper == nil || (floating && (s.ContainsNaN == nil || *s.ContainsNaN)) {
			return true, nil
		}
		if c, ok := compareValues(lower, upper); !ok || c != 0 {
			return true, nil
		}
		if p.Op == OpNotEq {
			c, ok := compareValues(lower, p.Values[0])
			return !ok || c != 0, nil
		}
		return !containsValue(p.Values, lower), nil
	}
	if s.LowerBound == nil {
		return false, nil // every value is null (or NaN), which no comparison matches
	}
	if lower == nil || upper == nil {
		return true, nil // bounds inverted or unusable
	}
	return boundsMightMatch(p, lower, upper), nil
}

// decodeBounds decodes lower and upper bounds; both come back nil when
// they are inverted (lower > upper), as UUID bounds written with Java's
// signed comparison can be.
func decodeBounds(t iceberg.Type, lo, hi []byte) (any, any, error) {
	var lower, upper any
	var err error
	if lo != nil {
		if lower, err = iceberg.DecodeValue(t, lo); err != nil {
			return nil, nil, fmt.Errorf("lower bound: %w", err)
		}
	}
	if hi != nil {
		if upper, err = iceberg.DecodeValue(t, hi); err != nil {
			return nil, nil, fmt.Errorf("upper bound: %w", err)
		}
	}
	if lower != nil && upper != nil {
		if c, ok := compareValues(lower, upper); ok && c > 0 {
			return nil, nil, nil
		}
	}
	return lower, upper, nil
}

// boundsMightMatch reports whether some value in [lower, upper] can satisfy
// an ordering predicate. Unordered comparisons (NaN bounds) might.
func boundsMightMatch(p Predicate, lower, upper any) bool {
	cmp := func(a, b any) (int, bool) { return compareValues(a, b) }
	switch p.Op {
	case OpLt:
		c, ok := cmp(lower, p.Values[0])
		return !ok || c < 0
	case OpLtEq:
		c, ok := cmp(lower, p.Values[0])
		return !ok || c <= 0
	case OpGt:
		c, ok := cmp(upper, p.Values[0])
		return !ok || c > 0
	case OpGtEq:
		c, ok := cmp(upper, p.Values[0])
		return !ok || c >= 0
	case OpEq:
		return within(p.Values[0], lower, upper)
	case OpIn:
		return anyWithin(p.Values, lower, upper)
	case OpStartsWith:
		return prefixMightMatch(p, lower, upper)
	}
	return true
}

// within reports whether v may lie in [lower, upper]; a nil bound is open.
func within(v, lower, upper any) bool {
	if lower != nil {
		if c, ok := compareValues(lower, v); ok && c > 0 {
			return false
		}
	}
	if upper != nil {
		if c, ok := compareValues(upper, v); ok && c < 0 {
			return false
		}
	}
	return true
}

// prefixMightMatch compares the bounds, cut to the prefix's length, with
// the prefix; either bound may be nil (unknown).
func prefixMightMatch(p Predicate, lower, upper any) bool {
	s, _ := firstValue(p).(string)
	prefix := []byte(s)
	if lo, ok := lower.(string); ok && bytes.Compare(cut([]byte(lo), len(prefix)), prefix) > 0 {
		return false
	}
	if hi, ok := upper.(string); ok && bytes.Compare(cut([]byte(hi), len(prefix)), prefix) < 0 {
		return false
	}
	return true
}

func cut(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// boundsAllStartWith reports whether both bounds start with the prefix, in
// which case every value between them does.
func boundsAllStartWith(prefix string, lower, upper any) bool {
	lo, okLo := lower.(string)
	hi, okHi := upper.(string)
	return okLo && okHi && len(lo) >= len(prefix) && len(hi) >= len(prefix) &&
		lo[:len(prefix)] == prefix && hi[:len(prefix)] == prefix
}

func summaryNotStartsWith(p Predicate, s iceberg.FieldSummary) bool {
	if s.ContainsNull || s.LowerBound == nil || s.UpperBound == nil {
		return true
	}
	prefix, _ := firstValue(p).(string)
	return !boundsAllStartWith(prefix, string(s.LowerBound), string(s.UpperBound))
}
