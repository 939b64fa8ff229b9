package diffscan

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// Filters are Iceberg REST expression JSON (what both flightd and Java's
// ExpressionParser read). Java's row evaluator orders null before and NaN
// after every value, while iceflight (like SQL and Java's own metrics
// pruning) lets neither satisfy a comparison (testdata/conformance/README.md,
// "Query outputs"); every ordering comparison on a column that can hold
// them is therefore guarded with not-null / not-nan, which makes the two
// semantics agree, also under not.

// expr draws a filter of at most three levels, nil when v has no column a
// filter can name.
func (g *gen) expr(v *View, depth int) any {
	if len(v.Leaves) == 0 {
		return nil
	}
	switch p := g.r.Float64(); {
	case depth >= 2 || p < 0.55:
		return g.predicate(v)
	case p < 0.7:
		return map[string]any{"type": "and", "left": g.expr(v, depth+1), "right": g.expr(v, depth+1)}
	case p < 0.85:
		return map[string]any{"type": "or", "left": g.expr(v, depth+1), "right": g.expr(v, depth+1)}
	case p < 0.97:
		return map[string]any{"type": "not", "child": g.expr(v, depth+1)}
	default:
		return g.chance(0.5)
	}
}

var (
	ordering = []string{"lt", "lt-eq", "gt", "gt-eq"}
	equality = []string{"eq", "not-eq", "in", "not-in"}
	prefix   = []string{"starts-with", "not-starts-with"}
	nulls    = []string{"is-null", "not-null"}
	nans     = []string{"is-nan", "not-nan"}
)

// operators are the operators a column type takes.
func operators(t iceberg.Type) []string {
	ops := append([]string(nil), nulls...)
	switch t.(type) {
	case iceberg.BooleanType, iceberg.UUIDType:
		// UUIDs are left out of ordering: Iceberg Java orders them as signed
		// longs (apache/iceberg#14216).
		return append(ops, equality...)
	case iceberg.FloatType, iceberg.DoubleType:
		ops = append(ops, nans...)
		ops = append(ops, nans...)
	case iceberg.StringType:
		ops = append(ops, prefix...)
		ops = append(ops, prefix...)
	}
	ops = append(ops, equality...)
	return append(ops, ordering...)
}

func (g *gen) predicate(v *View) any {
	l := pick(g, v.Leaves)
	op := pick(g, operators(l.Type))
	vals := v.Values[l.Path]
	switch op {
	case "is-null", "not-null", "is-nan", "not-nan":
		return map[string]any{"type": op, "term": l.Path}
	}
	if g.chance(0.03) {
		// A null or NaN literal: Java refuses every one (is-null and is-nan
		// are the way to ask), and so must iceflight or answer alike.
		lit := json.RawMessage("null")
		if isFloat(l.Type) && g.chance(0.7) {
			lit = json.RawMessage(`"NaN"`)
		}
		if op == "in" || op == "not-in" {
			return map[string]any{"type": op, "term": l.Path, "values": []json.RawMessage{lit}}
		}
		return map[string]any{"type": op, "term": l.Path, "value": lit}
	}
	switch op {
	case "in", "not-in":
		var lits []json.RawMessage
		for range 1 + g.r.IntN(4) {
			if lit := g.literal(l, vals); lit != nil {
				lits = append(lits, lit)
			}
		}
		if len(lits) == 0 {
			return map[string]any{"type": "not-null", "term": l.Path}
		}
		return map[string]any{"type": op, "term": l.Path, "values": lits}
	case "starts-with", "not-starts-with":
		return map[string]any{"type": op, "term": l.Path, "value": g.prefix(vals)}
	}
	lit := g.literal(l, vals)
	if lit == nil {
		return map[string]any{"type": "is-null", "term": l.Path}
	}
	pred := any(map[string]any{"type": op, "term": l.Path, "value": lit})
	if op == "eq" || op == "not-eq" {
		return pred
	}
	if isFloat(l.Type) {
		pred = map[string]any{"type": "and", "left": map[string]any{"type": "not-nan", "term": l.Path}, "right": pred}
	}
	if l.Nullable {
		pred = map[string]any{"type": "and", "left": map[string]any{"type": "not-null", "term": l.Path}, "right": pred}
	}
	return pred
}

// isFloat reports whether t is float or double, the types that hold NaN.
func isFloat(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		return true
	}
	return false
}

