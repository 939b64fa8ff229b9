package expr

import (
	"math"
	"strconv"
	"time"

	"github.com/iceflight/iceflight/iceberg"
)

// Op is the operation of a predicate, named as the REST catalog's
// ExpressionType spells it.
type Op int

// Predicate operations.
const (
	OpIsNull Op = iota + 1
	OpNotNull
	OpIsNaN
	OpNotNaN
	OpLt
	OpLtEq
	OpGt
	OpGtEq
	OpEq
	OpNotEq
	OpIn
	OpNotIn
	OpStartsWith
	OpNotStartsWith
)

var opNames = map[Op]string{
	OpIsNull: "is-null", OpNotNull: "not-null", OpIsNaN: "is-nan", OpNotNaN: "not-nan",
	OpLt: "lt", OpLtEq: "lt-eq", OpGt: "gt", OpGtEq: "gt-eq", OpEq: "eq", OpNotEq: "not-eq",
	OpIn: "in", OpNotIn: "not-in", OpStartsWith: "starts-with", OpNotStartsWith: "not-starts-with",
}

// String returns the operation's REST name ("lt-eq", "not-in").
func (op Op) String() string {
	if s, ok := opNames[op]; ok {
		return s
	}
	return "op(" + strconv.Itoa(int(op)) + ")"
}

// Unary reports whether the operation takes no literal.
func (op Op) Unary() bool { return op >= OpIsNull && op <= OpNotNaN }

// Set reports whether the operation takes a set of literals (IN, NOT IN).
func (op Op) Set() bool { return op == OpIn || op == OpNotIn }

// Negate returns the operation that holds exactly when op does not.
func (op Op) Negate() Op {
	switch op {
	case OpIsNull:
		return OpNotNull
	case OpNotNull:
		return OpIsNull
	case OpIsNaN:
		return OpNotNaN
	case OpNotNaN:
		return OpIsNaN
	case OpLt:
		return OpGtEq
	case OpLtEq:
		return OpGt
	case OpGt:
		return OpLtEq
	case OpGtEq:
		return OpLt
	case OpEq:
		return OpNotEq
	case OpNotEq:
		return OpEq
	case OpIn:
		return OpNotIn
	case OpNotIn:
		return OpIn
	case OpStartsWith:
		return OpNotStartsWith
	case OpNotStartsWith:
		return OpStartsWith
	}
	return op
}

// flip returns the operation with its operands swapped (5 < x is x > 5).
func (op Op) flip() Op {
	switch op {
	case OpLt:
		return OpGt
	case OpLtEq:
		return OpGtEq
	case OpGt:
		return OpLt
	case OpGtEq:
		return OpLtEq
	}
	return op
}

// Expr is a boolean expression over the columns of a table or the fields of
// a partition: TrueExpr, FalseExpr, NotExpr, AndExpr, OrExpr or Predicate.
// Its String method writes the filter syntax that Parse reads back.
type Expr interface {
	String() string
	isExpr()
}

// TrueExpr is the expression that always holds.
type TrueExpr struct{}

// FalseExpr is the expression that never holds.
type FalseExpr struct{}

// NotExpr holds when Child does not.
type NotExpr struct{ Child Expr }

// AndExpr holds when every one of Terms holds. And flattens nested
// conjunctions into one AndExpr, so a chain of a thousand terms is one wide
// node rather than a thousand nested ones: walking it costs no stack and
// it adds one level of nesting, not a thousand (see MaxDepth).
type AndExpr struct{ Terms []Expr }

// OrExpr holds when any one of Terms holds; Or flattens nested
// disjunctions as And does conjunctions.
type OrExpr struct{ Terms []Expr }

// Predicate tests one column against zero (IS NULL), one (<, STARTS WITH)
// or several (IN) literals.
//
// Unbound, a predicate names its column and holds literals as written:
// bool, int64, float64 (only NaN and the infinities), Number, string or
// Typed. Bind resolves the name to a field id and converts the literals to
// the field's type, in the Go representation of iceberg/literal.go.
type Predicate struct {
	Op     Op
	Ref    Ref
	Values []any
}

// Ref is the column a predicate tests.
type Ref struct {
	// Name is the column name, dotted for fields of nested structs ("a.b");
	// once bound it is the field's full name as the schema spells it.
	Name string
	// ID is the field id, zero while unbound.
	ID int
	// Type is the field's type, nil while unbound.
	Type iceberg.Type
}

