package reader

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg/expr"
)

// rowNode is a residual filter prepared for row evaluation: the tree of
// the bound expression with a hash set built once for every IN and NOT IN,
// so that a list of 100,000 values costs one lookup per row, not 100,000
// comparisons.
type rowNode struct {
	kind  rowKind
	value bool // rowConst
	terms []*rowNode
	pred  expr.Predicate
	set   map[any]struct{} // IN and NOT IN predicates
}

type rowKind int

const (
	rowConst rowKind = iota
	rowAnd
	rowOr
	rowNot
	rowPred
)

// compileRows prepares a bound expression. Its depth is bounded by
// expr.Bind, which the residual has passed.
func compileRows(e expr.Expr) (*rowNode, error) {
	switch e := e.(type) {
	case expr.TrueExpr:
		return &rowNode{kind: rowConst, value: true}, nil
	case expr.FalseExpr:
		return &rowNode{kind: rowConst}, nil
	case expr.AndExpr:
		return compileTerms(rowAnd, e.Terms)
	case expr.OrExpr:
		return compileTerms(rowOr, e.Terms)
	case expr.NotExpr:
		return compileTerms(rowNot, []expr.Expr{e.Child})
	case expr.Predicate:
		n := &rowNode{kind: rowPred, pred: e}
		if e.Op.Set() {
			n.set = make(map[any]struct{}, len(e.Values))
			if err := n.addToSet(e); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("unsupported residual %T", e)
}

// addToSet adds the literals of p to the node's set.
func (n *rowNode) addToSet(p expr.Predicate) error {
	for _, v := range p.Values {
		k, ok := literalKey(v)
		if !ok {
			return fmt.Errorf("%v literal of Go type %T on %s", p.Op, v, p.Ref.Name)
		}
		n.set[k] = struct{}{}
	}
	return nil
}

// compileTerms prepares the terms of an AND, OR or NOT. The equalities and
// IN lists of an OR on one column share one set, as do the inequalities
// and NOT IN lists of an AND: Bind folds them already except on floats,
// where its IN would merge -0.0 with 0.0 and the set keys keep them apart,
// so an OR of thousands of equalities on a double costs one lookup a row.
func compileTerms(kind rowKind, terms []expr.Expr) (*rowNode, error) {
	if len(terms) == 0 {
		return &rowNode{kind: rowConst, value: kind == rowAnd}, nil
	}
	one, set := expr.OpEq, expr.OpIn
	if kind == rowAnd {
		one, set = expr.OpNotEq, expr.OpNotIn
	}
	n := &rowNode{kind: kind}
	sets := map[int]*rowNode{} // field id -> the set node of this chain
	for _, t := range terms {
		if p, ok := t.(expr.Predicate); ok && kind != rowNot && (p.Op == one || p.Op == set) {
			if s := sets[p.Ref.ID]; s != nil {
				if err := s.addToSet(p); err != nil {
					return nil, err
				}
				continue
			}
			s := &rowNode{kind: rowPred, pred: expr.Predicate{Op: set, Ref: p.Ref}, set: map[any]struct{}{}}
			if err := s.addToSet(p); err != nil {
				return nil, err
			}
			sets[p.Ref.ID] = s
			n.terms = append(n.terms, s)
			continue
		}
		c, err := compileRows(t)
		if err != nil {
			return nil, err
		}
		n.terms = append(n.terms, c)
	}
	return n, nil
}

// literalKey maps a bound literal to the key rowKey gives an equal column
// value: integers of every width as int64, floats as the bits of their
// float64 (so -0.0 and 0.0 differ and every NaN is one NaN, as Java's
// Double.compare orders them, and compareValue with it), bytes and uuids
// as strings.
func literalKey(v any) (any, bool) {
	switch v := v.(type) {
	case string, bool, decimal128.Num:
		return v, true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case float32:
		return floatKey(float64(v)), true
	case float64:
		return floatKey(v), true
	case []byte:
		return string(v), true
	case [16]byte:
		return string(v[:]), true
	}
	return nil, false
}

func floatKey(f float64) uint64 {
	if math.IsNaN(f) {
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

// rowKey returns the set key of value i of col.
func rowKey(col arrow.Array, i int) (any, bool) {
	switch a := col.(type) {
	case *array.String:
		return a.Value(i), true
	case *array.Binary:
		return string(a.Value(i)), true
	case *array.FixedSizeBinary:
		return string(a.Value(i)), true
	case *array.Boolean:
		return a.Value(i), true
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int64:
		return a.Value(i), true
	case *array.Date32:
		return int64(a.Value(i)), true
	case *array.Time64:
		return int64(a.Value(i)), true
	case *array.Timestamp:
		return int64(a.Value(i)), true
	case *array.Float32:
		return floatKey(float64(a.Value(i))), true
	case *array.Float64:
		return floatKey(a.Value(i)), true
	case *array.Decimal128:
		return a.Value(i), true
	}
	return nil, false
}

// inSet evaluates IN (op expr.OpIn) or NOT IN against a prepared set.
func inSet(op expr.Op, set map[any]struct{}, col arrow.Array, parents []bool) ([]bool, error) {
	out := make([]bool, col.Len())
	for i := range out {
		if !col.IsValid(i) || (parents != nil && !parents[i]) {
			out[i] = op == expr.OpNotIn // a null is in no set
			continue
		}
		k, ok := rowKey(col, i)
		if !ok {
			return nil, fmt.Errorf("%w: %v on %s", ErrInvalidTask, op, col.DataType())
		}
		_, in := set[k]
		out[i] = in == (op == expr.OpIn)
	}
	return out, nil
}
