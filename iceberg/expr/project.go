package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/iceflight/iceflight/iceberg"
)

// Inclusive projects a row filter onto the fields of a partition spec: the
// result matches the partition of every row the filter matches, and maybe
// more (spec: "Scan Planning", inclusive projection). Its predicates are
// bound to partition fields — Ref.ID is the partition field id, Ref.Name
// its name and Ref.Type the transform's result type — so it evaluates on
// partition tuples. A predicate on a column no partition field derives
// from, or that a field's transform cannot project (unknown and void
// transforms, bucket with <), projects to TRUE.
//
// e may be bound, or unbound and then bound to schema case-sensitively.
func Inclusive(spec iceberg.PartitionSpec, schema *iceberg.Schema, e Expr) (Expr, error) {
	return projection(spec, schema, e, true)
}

// Strict projects a row filter onto a partition spec so that the result
// matches a partition only if every row in it matches the filter (spec:
// "Scan Planning", note 1). Predicates that cannot be projected become
// FALSE. See Inclusive for the form of the result.
func Strict(spec iceberg.PartitionSpec, schema *iceberg.Schema, e Expr) (Expr, error) {
	return projection(spec, schema, e, false)
}

func projection(spec iceberg.PartitionSpec, schema *iceberg.Schema, e Expr, inclusive bool) (Expr, error) {
	if err := checkDepth(e); err != nil {
		return nil, err
	}
	if !IsBound(e) {
		if schema == nil {
			return nil, fmt.Errorf("%w: project an unbound filter without a schema", ErrInvalidFilter)
		}
		bound, err := Bind(e, schema, true)
		if err != nil {
			return nil, err
		}
		e = bound
	}
	return projectExpr(spec, RewriteNot(e), inclusive), nil
}

func projectExpr(spec iceberg.PartitionSpec, e Expr, inclusive bool) Expr {
	switch e := e.(type) {
	case AndExpr:
		return join(true, mapTerms(e.Terms, func(t Expr) Expr { return projectExpr(spec, t, inclusive) }))
	case OrExpr:
		return join(false, mapTerms(e.Terms, func(t Expr) Expr { return projectExpr(spec, t, inclusive) }))
	case Predicate:
		// Inclusive: every field's projection must hold, so AND them;
		// strict: any field's projection proves the rows, so OR them.
		out := constant(inclusive)
		for _, f := range spec.Fields {
			if f.SourceID != e.Ref.ID {
				continue
			}
			proj := projectField(f, e, inclusive)
			if proj == nil {
				continue
			}
			if inclusive {
				out = And(out, proj)
			} else {
				out = Or(out, proj)
			}
		}
		return out
	}
	return e
}

// projectField projects one predicate through one partition field, or
// returns nil when the transform cannot.
func projectField(f iceberg.PartitionField, p Predicate, inclusive bool) Expr {
	switch f.Transform.(type) {
	case iceberg.VoidTransform, iceberg.UnknownTransform:
		return nil
	}
	if !iceberg.CanTransform(f.Transform, p.Ref.Type) {
		return nil
	}
	part := Ref{Name: f.Name, ID: f.FieldID, Type: f.Transform.ResultType(p.Ref.Type)}
	if p.Op.Unary() {
		return Predicate{Op: p.Op, Ref: part}
	}
	pr := projector{tr: f.Transform, src: p.Ref.Type, part: part}
	switch t := f.Transform.(type) {
	case iceberg.IdentityTransform:
		return Predicate{Op: p.Op, Ref: part, Values: p.Values}
	case iceberg.BucketTransform:
		return pr.bucket(p, inclusive)
	case iceberg.TruncateTransform:
		switch p.Ref.Type.(type) {
		case iceberg.StringType:
			return pr.truncateString(p, t.Width, inclusive)
		case iceberg.BinaryType:
			return pr.truncateArray(p, inclusive)
		}
		return pr.truncateOrdered(p, inclusive)
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		proj := pr.truncateOrdered(p, inclusive)
		_, day := t.(iceberg.DayTransform)
		_, date := p.Ref.Type.(iceberg.DateType)
		if day && date {
			return proj // day of a date is the date itself
		}
		if inclusive {
			return fixInclusiveTime(proj)
		}
		return fixStrictTime(proj)
	}
	return nil
}

// projector applies one partition field's transform to literals.
type projector struct {
	tr   iceberg.Transform
	src  iceberg.Type
	part Ref
}

func (pr projector) apply(v any) (any, bool) {
	r, err := iceberg.ApplyTransform(pr.tr, pr.src, v)
	return r, err == nil && r != nil
}

// pred builds a predicate on the partition field with the transformed
// value of v, or nil when v cannot be transformed.
func (pr projector) pred(op Op, v any) Expr {
	r, ok := pr.apply(v)
	if !ok {
		return nil
	}
	return Predicate{Op: op, Ref: pr.part, Values: []any{r}}
}