// Bound reports whether the reference has been resolved by Bind.
func (r Ref) Bound() bool { return r.Type != nil }

// Number is a numeric literal kept as written ("14.20", "1e20",
// "92233720368547758070") so that binding converts it exactly to the
// column's type instead of going through a float.
type Number string

// Typed is a literal whose type the filter states, such as DATE
// '2020-01-01' or X'00ff', holding a value in the Go representation of
// iceberg/literal.go for Type.
type Typed struct {
	Type  iceberg.Type
	Value any
}

func (TrueExpr) isExpr()  {}
func (FalseExpr) isExpr() {}
func (NotExpr) isExpr()   {}
func (AndExpr) isExpr()   {}
func (OrExpr) isExpr()    {}
func (Predicate) isExpr() {}

// AlwaysTrue returns the expression that always holds.
func AlwaysTrue() Expr { return TrueExpr{} }

// AlwaysFalse returns the expression that never holds.
func AlwaysFalse() Expr { return FalseExpr{} }

// And returns the conjunction of its arguments, dropping TRUE operands,
// collapsing to FALSE when any operand is FALSE and splicing the terms of
// AND operands into one flat AndExpr.
func And(left, right Expr, more ...Expr) Expr {
	return join(true, append([]Expr{left, right}, more...))
}

// Or returns the disjunction of its arguments, dropping FALSE operands,
// collapsing to TRUE when any operand is TRUE and splicing the terms of OR
// operands into one flat OrExpr.
func Or(left, right Expr, more ...Expr) Expr {
	return join(false, append([]Expr{left, right}, more...))
}

// join builds the flat conjunction (and) or disjunction of terms: the
// identity constant (TRUE for AND) is dropped, the absorbing one wins, and
// terms of the same kind are spliced in.
func join(and bool, terms []Expr) Expr {
	out := make([]Expr, 0, len(terms))
	for _, t := range terms {
		switch t := t.(type) {
		case TrueExpr:
			if !and {
				return TrueExpr{}
			}
		case FalseExpr:
			if and {
				return FalseExpr{}
			}
		case AndExpr:
			if !and {
				out = append(out, t)
				continue
			}
			out = append(out, t.Terms...)
		case OrExpr:
			if and {
				out = append(out, t)
				continue
			}
			out = append(out, t.Terms...)
		default:
			out = append(out, t)
		}
	}
	switch len(out) {
	case 0:
		return constant(and)
	case 1:
		return out[0]
	}
	if and {
		return AndExpr{Terms: out}
	}
	return OrExpr{Terms: out}
}

// Not returns the negation of e, folding constants and double negation.
func Not(e Expr) Expr {
	switch e := e.(type) {
	case TrueExpr:
		return FalseExpr{}
	case FalseExpr:
		return TrueExpr{}
	case NotExpr:
		return e.Child
	}
	return NotExpr{Child: e}
}

// IsNull returns the predicate "name IS NULL".
func IsNull(name string) Predicate { return Predicate{Op: OpIsNull, Ref: Ref{Name: name}} }

// NotNull returns the predicate "name IS NOT NULL".
func NotNull(name string) Predicate { return Predicate{Op: OpNotNull, Ref: Ref{Name: name}} }

// IsNaN returns the predicate "name IS NAN".
func IsNaN(name string) Predicate { return Predicate{Op: OpIsNaN, Ref: Ref{Name: name}} }

// NotNaN returns the predicate "name IS NOT NAN".
func NotNaN(name string) Predicate { return Predicate{Op: OpNotNaN, Ref: Ref{Name: name}} }

// LessThan returns the predicate "name < v"; see Literal for the Go values accepted.
func LessThan(name string, v any) Predicate { return compare(OpLt, name, v) }

// LessThanOrEqual returns the predicate "name <= v".
func LessThanOrEqual(name string, v any) Predicate { return compare(OpLtEq, name, v) }

// GreaterThan returns the predicate "name > v".
func GreaterThan(name string, v any) Predicate { return compare(OpGt, name, v) }

// GreaterThanOrEqual returns the predicate "name >= v".
func GreaterThanOrEqual(name string, v any) Predicate { return compare(OpGtEq, name, v) }

