package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/suggest"
)

// Bind resolves the column names of e against schema and converts every
// literal to its column's type. Names may be dotted to reach fields of
// nested structs ("address.city"); fields inside lists and maps cannot be
// filtered. A bound expression is bound again by its names.
//
// Binding rewrites as Iceberg Java does: a literal beyond the type's range
// makes the predicate TRUE or FALSE (int_col < 1e20 is TRUE), IN lists
// lose such values and become = or != when one value is left, IS NULL on a
// required column is FALSE, and comparing with NaN becomes IS NAN / IS NOT
// NAN. Unlike Java, which rounds, a literal between two values of the
// column's type narrows the operation exactly: int_col < 1.5 is
// int_col <= 1 and int_col = 1.5 is FALSE.
//
// An unknown column is an error wrapping ErrUnknownColumn that names the
// nearest existing columns; a literal or operation that does not fit the
// column's type wraps ErrInvalidFilter.
func Bind(e Expr, schema *iceberg.Schema, caseSensitive bool) (Expr, error) {
	if err := checkDepth(e); err != nil {
		return nil, err
	}
	return bind(e, schema, caseSensitive)
}

func bind(e Expr, schema *iceberg.Schema, cs bool) (Expr, error) {
	switch e := e.(type) {
	case TrueExpr, FalseExpr:
		return e, nil
	case NotExpr:
		c, err := bind(e.Child, schema, cs)
		if err != nil {
			return nil, err
		}
		return Not(c), nil
	case AndExpr:
		terms, err := bindTerms(e.Terms, schema, cs)
		if err != nil {
			return nil, err
		}
		return foldSets(join(true, terms)), nil
	case OrExpr:
		terms, err := bindTerms(e.Terms, schema, cs)
		if err != nil {
			return nil, err
		}
		return foldSets(join(false, terms)), nil
	case Predicate:
		return bindPredicate(e, schema, cs)
	case nil:
		return nil, invalidf("nil expression")
	}
	return nil, invalidf("unsupported expression %T", e)
}