// prefix is a prefix of a real value (possibly empty or whole), or a string
// no value starts with.
func (g *gen) prefix(vals []json.RawMessage) string {
	if len(vals) == 0 || g.chance(0.15) {
		return pick(g, []string{"", "~~", "zz", "\u00e9"})
	}
	var s string
	json.Unmarshal(pick(g, vals), &s)
	runes := []rune(s)
	return string(runes[:g.r.IntN(len(runes)+1)])
}

// literal is the single-value JSON (spec Appendix D) of a value of the
// column: mostly one of its real values, sometimes one just outside them or
// between them; nil when there is none to draw.
func (g *gen) literal(l Leaf, vals []json.RawMessage) json.RawMessage {
	if len(vals) == 0 || g.chance(0.2) {
		if lit := outside(l.Type, vals, g.chance(0.5)); lit != nil {
			return lit
		}
		if len(vals) == 0 {
			return nil
		}
	}
	return singleValue(l.Type, pick(g, vals))
}

// outside is a value below the smallest (low) or above the largest real
// value for the types where that is plain arithmetic; nil for the others.
func outside(t iceberg.Type, vals []json.RawMessage, low bool) json.RawMessage {
	switch t.(type) {
	case iceberg.IntType, iceberg.LongType, iceberg.DateType, iceberg.TimeType,
		iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		lo, hi, ok := intBounds(vals)
		if !ok {
			lo, hi = 0, 0
		}
		var x int64
		if low {
			x = lo - 1
		} else {
			x = hi + 1
		}
		if !inRange(t, x) {
			return nil
		}
		return singleValue(t, json.RawMessage(strconv.FormatInt(x, 10)))
	case iceberg.FloatType, iceberg.DoubleType:
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil {
				lo, hi = min(lo, f), max(hi, f)
			}
		}
		if math.IsInf(lo, 0) {
			lo, hi = 0, 0
		}
		x := hi + 1.5
		if low {
			x = lo - 1.5
		}
		if math.Abs(x) > 1e30 {
			return nil
		}
		return floatJSON(x)
	case iceberg.StringType:
		if low {
			return json.RawMessage(`""`)
		}
		return json.RawMessage(`"~~~~"`)
	}
	return nil
}

func intBounds(vals []json.RawMessage) (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, v := range vals {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			continue
		}
		lo, hi, ok = min(lo, n), max(hi, n), true
	}
	return lo, hi, ok
}

func inRange(t iceberg.Type, x int64) bool {
	// Dates and timestamps stay within years 1 to 9999, which every
	// single-value parser reads (Java's ISO parsers stop at 9999).
	const (
		firstDay, lastDay     = -719162, 2932896
		firstMicro, lastMicro = -62135596800000000, 253402300799999999
	)
	switch t.(type) {
	case iceberg.DateType:
		return x >= firstDay && x <= lastDay
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return x >= firstMicro && x <= lastMicro
	case iceberg.IntType:
		return x >= math.MinInt32 && x <= math.MaxInt32
	case iceberg.TimeType:
		return x >= 0 && x < 86_400_000_000
	}
	// The arithmetic above wrapped if x is on the wrong side of a bound.
	return x != math.MaxInt64 && x != math.MinInt64
}

// singleValue turns an oracle row value into the single-value JSON of t:
// they differ for dates, times and timestamps (row JSON holds the integer)
// and for floats without a fraction (Java wants 10.0, not 10); NaN and the
// infinities, which no comparison literal may be, give nil.
func singleValue(t iceberg.Type, raw json.RawMessage) json.RawMessage {
	s := string(raw)
	switch t.(type) {
	case iceberg.DateType:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil
		}
		return quote(iceberg.FormatDate(int32(n)))
	case iceberg.TimeType:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil
		}
		return quote(iceberg.FormatTime(n))
	case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil
		}
		return quote(iceberg.FormatTimestamp(t, n))
	case iceberg.FloatType, iceberg.DoubleType:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil
		}
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.RawMessage(s)
	}
	return raw
}

func floatJSON(f float64) json.RawMessage {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return json.RawMessage(s)
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// filterable reports whether a filter may name a column of type t.
func filterable(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.VariantType, iceberg.UnknownType, iceberg.GeometryType, iceberg.GeographyType:
		return false
	}
	return true
}