// Equal returns the predicate "name = v".
func Equal(name string, v any) Predicate { return compare(OpEq, name, v) }

// NotEqual returns the predicate "name != v".
func NotEqual(name string, v any) Predicate { return compare(OpNotEq, name, v) }

// StartsWith returns the predicate "name STARTS WITH prefix".
func StartsWith(name, prefix string) Predicate { return compare(OpStartsWith, name, prefix) }

// NotStartsWith returns the predicate "name NOT STARTS WITH prefix".
func NotStartsWith(name, prefix string) Predicate { return compare(OpNotStartsWith, name, prefix) }

// In returns the predicate "name IN (vs...)".
func In(name string, vs ...any) Predicate { return set(OpIn, name, vs) }

// NotIn returns the predicate "name NOT IN (vs...)".
func NotIn(name string, vs ...any) Predicate { return set(OpNotIn, name, vs) }

func compare(op Op, name string, v any) Predicate {
	return Predicate{Op: op, Ref: Ref{Name: name}, Values: []any{Literal(v)}}
}

func set(op Op, name string, vs []any) Predicate {
	vals := make([]any, len(vs))
	for i, v := range vs {
		vals[i] = Literal(v)
	}
	return Predicate{Op: op, Ref: Ref{Name: name}, Values: vals}
}

// Literal turns a Go value into an unbound literal: Go integers become
// int64, finite floats a Number holding their shortest decimal form, []byte
// a binary Typed literal, [16]byte a uuid and time.Time a timestamptz.
// Strings, bools, Number and Typed values are kept; other values are kept
// too and rejected by Bind.
func Literal(v any) any {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint:
		return Number(strconv.FormatUint(uint64(v), 10))
	case uint64:
		return Number(strconv.FormatUint(v, 10))
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return float64(v)
		}
		return Number(strconv.FormatFloat(float64(v), 'g', -1, 32))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return v
		}
		return Number(strconv.FormatFloat(v, 'g', -1, 64))
	case []byte:
		return Typed{Type: iceberg.BinaryType{}, Value: append([]byte(nil), v...)}
	case [16]byte:
		return Typed{Type: iceberg.UUIDType{}, Value: v}
	case time.Time:
		if v.Nanosecond()%1000 != 0 {
			return Typed{Type: iceberg.TimestampTzNsType{}, Value: v.UnixNano()}
		}
		return Typed{Type: iceberg.TimestampTzType{}, Value: v.UnixMicro()}
	}
	return v
}

// IsBound reports whether every predicate of e is bound.
func IsBound(e Expr) bool {
	switch e := e.(type) {
	case NotExpr:
		return IsBound(e.Child)
	case AndExpr:
		return allBound(e.Terms)
	case OrExpr:
		return allBound(e.Terms)
	case Predicate:
		return e.Ref.Bound()
	}
	return true
}

func allBound(terms []Expr) bool {
	for _, t := range terms {
		if !IsBound(t) {
			return false
		}
	}
	return true
}

// RewriteNot pushes every NOT down to the predicates, negating them, so the
// result has no NotExpr (De Morgan's laws). Projections and metrics
// evaluators need this form.
func RewriteNot(e Expr) Expr {
	switch e := e.(type) {
	case NotExpr:
		return negate(e.Child)
	case AndExpr:
		return join(true, mapTerms(e.Terms, RewriteNot))
	case OrExpr:
		return join(false, mapTerms(e.Terms, RewriteNot))
	}
	return e
}

func negate(e Expr) Expr {
	switch e := e.(type) {
	case TrueExpr:
		return FalseExpr{}
	case FalseExpr:
		return TrueExpr{}
	case NotExpr:
		return RewriteNot(e.Child)
	case AndExpr:
		return join(false, mapTerms(e.Terms, negate))
	case OrExpr:
		return join(true, mapTerms(e.Terms, negate))
	case Predicate:
		e.Op = e.Op.Negate()
		return e
	}
	return e
}

// mapTerms returns fn applied to every term, in a new slice.
func mapTerms(terms []Expr, fn func(Expr) Expr) []Expr {
	out := make([]Expr, len(terms))
	for i, t := range terms {
		out[i] = fn(t)
	}
	return out
}
