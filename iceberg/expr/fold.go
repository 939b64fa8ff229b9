package expr

// foldSets merges the equalities of a bound OR on one column into one IN
// (x = 1 OR x = 2 OR x IN (3, 4) is x IN (1, 2, 3, 4)) and the
// inequalities of an AND into one NOT IN, in place of the first of them.
// The two forms match the same rows, nulls included, and the set form is
// what evaluators test with one lookup instead of one test per term: an
// OR of nine thousand equalities binds, prunes and filters rows in time
// near-linear in its length. Other expressions come back unchanged.
func foldSets(e Expr) Expr {
	switch e := e.(type) {
	case OrExpr:
		return join(false, foldTerms(e.Terms, OpEq, OpIn))
	case AndExpr:
		return join(true, foldTerms(e.Terms, OpNotEq, OpNotIn))
	}
	return e
}

// foldTerms merges the bound predicates of terms whose operation is one or
// set by field id.
func foldTerms(terms []Expr, one, set Op) []Expr {
	type group struct {
		at   int // index in out of the group's first predicate
		n    int
		ref  Ref
		vals []any
	}
	groups := map[int]*group{}
	out := make([]Expr, 0, len(terms))
	for _, t := range terms {
		p, ok := t.(Predicate)
		// Floats stay: an IN list keeps one of -0.0 and 0.0, which the
		// reader's row filter, ordering as Java does, tells apart.
		if !ok || !p.Ref.Bound() || (p.Op != one && p.Op != set) || isFloating(p.Ref.Type) {
			out = append(out, t)
			continue
		}
		g := groups[p.Ref.ID]
		if g == nil {
			g = &group{at: len(out), ref: p.Ref}
			groups[p.Ref.ID] = g
			out = append(out, t)
		}
		g.n++
		g.vals = append(g.vals, p.Values...)
	}
	if len(out) == len(terms) {
		return terms // no two predicates on one column
	}
	for _, g := range groups {
		if g.n > 1 {
			out[g.at] = setPredicate(set, g.ref, g.vals)
		}
	}
	return out
}
