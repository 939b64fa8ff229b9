package expr

import (
	"fmt"
	"strings"
)

// Eval evaluates a bound expression on one row, reading each field's value
// by id through get (nil is null; values in the Go representation of
// iceberg/literal.go). Unbound predicates are an error.
//
// Semantics are Iceberg's two-valued logic, the one its projections and
// metrics evaluators assume: a null or NaN value fails every comparison,
// IN and STARTS WITH, and so passes their negations (!=, NOT IN, NOT
// STARTS WITH). Floats compare as IEEE 754 numbers, so -0 = +0.
func Eval(e Expr, get func(fieldID int) any) (bool, error) {
	return visitBool(e, func(p Predicate) (bool, error) {
		if !p.Ref.Bound() {
			return false, fmt.Errorf("%w: evaluate unbound predicate %s", ErrInvalidFilter, Summary(p))
		}
		return EvalPredicate(p, get(p.Ref.ID)), nil
	})
}

// EvalPredicate tests one value against a bound predicate with the
// semantics of Eval.
func EvalPredicate(p Predicate, v any) bool {
	switch p.Op {
	case OpIsNull:
		return v == nil
	case OpNotNull:
		return v != nil
	case OpIsNaN:
		return isNaN(v)
	case OpNotNaN:
		return !isNaN(v)
	case OpIn:
		return v != nil && containsValue(p.Values, v)
	case OpNotIn:
		return v == nil || !containsValue(p.Values, v)
	case OpStartsWith, OpNotStartsWith:
		s, isStr := v.(string)
		prefix, isPrefix := firstValue(p).(string)
		match := isStr && isPrefix && strings.HasPrefix(s, prefix)
		return match == (p.Op == OpStartsWith)
	}
	if v == nil || len(p.Values) != 1 {
		return p.Op == OpNotEq
	}
	c, ok := compareValues(v, p.Values[0])
	if !ok {
		return p.Op == OpNotEq
	}
	switch p.Op {
	case OpLt:
		return c < 0
	case OpLtEq:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGtEq:
		return c >= 0
	case OpEq:
		return c == 0
	case OpNotEq:
		return c != 0
	}
	return false
}

// firstValue returns the predicate's single literal, or nil.
func firstValue(p Predicate) any {
	if len(p.Values) == 0 {
		return nil
	}
	return p.Values[0]
}