// set transforms every value of an IN or NOT IN list.
func (pr projector) set(op Op, vals []any) Expr {
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		r, ok := pr.apply(v)
		if !ok {
			return nil
		}
		out = append(out, r)
	}
	return setPredicate(op, pr.part, out)
}

// bucket projects only equality: x = v gives bucket = bucket(v) (and
// strictly, x != v gives bucket != bucket(v)); ranges say nothing.
func (pr projector) bucket(p Predicate, inclusive bool) Expr {
	switch {
	case inclusive && p.Op == OpEq, !inclusive && p.Op == OpNotEq:
		return pr.pred(p.Op, p.Values[0])
	case inclusive && p.Op == OpIn, !inclusive && p.Op == OpNotIn:
		return pr.set(p.Op, p.Values)
	}
	return nil
}

// truncateOrdered projects through an order-preserving transform of an
// integral domain (truncate of int, long and decimal; year, month, day and
// hour), moving open bounds one unit so they close: x < v projects
// inclusively to t(x) <= t(v-1), and strictly x <= v to t(x) < t(v+1).
func (pr projector) truncateOrdered(p Predicate, inclusive bool) Expr {
	if p.Op.Set() {
		if (inclusive && p.Op == OpIn) || (!inclusive && p.Op == OpNotIn) {
			return pr.set(p.Op, p.Values)
		}
		return nil
	}
	b := p.Values[0]
	step := func(op Op, delta int64) Expr {
		v, ok := addUnit(b, delta)
		if !ok {
			return nil
		}
		return pr.pred(op, v)
	}
	if inclusive {
		switch p.Op {
		case OpLt:
			return step(OpLtEq, -1)
		case OpLtEq:
			return pr.pred(OpLtEq, b)
		case OpGt:
			return step(OpGtEq, 1)
		case OpGtEq:
			return pr.pred(OpGtEq, b)
		case OpEq:
			return pr.pred(OpEq, b)
		}
		return nil
	}
	switch p.Op {
	case OpLt:
		return pr.pred(OpLt, b)
	case OpLtEq:
		return step(OpLt, 1)
	case OpGt:
		return pr.pred(OpGt, b)
	case OpGtEq:
		return step(OpGt, -1)
	case OpNotEq:
		return pr.pred(OpNotEq, b)
	}
	return nil
}

// truncateArray projects through truncation of strings and binary, where
// a truncated value is a prefix: bounds stay closed and equality only
// survives inclusively.
func (pr projector) truncateArray(p Predicate, inclusive bool) Expr {
	if p.Op.Set() {
		if (inclusive && p.Op == OpIn) || (!inclusive && p.Op == OpNotIn) {
			return pr.set(p.Op, p.Values)
		}
		return nil
	}
	b := p.Values[0]
	if inclusive {
		switch p.Op {
		case OpLt, OpLtEq:
			return pr.pred(OpLtEq, b)
		case OpGt, OpGtEq:
			return pr.pred(OpGtEq, b)
		case OpEq, OpStartsWith:
			return pr.pred(p.Op, b)
		}
		return nil
	}
	switch p.Op {
	case OpLt, OpLtEq:
		return pr.pred(OpLt, b)
	case OpGt, OpGtEq:
		return pr.pred(OpGt, b)
	case OpNotEq:
		return pr.pred(OpNotEq, b)
	}
	return nil
}

// truncateString adds the prefix rules of truncate[W] on strings: a prefix
// shorter than W is kept, one of exactly W code points pins the partition
// value, and a longer one only projects through its first W code points.
// Lengths are code points, as truncation counts them.
func (pr projector) truncateString(p Predicate, width int, inclusive bool) Expr {
	if p.Op != OpStartsWith && p.Op != OpNotStartsWith {
		return pr.truncateArray(p, inclusive)
	}
	prefix, _ := p.Values[0].(string)
	n := iceberg.StringLength(prefix)
	lit := func(op Op, v string) Expr { return Predicate{Op: op, Ref: pr.part, Values: []any{v}} }
	switch {
	case n < width:
		return lit(p.Op, prefix)
	case n == width && p.Op == OpStartsWith:
		return lit(OpEq, prefix)
	case n == width:
		return lit(OpNotEq, prefix)
	case p.Op == OpStartsWith && inclusive:
		return lit(OpStartsWith, iceberg.TruncateString(prefix, width))
	case p.Op == OpNotStartsWith && !inclusive:
		return lit(OpNotStartsWith, iceberg.TruncateString(prefix, width))
	}
	return nil
}

// addUnit adds delta units of the least significant digit to an integral
// literal; ok is false on overflow.
func addUnit(v any, delta int64) (any, bool) {
	switch v := v.(type) {
	case int32:
		r := int64(v) + delta
		if r < math.MinInt32 || r > math.MaxInt32 {
			return nil, false
		}
		return int32(r), true
	case int64:
		if (delta > 0 && v > math.MaxInt64-delta) || (delta < 0 && v < math.MinInt64-delta) {
			return nil, false
		}
		return v + delta, true
	case decimal128.Num:
		return v.Add(decimal128.FromI64(delta)), true
	}
	return nil, false
}
