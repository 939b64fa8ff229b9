package expr

// Walk calls fn for every predicate of e, left to right.
func Walk(e Expr, fn func(Predicate)) {
	switch e := e.(type) {
	case AndExpr:
		walkTerms(e.Terms, fn)
	case OrExpr:
		walkTerms(e.Terms, fn)
	case NotExpr:
		Walk(e.Child, fn)
	case Predicate:
		fn(e)
	}
}

func walkTerms(terms []Expr, fn func(Predicate)) {
	for _, t := range terms {
		Walk(t, fn)
	}
}

// MapPredicates returns e with every predicate replaced by fn's result, in
// the same tree; the first error fn returns stops it.
func MapPredicates(e Expr, fn func(Predicate) (Predicate, error)) (Expr, error) {
	switch e := e.(type) {
	case AndExpr:
		terms, err := mapPredicateTerms(e.Terms, fn)
		return AndExpr{Terms: terms}, err
	case OrExpr:
		terms, err := mapPredicateTerms(e.Terms, fn)
		return OrExpr{Terms: terms}, err
	case NotExpr:
		child, err := MapPredicates(e.Child, fn)
		return NotExpr{Child: child}, err
	case Predicate:
		return fn(e)
	}
	return e, nil
}

func mapPredicateTerms(terms []Expr, fn func(Predicate) (Predicate, error)) ([]Expr, error) {
	out := make([]Expr, len(terms))
	for i, t := range terms {
		m, err := MapPredicates(t, fn)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}
