package expr

// Walk calls fn for every predicate of e, left to right.
func Walk(e Expr, fn func(Predicate)) {
	switch e := e.(type) {
	case AndExpr:
		Walk(e.Left, fn)
		Walk(e.Right, fn)
	case OrExpr:
		Walk(e.Left, fn)
		Walk(e.Right, fn)
	case NotExpr:
		Walk(e.Child, fn)
	case Predicate:
		fn(e)
	}
}