func bindTerms(terms []Expr, schema *iceberg.Schema, cs bool) ([]Expr, error) {
	out := make([]Expr, len(terms))
	for i, t := range terms {
		b, err := bind(t, schema, cs)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func bindPredicate(p Predicate, schema *iceberg.Schema, cs bool) (Expr, error) {
	lits := p.Values
	if p.Ref.Bound() {
		// Rebinding: carry the values with their old type so they convert.
		lits = make([]any, len(p.Values))
		for i, v := range p.Values {
			lits[i] = Typed{Type: p.Ref.Type, Value: v}
		}
	}
	path, err := resolve(schema, p.Ref.Name, cs)
	if err != nil {
		return nil, err
	}
	leaf := path[len(path)-1]
	names := make([]string, len(path))
	required := true
	for i, f := range path {
		names[i] = f.Name
		required = required && f.Required
	}
	ref := Ref{Name: strings.Join(names, "."), ID: leaf.ID, Type: leaf.Type}
	switch leaf.Type.(type) {
	case *iceberg.StructType, *iceberg.ListType, *iceberg.MapType, iceberg.VariantType:
		// Nested and variant values can only be tested for null.
		if p.Op != OpIsNull && p.Op != OpNotNull {
			return nil, invalidf("column %s is a %v; only IS NULL and IS NOT NULL apply to it", ref.Name, leaf.Type)
		}
	}
	_, unknown := leaf.Type.(iceberg.UnknownType)
	_, isString := leaf.Type.(iceberg.StringType)
	wantVals := func(ok bool, what string) error {
		if !ok {
			return invalidf("%s on %s needs %s, got %d values", p.Op, ref.Name, what, len(lits))
		}
		return nil
	}
	switch p.Op {
	case OpIsNull, OpNotNull:
		if err := wantVals(len(lits) == 0, "no value"); err != nil {
			return nil, err
		}
		switch {
		case required: // a required field (in required structs) is never null
			return constant(p.Op == OpNotNull), nil
		case unknown: // a column of type unknown is always null
			return constant(p.Op == OpIsNull), nil
		}
		return Predicate{Op: p.Op, Ref: ref}, nil
	case OpIsNaN, OpNotNaN:
		if err := wantVals(len(lits) == 0, "no value"); err != nil {
			return nil, err
		}
		if !isFloating(leaf.Type) {
			return nil, invalidf("%s needs a float or double column; %s is %v", p.Op, ref.Name, leaf.Type)
		}
		return Predicate{Op: p.Op, Ref: ref}, nil
	case OpStartsWith, OpNotStartsWith:
		if err := wantVals(len(lits) == 1, "one value"); err != nil {
			return nil, err
		}
		if !isString {
			return nil, invalidf("%s needs a string column; %s is %v", p.Op, ref.Name, leaf.Type)
		}
		s, ok := lits[0].(string)
		if t, isTyped := lits[0].(Typed); isTyped {
			s, ok = t.Value.(string)
		}
		if !ok {
			return nil, invalidf("%s needs a string, got %s", p.Op, formatLiteral(nil, lits[0]))
		}
		if !utf8.ValidString(s) {
			return nil, invalidf("%s on %s: the prefix is not valid UTF-8", p.Op, ref.Name)
		}
		return Predicate{Op: p.Op, Ref: ref, Values: []any{s}}, nil
	case OpIn, OpNotIn:
		if err := wantVals(len(lits) > 0, "at least one value"); err != nil {
			return nil, err
		}
		return bindSet(p.Op, ref, lits)
	case OpLt, OpLtEq, OpGt, OpGtEq, OpEq, OpNotEq:
		if err := wantVals(len(lits) == 1, "one value"); err != nil {
			return nil, err
		}
		return bindComparison(p.Op, ref, lits[0])
	}
	return nil, invalidf("unknown operation %s", p.Op)
}

func constant(b bool) Expr {
	if b {
		return TrueExpr{}
	}
	return FalseExpr{}
}

func isFloating(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		return true
	}
	return false
}

func bindComparison(op Op, ref Ref, lit any) (Expr, error) {
	c, err := convert(lit, ref.Type)
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", clip(ref.Name), err)
	}
	switch {
	case c.rng > 0: // above every value of the type
		return constant(op == OpLt || op == OpLtEq || op == OpNotEq), nil
	case c.rng < 0: // below every value of the type
		return constant(op == OpGt || op == OpGtEq || op == OpNotEq), nil
	case isNaN(c.val):
		switch op {
		case OpEq:
			return Predicate{Op: OpIsNaN, Ref: ref}, nil
		case OpNotEq:
			return Predicate{Op: OpNotNaN, Ref: ref}, nil
		}
		return nil, invalidf("column %s: NaN is unordered, %s NaN is never true; use IS NAN", ref.Name, op)
	case !c.exact:
		// The literal lies strictly between c.val and its successor.
		switch op {
		case OpLt, OpLtEq:
			return Predicate{Op: OpLtEq, Ref: ref, Values: []any{c.val}}, nil
		case OpGt, OpGtEq:
			next, ok := successor(ref.Type, c.val)
			if !ok {
				return FalseExpr{}, nil
			}
			return Predicate{Op: OpGtEq, Ref: ref, Values: []any{next}}, nil
		}
		return constant(op == OpNotEq), nil
	}
	return Predicate{Op: op, Ref: ref, Values: []any{c.val}}, nil
}

func bindSet(op Op, ref Ref, lits []any) (Expr, error) {
	var vals []any
	hasNaN := false
	for _, lit := range lits {
		c, err := convert(lit, ref.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", clip(ref.Name), err)
		}
		switch {
		case c.rng != 0 || !c.exact: // no value of the column equals it
		case isNaN(c.val):
			hasNaN = true
		default:
			vals = append(vals, c.val)
		}
	}
	base := setPredicate(op, ref, vals)
	if hasNaN {
		if op == OpIn {
			return Or(base, Predicate{Op: OpIsNaN, Ref: ref}), nil
		}
		return And(base, Predicate{Op: OpNotNaN, Ref: ref}), nil
	}
	return base, nil
}

