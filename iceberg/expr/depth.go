package expr

import "fmt"

// MaxDepth is how deeply a filter may nest: in the string syntax, open
// parentheses plus NOTs around a predicate; in the JSON syntax, and, or
// and not objects, where a chain of one operator (Java writes a OR b OR c
// as or(or(a, b), c)) counts once. Long flat chains do not nest: a
// thousand terms joined by OR are one level. Parse and ParseJSON refuse
// deeper filters with an error matching ErrTooDeep before building them,
// so a hostile filter costs neither stack nor memory.
const MaxDepth = 500

// maxTreeDepth bounds the nesting of the expression trees that Bind, the
// projections and the evaluators accept. Binding and NOT rewriting add a
// level at most here and there (x IN (1, NaN) becomes x IN (1) OR x IS
// NAN), so every tree built from a filter within MaxDepth fits; residuals
// parsed back from tickets are checked against it too.
const maxTreeDepth = MaxDepth + 16

// ErrTooDeep marks a filter nested deeper than MaxDepth. It matches
// ErrInvalidFilter.
var ErrTooDeep = fmt.Errorf("%w: nested too deeply", ErrInvalidFilter)

// tooDeep reports a tree deeper than limit.
func tooDeep(limit int) error {
	return fmt.Errorf("%w (more than %d levels of AND, OR and NOT)", ErrTooDeep, limit)
}

// checkDepth refuses a tree deeper than maxTreeDepth, walking it with an
// explicit stack so that measuring a hostile tree is itself safe.
func checkDepth(e Expr) error {
	type item struct {
		e     Expr
		depth int
	}
	stack := []item{{e, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var kids []Expr
		switch e := it.e.(type) {
		case AndExpr:
			kids = e.Terms
		case OrExpr:
			kids = e.Terms
		case NotExpr:
			kids = []Expr{e.Child}
		}
		if len(kids) == 0 {
			continue
		}
		if it.depth >= maxTreeDepth {
			return tooDeep(maxTreeDepth)
		}
		for _, k := range kids {
			stack = append(stack, item{k, it.depth + 1})
		}
	}
	return nil
}
