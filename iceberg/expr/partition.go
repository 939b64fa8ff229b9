package expr

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// PartitionEvaluator tests the partition tuples of manifest entries
// against the inclusive projection of a row filter: a file whose partition
// fails cannot hold a matching row.
type PartitionEvaluator struct {
	filter Expr
	pos    map[int]int
}

// NewPartitionEvaluator projects a bound row filter onto spec and prepares
// to evaluate it on tuples laid out as partType (the manifest's partition
// struct; nil means spec order).
func NewPartitionEvaluator(spec iceberg.PartitionSpec, partType *iceberg.StructType, rowFilter Expr) (*PartitionEvaluator, error) {
	if err := checkDepth(rowFilter); err != nil {
		return nil, err
	}
	if !IsBound(rowFilter) {
		return nil, fmt.Errorf("%w: partition evaluator needs a bound filter", ErrInvalidFilter)
	}
	filter, err := Inclusive(spec, nil, rowFilter)
	if err != nil {
		return nil, err
	}
	return &PartitionEvaluator{filter: filter, pos: positions(spec, partType)}, nil
}

// Filter returns the projected partition filter.
func (e *PartitionEvaluator) Filter() Expr { return e.filter }

// Eval reports whether a file with this partition tuple may hold rows
// matching the filter. Values are literals (iceberg/literal.go), nil for null.
func (e *PartitionEvaluator) Eval(partition []any) bool {
	ok, err := Eval(e.filter, tupleGetter(e.pos, partition))
	return ok || err != nil // an unevaluable filter must not drop files
}

// positions maps partition field ids to their index in tuples.
func positions(spec iceberg.PartitionSpec, partType *iceberg.StructType) map[int]int {
	pos := make(map[int]int)
	if partType != nil {
		for i, f := range partType.Fields {
			pos[f.ID] = i
		}
		return pos
	}
	for i, f := range spec.Fields {
		pos[f.FieldID] = i
	}
	return pos
}

func tupleGetter(pos map[int]int, tuple []any) func(int) any {
	return func(id int) any {
		if i, ok := pos[id]; ok && i < len(tuple) {
			return tuple[i]
		}
		return nil
	}
}

// Residual returns the part of a bound row filter still to check on the
// rows of a file whose partition tuple (in spec order) is given, as
// Iceberg's ResidualEvaluator: a predicate whose strict projection holds
// for the partition is TRUE, one whose inclusive projection fails is
// FALSE, and any other stays. A TRUE residual means every row matches; a
// FALSE one that none does.
func Residual(spec iceberg.PartitionSpec, partition []any, e Expr) Expr {
	get := tupleGetter(positions(spec, nil), partition)
	return residual(spec, RewriteNot(e), get)
}

func residual(spec iceberg.PartitionSpec, e Expr, get func(int) any) Expr {
	switch e := e.(type) {
	case AndExpr:
		return join(true, mapTerms(e.Terms, func(t Expr) Expr { return residual(spec, t, get) }))
	case OrExpr:
		return join(false, mapTerms(e.Terms, func(t Expr) Expr { return residual(spec, t, get) }))
	case Predicate:
		if !e.Ref.Bound() {
			return e
		}
		for _, f := range spec.Fields {
			if f.SourceID != e.Ref.ID {
				continue
			}
			if strict := projectField(f, e, false); strict != nil {
				if ok, err := Eval(strict, get); err == nil && ok {
					return TrueExpr{}
				}
			}
			if incl := projectField(f, e, true); incl != nil {
				if ok, err := Eval(incl, get); err == nil && !ok {
					return FalseExpr{}
				}
			}
		}
		return e
	}
	return e
}
