package expr

import (
	"bytes"
)

// mightMatch is the inclusive test: false only when the metrics prove no
// row satisfies p (Iceberg Java's InclusiveMetricsEvaluator).
func (c columnStats) mightMatch(p Predicate) bool {
	lit := firstValue(p)
	// Comparisons never match nulls or NaNs, so a column of only those fails.
	noComparable := c.nullsOnly() || c.nanOnly()
	switch p.Op {
	case OpIsNull:
		return c.mayContainNull()
	case OpNotNull:
		return !c.nullsOnly()
	case OpIsNaN:
		return !c.nullsOnly() && c.mayContainNaN()
	case OpNotNaN:
		return !c.nanOnly()
	case OpLt, OpLtEq:
		if noComparable {
			return false
		}
		if c.lower == nil || isNaN(c.lower) {
			return true
		}
		cmp, ok := compareValues(c.lower, lit)
		return !ok || cmp < 0 || (p.Op == OpLtEq && cmp == 0)
	case OpGt, OpGtEq:
		if noComparable {
			return false
		}
		if c.upper == nil {
			return true
		}
		cmp, ok := compareValues(c.upper, lit)
		return !ok || cmp > 0 || (p.Op == OpGtEq && cmp == 0)
	case OpEq:
		if noComparable {
			return false
		}
		lower := c.lower
		if isNaN(lower) {
			lower = nil
		}
		return within(lit, lower, c.upper)
	case OpNotEq:
		v := c.uniqueValue()
		if v == nil {
			return true
		}
		cmp, ok := compareValues(v, lit)
		return !ok || cmp != 0
	case OpIn:
		if noComparable {
			return false
		}
		if c.lower == nil || isNaN(c.lower) {
			return true
		}
		return anyWithin(p.Values, c.lower, c.upper)
	case OpNotIn:
		v := c.uniqueValue()
		return v == nil || !containsValue(p.Values, v)
	case OpStartsWith:
		if c.nullsOnly() {
			return false
		}
		return prefixMightMatch(p, c.lower, c.upper)
	case OpNotStartsWith:
		if c.mayContainNull() || c.lower == nil || c.upper == nil {
			return true // a null does not start with the prefix
		}
		prefix, _ := lit.(string)
		return !boundsAllStartWith(prefix, c.lower, c.upper)
	}
	return true
}

// mustMatch is the strict test: true only when the metrics prove every row
// satisfies p (Iceberg Java's StrictMetricsEvaluator). Columns nested in
// structs are not trusted for this, as in Java.
func (c columnStats) mustMatch(p Predicate, topLevel bool) bool {
	lit := firstValue(p)
	switch p.Op {
	case OpIsNaN:
		return c.nanOnly()
	case OpNotNaN:
		return !c.mayContainNaN() || c.nullsOnly()
	}
	if !topLevel {
		return false
	}
	// A comparison fails on null and NaN, so rows must have neither.
	mayFail := c.mayContainNull() || c.canContainNaN()
	switch p.Op {
	case OpIsNull:
		return c.nullsOnly()
	case OpNotNull:
		return !c.mayContainNull()
	case OpLt, OpLtEq:
		if mayFail || c.upper == nil {
			return false
		}
		cmp, ok := compareValues(c.upper, lit)
		return ok && (cmp < 0 || (p.Op == OpLtEq && cmp == 0))
	case OpGt, OpGtEq:
		if mayFail || c.lower == nil || isNaN(c.lower) {
			return false
		}
		cmp, ok := compareValues(c.lower, lit)
		return ok && (cmp > 0 || (p.Op == OpGtEq && cmp == 0))
	case OpEq:
		if mayFail || c.lower == nil || c.upper == nil {
			return false
		}
		lo, okLo := compareValues(c.lower, lit)
		hi, okHi := compareValues(c.upper, lit)
		return okLo && okHi && lo == 0 && hi == 0
	case OpNotEq:
		if c.nullsOnly() || c.nanOnly() {
			return true
		}
		if c.lower != nil {
			if isNaN(c.lower) {
				return false
			}
			if cmp, ok := compareValues(c.lower, lit); ok && cmp > 0 {
				return true
			}
		}
		if c.upper != nil {
			if cmp, ok := compareValues(c.upper, lit); ok && cmp < 0 {
				return true
			}
		}
		return false
	case OpIn:
		if mayFail || c.lower == nil || c.upper == nil {
			return false
		}
		cmp, ok := compareValues(c.lower, c.upper)
		return ok && cmp == 0 && containsValue(p.Values, c.lower)
	case OpNotIn:
		if c.nullsOnly() || c.nanOnly() {
			return true
		}
		if isNaN(c.lower) || (c.lower == nil && c.upper == nil) {
			return false
		}
		return !anyWithin(p.Values, c.lower, c.upper)
	case OpStartsWith:
		if c.mayContainNull() {
			return false
		}
		prefix, _ := lit.(string)
		return boundsAllStartWith(prefix, c.lower, c.upper)
	case OpNotStartsWith:
		if c.nullsOnly() {
			return true
		}
		prefix, _ := lit.(string)
		if lo, ok := c.lower.(string); ok && bytes.Compare(cut([]byte(lo), len(prefix)), []byte(prefix)) > 0 {
			return true
		}
		if hi, ok := c.upper.(string); ok && bytes.Compare(cut([]byte(hi), len(prefix)), []byte(prefix)) < 0 {
			return true
		}
		return false
	}
	return false
}