// setPredicate builds IN / NOT IN over sorted distinct values, collapsing
// an empty list to a constant and a single value to = or !=.
func setPredicate(op Op, ref Ref, vals []any) Expr {
	vals = sortValues(vals)
	switch len(vals) {
	case 0:
		return constant(op == OpNotIn)
	case 1:
		return Predicate{Op: pick(op == OpIn, OpEq, OpNotEq), Ref: ref, Values: vals}
	}
	return Predicate{Op: op, Ref: ref, Values: vals}
}

// resolve finds the fields on the path to a dotted column name. A whole
// name matching a field wins over splitting it at dots, so columns whose
// names contain dots stay reachable.
func resolve(schema *iceberg.Schema, name string, cs bool) ([]iceberg.NestedField, error) {
	if name == "" {
		return nil, invalidf("empty column name")
	}
	path, err := findPath(schema.Fields, strings.Split(name, "."), cs, name)
	if err != nil {
		return nil, err
	}
	if path == nil {
		return nil, unknownColumnError(schema, name)
	}
	return path, nil
}

func findPath(fields []iceberg.NestedField, parts []string, cs bool, full string) ([]iceberg.NestedField, error) {
	for i := len(parts); i >= 1; i-- {
		f, ok, err := fieldNamed(fields, strings.Join(parts[:i], "."), cs)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if i == len(parts) {
			return []iceberg.NestedField{f}, nil
		}
		switch t := f.Type.(type) {
		case *iceberg.StructType:
			rest, err := findPath(t.Fields, parts[i:], cs, full)
			if err != nil || rest != nil {
				return append([]iceberg.NestedField{f}, rest...), err
			}
		case *iceberg.ListType, *iceberg.MapType:
			return nil, invalidf("column %s is inside %s, a %v; filters on list elements and map entries are not supported", full, f.Name, f.Type)
		}
	}
	return nil, nil
}

func fieldNamed(fields []iceberg.NestedField, name string, cs bool) (iceberg.NestedField, bool, error) {
	var folded []iceberg.NestedField
	for _, f := range fields {
		if f.Name == name {
			return f, true, nil
		}
		if !cs && strings.EqualFold(f.Name, name) {
			folded = append(folded, f)
		}
	}
	switch len(folded) {
	case 0:
		return iceberg.NestedField{}, false, nil
	case 1:
		return folded[0], true, nil
	}
	return iceberg.NestedField{}, false, invalidf("column %q is ambiguous without case sensitivity: %q and %q", name, folded[0].Name, folded[1].Name)
}

// unknownColumnError names the column and the nearest existing names by
// edit distance.
func unknownColumnError(schema *iceberg.Schema, name string) error {
	var names []string
	var walk func(prefix string, fields []iceberg.NestedField)
	walk = func(prefix string, fields []iceberg.NestedField) {
		for _, f := range fields {
			full := prefix + f.Name
			names = append(names, full)
			if st, ok := f.Type.(*iceberg.StructType); ok {
				walk(full+".", st.Fields)
			}
		}
	}
	walk("", schema.Fields)
	if len(names) == 0 {
		return fmt.Errorf("%w %q: the schema has no columns", ErrUnknownColumn, clip(name))
	}
	// Distances from a clipped name: no column is longer than a message
	// quotes, and a megabyte of name must not cost seconds of CPU.
	names = suggest.Nearest(clip(name), names, 3)
	for i, n := range names {
		names[i] = clip(quoteName(n))
	}
	return fmt.Errorf("%w %s (nearest: %s)", ErrUnknownColumn, clip(quoteName(name)), strings.Join(names, ", "))
}
