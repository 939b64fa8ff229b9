package expr

// Iceberg Java 0.10.0 and earlier wrote year, month, day and hour partition
// values of pre-1970 dates and timestamps one too large (day(1969-12-31
// 10:00) as 0 instead of -1). Java's projections still widen for those
// files, and so do these, so tables written back then keep answering
// correctly: inclusive projections also admit value+1 for negative values,
// strict ones exclude it. The rules mirror Java's
// ProjectionUtil.fixInclusiveTimeProjection and fixStrictTimeProjection;
// the day transform of a date never had the bug and is not adjusted.

// fixInclusiveTime widens an inclusive time projection for negative values.
func fixInclusiveTime(e Expr) Expr {
	p, ok := e.(Predicate)
	if !ok {
		return e
	}
	switch p.Op {
	case OpLt, OpLtEq:
		if v, neg := negativeValue(p); neg {
			return Predicate{Op: p.Op, Ref: p.Ref, Values: []any{v + 1}}
		}
	case OpEq:
		if v, neg := negativeValue(p); neg {
			return setPredicate(OpIn, p.Ref, []any{v, v + 1})
		}
	case OpIn:
		return setPredicate(OpIn, p.Ref, withSuccessorsOfNegatives(p.Values))
	case OpNotEq, OpNotIn:
		return nil
	}
	return p
}

// fixStrictTime narrows a strict time projection for values at or before
// the epoch.
func fixStrictTime(e Expr) Expr {
	p, ok := e.(Predicate)
	if !ok {
		return e
	}
	switch p.Op {
	case OpGt, OpGtEq:
		if v, ok := p.Values[0].(int32); ok && v <= 0 {
			return Predicate{Op: p.Op, Ref: p.Ref, Values: []any{v + 1}}
		}
	case OpEq, OpIn:
		return nil
	case OpNotEq:
		if v, neg := negativeValue(p); neg {
			return setPredicate(OpNotIn, p.Ref, []any{v, v + 1})
		}
	case OpNotIn:
		return setPredicate(OpNotIn, p.Ref, withSuccessorsOfNegatives(p.Values))
	}
	return p
}

func negativeValue(p Predicate) (int32, bool) {
	v, ok := firstValue(p).(int32)
	return v, ok && v < 0
}

func withSuccessorsOfNegatives(vals []any) []any {
	out := append([]any(nil), vals...)
	for _, v := range vals {
		if i, ok := v.(int32); ok && i < 0 {
			out = append(out, i+1)
		}
	}
	return out
}
