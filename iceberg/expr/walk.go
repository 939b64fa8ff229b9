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
