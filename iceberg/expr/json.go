package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// ParseJSON reads an expression in the REST catalog's Expression JSON
// (open-api/rest-catalog-open-api.yaml): true and false, {"type": "and"|
// "or", "left", "right"}, {"type": "not", "child"}, unary predicates
// ("is-null", "not-null", "is-nan", "not-nan") with "term" or "child",
// comparisons ("lt" ... "not-starts-with") with "term" and "value" or
// "left" and "right", and "in"/"not-in" with "values". Terms are a column
// name or {"type": "reference", "term"|"name": ...}; values are JSON
// single-value literals, optionally wrapped as {"type": "literal",
// "value", "data-type"}. Transform terms and function applications are
// rejected. The result is unbound; strings convert to dates, uuids and so
// on when bound.
//
// A chain of one operator, nested as Java writes it (or(or(a, b), c)), is
// read into one flat OrExpr without recursion and counts as one level of
// nesting; a filter nesting more than MaxDepth levels (plus the few that
// binding adds, so residuals written from bound filters read back) is
// refused with an error matching ErrTooDeep. The JSON decoder itself
// refuses text nested more than 10,000 levels before building anything.
func ParseJSON(b []byte) (Expr, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalidf("JSON expression: %v", err)
	}
	if dec.More() {
		return nil, invalidf("JSON expression: trailing data after the expression")
	}
	return exprFromJSON(v, 0)
}

// exprFromJSON reads the expression v at nesting depth.
func exprFromJSON(v any, depth int) (Expr, error) {
	switch v := v.(type) {
	case bool:
		return constant(v), nil
	case map[string]any:
		return objectFromJSON(v, depth)
	}
	return nil, invalidf("JSON expression: want an object or a boolean, got %s", jsonText(v))
}

func objectFromJSON(obj map[string]any, depth int) (Expr, error) {
	typ, ok := jsonType(obj)
	if !ok {
		return nil, invalidf("JSON expression %s: missing string \"type\"", jsonText(obj))
	}
	allow := func(keys ...string) error { return allowKeys(typ, obj, keys...) }
	switch typ {
	case "true", "false":
		return constant(typ == "true"), allow()
	case "literal": // {"type": "literal", "value": true} as a predicate
		b, ok := obj["value"].(bool)
		if !ok {
			return nil, invalidf("JSON literal expression: want a boolean \"value\"")
		}
		return constant(b), allow("value")
	case "not":
		if err := allow("child"); err != nil {
			return nil, err
		}
		if depth >= maxTreeDepth {
			return nil, tooDeep(maxTreeDepth)
		}
		c, ok := obj["child"]
		if !ok {
			return nil, invalidf("JSON not expression: missing \"child\"")
		}
		child, err := exprFromJSON(c, depth+1)
		if err != nil {
			return nil, err
		}
		return NotExpr{Child: child}, nil
	case "and", "or":
		return chainFromJSON(typ, obj, depth)
	}
	op, ok := opByName(typ)
	if !ok {
		return nil, invalidf("JSON expression: unknown type %q (want true, false, and, or, not, %s)", typ, strings.Join(sortedOpNames(), ", "))
	}
	return predicateFromJSON(op, obj, allow)
}

// jsonType returns an object's "type", lower-cased.
func jsonType(obj map[string]any) (string, bool) {
	typ, ok := obj["type"].(string)
	return strings.ToLower(typ), ok
}

// allowKeys refuses keys of a typ object other than "type" and keys.
func allowKeys(typ string, obj map[string]any, keys ...string) error {
	for k := range obj {
		if k != "type" && !contains(keys, k) {
			return invalidf("JSON %s expression: unexpected key %q", clip(typ), clip(k))
		}
	}
	return nil
}

// chainFromJSON reads an and or or object and every object of the same
// type below it, on either side, as one flat chain: the operands are
// collected with an explicit stack, left to right, and only the others
// (predicates, NOTs, the other operator) nest one level deeper.
func chainFromJSON(typ string, obj map[string]any, depth int) (Expr, error) {
	if depth >= maxTreeDepth {
		return nil, tooDeep(maxTreeDepth)
	}
	var terms []Expr
	stack := []any{obj}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if m, ok := v.(map[string]any); ok {
			if t, _ := jsonType(m); t == typ {
				if err := allowKeys(typ, m, "left", "right"); err != nil {
					return nil, err
				}
				l, okL := m["left"]
				r, okR := m["right"]
				if !okL || !okR {
					return nil, invalidf("JSON %s expression: want \"left\" and \"right\"", typ)
				}
				stack = append(stack, r, l)
				continue
			}
		}
		t, err := exprFromJSON(v, depth+1)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	if typ == "and" {
		return AndExpr{Terms: terms}, nil
	}
	return OrExpr{Terms: terms}, nil
}

func opByName(name string) (Op, bool) {
	for op, n := range opNames {
		if n == name {
			return op, true
		}
	}
	return 0, false
}

func predicateFromJSON(op Op, obj map[string]any, allow func(...string) error) (Expr, error) {
	switch {
	case op.Unary():
		if err := allow("term", "child"); err != nil {
			return nil, err
		}
		ref, err := termFromJSON(op, obj, "term", "child")
		if err != nil {
			return nil, err
		}
		return Predicate{Op: op, Ref: ref}, nil
	case op.Set():
		if err := allow("term", "child", "values"); err != nil {
			return nil, err
		}
		ref, err := termFromJSON(op, obj, "term", "child")
		if err != nil {
			return nil, err
		}
		vals, err := literalsFromJSON(op, obj["values"])
		if err != nil {
			return nil, err
		}
		return Predicate{Op: op, Ref: ref, Values: vals}, nil
	}
	if err := allow("term", "value", "left", "right"); err != nil {
		return nil, err
	}
	if _, legacy := obj["term"]; legacy {
		ref, err := termFromJSON(op, obj, "term", "")
		if err != nil {
			return nil, err
		}
		raw, ok := obj["value"]
		if !ok {
			return nil, invalidf("JSON %s predicate: missing \"value\"", op)
		}
		v, err := literalFromJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("JSON %s predicate: %w", op, err)
		}
		return Predicate{Op: op, Ref: ref, Values: []any{v}}, nil
	}
	// The newer form compares two value expressions; one must be a column.
	left, right := obj["left"], obj["right"]
	if left == nil || right == nil {
		return nil, invalidf("JSON %s predicate: want \"term\" and \"value\" or \"left\" and \"right\"", op)
	}
	if ref, ok := refFromJSON(left); ok {
		v, err := literalFromJSON(right)
		if err != nil {
			return nil, fmt.Errorf("JSON %s predicate: %w", op, err)
		}
		return Predicate{Op: op, Ref: ref, Values: []any{v}}, nil
	}
	if ref, ok := refFromJSON(right); ok && op != OpStartsWith && op != OpNotStartsWith {
		v, err := literalFromJSON(left)
		if err != nil {
			return nil, fmt.Errorf("JSON %s predicate: %w", op, err)
		}
		return Predicate{Op: op.flip(), Ref: ref, Values: []any{v}}, nil
	}
	return nil, invalidf("JSON %s predicate: want a column reference on the left and a literal on the right", op)
}

// termFromJSON reads the column of a predicate from key (or alt).
func termFromJSON(op Op, obj map[string]any, key, alt string) (Ref, error) {
	raw, ok := obj[key]
	if !ok && alt != "" {
		raw, ok = obj[alt]
	}
	if !ok {
		return Ref{}, invalidf("JSON %s predicate: missing %q", op, key)
	}
	if m, isObj := raw.(map[string]any); isObj {
		switch t, _ := m["type"].(string); t {
		case "transform":
			return Ref{}, invalidf("JSON %s predicate: transform terms (%v of %v) are not supported; filter on the column", op, m["transform"], m["term"])
		case "apply":
			return Ref{}, invalidf("JSON %s predicate: function applications are not supported", op)
		}
	}
	ref, ok := refFromJSON(raw)
	if !ok {
		return Ref{}, invalidf("JSON %s predicate: %s is not a column reference", op, jsonText(raw))
	}
	return ref, nil
}

// refFromJSON accepts "name", {"type": "reference", "term": "name"} and
// {"type": "reference", "name": "name"}.
func refFromJSON(v any) (Ref, bool) {
	switch v := v.(type) {
	case string:
		return Ref{Name: v}, v != ""
	case map[string]any:
		if t, _ := v["type"].(string); t != "reference" {
			return Ref{}, false
		}
		for _, k := range []string{"term", "name"} {
			if s, ok := v[k].(string); ok && s != "" {
				return Ref{Name: s}, true
			}
		}
	}
	return Ref{}, false
}

func literalsFromJSON(op Op, v any) ([]any, error) {
	var items []any
	switch v := v.(type) {
	case []any:
		items = v
	case map[string]any: // {"type": "literals", "values": [...], "data-type": "..."}
		if t, _ := v["type"].(string); t != "literals" {
			return nil, invalidf("JSON %s predicate: \"values\" must be an array", op)
		}
		arr, ok := v["values"].([]any)
		if !ok {
			return nil, invalidf("JSON %s predicate: \"values\" must hold an array", op)
		}
		for _, item := range arr {
			items = append(items, map[string]any{"type": "literal", "value": item, "data-type": v["data-type"]})
		}
	case nil:
		return nil, invalidf("JSON %s predicate: missing \"values\"", op)
	default:
		return nil, invalidf("JSON %s predicate: \"values\" must be an array", op)
	}
	if len(items) == 0 {
		return nil, invalidf("JSON %s predicate: \"values\" is empty", op)
	}
	out := make([]any, len(items))
	for i, item := range items {
		lit, err := literalFromJSON(item)
		if err != nil {
			return nil, fmt.Errorf("JSON %s predicate: %w", op, err)
		}
		out[i] = lit
	}
	return out, nil
}

// literalFromJSON reads a single-value literal. Integral numbers that fit
// an int64 become int64, other numbers exact Number text.
func literalFromJSON(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		return numberLiteral(string(v)), nil
	case string, bool:
		return v, nil
	case map[string]any:
		if t, _ := v["type"].(string); t != "literal" {
			return nil, invalidf("%s is not a literal", jsonText(v))
		}
		inner, ok := v["value"]
		if !ok || inner == nil {
			return nil, invalidf("literal %s has no value", jsonText(v))
		}
		dt, hasType := v["data-type"].(string)
		if !hasType {
			return literalFromJSON(inner)
		}
		t, err := iceberg.ParsePrimitiveType(dt)
		if err != nil {
			return nil, invalidf("literal data-type %q: %v", dt, err)
		}
		raw, _ := json.Marshal(inner)
		switch t.(type) {
		case iceberg.IntType, iceberg.LongType, iceberg.FloatType, iceberg.DoubleType, iceberg.DecimalType:
			// As for untyped numbers (convert): a megabyte of digits
			// took seconds to parse as a decimal.
			if len(raw) > maxNumberLength+2 {
				return nil, invalidf("literal of %d bytes as %v: longer than the %d a number may have", len(raw), t, maxNumberLength)
			}
		}
		val, err := iceberg.ParseJSONValue(t, raw)
		if err != nil {
			return nil, invalidf("literal %s as %v: %v", raw, t, err)
		}
		return Typed{Type: t, Value: val}, nil
	case nil:
		return nil, invalidf("null is not a value; use is-null or not-null")
	}
	return nil, invalidf("%s is not a single value", jsonText(v))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonText writes v as JSON for a message, clipped.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return clip(fmt.Sprint(v))
	}
	return clip(string(b))
}

// MarshalJSON writes true.
func (TrueExpr) MarshalJSON() ([]byte, error) { return []byte("true"), nil }

// MarshalJSON writes false.
func (FalseExpr) MarshalJSON() ([]byte, error) { return []byte("false"), nil }

// MarshalJSON writes {"type": "not", "child": ...}.
func (e NotExpr) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type  string `json:"type"`
		Child Expr   `json:"child"`
	}{"not", e.Child})
}

// MarshalJSON writes the chain as nested {"type": "and", "left": ...,
// "right": ...} objects, the REST form, split in halves so that a chain of
// n terms nests log2(n) levels deep: a reader's JSON decoder (Go's stops at
// 10,000 levels) takes any chain. The nest is written directly, each term
// marshalled once, so writing is linear in the chain's length; a left-deep
// nest written through json.Marshal was re-checked at every level, n².
func (e AndExpr) MarshalJSON() ([]byte, error) { return marshalChain("and", e.Terms) }

// MarshalJSON writes the chain as nested {"type": "or", ...} objects, split
// in halves as AndExpr's.
func (e OrExpr) MarshalJSON() ([]byte, error) { return marshalChain("or", e.Terms) }

func marshalChain(typ string, terms []Expr) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeChain(&buf, typ, terms); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeChain(buf *bytes.Buffer, typ string, terms []Expr) error {
	switch len(terms) {
	case 0:
		buf.WriteString(strconv.FormatBool(typ == "and"))
		return nil
	case 1:
		b, err := json.Marshal(terms[0])
		buf.Write(b)
		return err
	}
	mid := len(terms) / 2
	buf.WriteString(`{"type":"` + typ + `","left":`)
	if err := writeChain(buf, typ, terms[:mid]); err != nil {
		return err
	}
	buf.WriteString(`,"right":`)
	if err := writeChain(buf, typ, terms[mid:]); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

// MarshalJSON writes the predicate as Iceberg Java 1.12 does: "term" is the
// column name and "value" or "values" the literals in the JSON
// single-value form of the bound column's type.
func (p Predicate) MarshalJSON() ([]byte, error) {
	out := struct {
		Type   string            `json:"type"`
		Term   string            `json:"term"`
		Value  json.RawMessage   `json:"value,omitempty"`
		Values []json.RawMessage `json:"values,omitempty"`
	}{Type: p.Op.String(), Term: p.Ref.Name}
	vals := make([]json.RawMessage, len(p.Values))
	for i, v := range p.Values {
		raw, err := literalJSON(p.Ref.Type, v)
		if err != nil {
			return nil, fmt.Errorf("predicate on %s: %w", clip(p.Ref.Name), err)
		}
		vals[i] = raw
	}
	switch {
	case p.Op.Set():
		out.Values = vals
	case !p.Op.Unary():
		if len(vals) != 1 {
			return nil, fmt.Errorf("predicate %s on %s has %d values", p.Op, clip(p.Ref.Name), len(vals))
		}
		out.Value = vals[0]
	}
	return json.Marshal(out)
}

func literalJSON(t iceberg.Type, v any) (json.RawMessage, error) {
	if t != nil {
		// A date or timestamp past year 9999 has no ISO-8601 form that
		// Bind reads back (the residual of dt = 10000000 failed in the
		// reader): write it as the integer, as String does.
		switch t.(type) {
		case iceberg.DateType:
			if d, ok := v.(int32); ok && !fourDigitYear(t, int64(d)) {
				return json.RawMessage(strconv.FormatInt(int64(d), 10)), nil
			}
		case iceberg.TimestampType, iceberg.TimestampTzType:
			if us, ok := v.(int64); ok && !fourDigitYear(t, us) {
				return json.RawMessage(strconv.FormatInt(us, 10)), nil
			}
		}
		return iceberg.FormatJSONValue(t, v)
	}
	switch v := v.(type) {
	case bool, string:
		return json.Marshal(v)
	case int64:
		return json.RawMessage(strconv.FormatInt(v, 10)), nil
	case Number:
		if json.Valid([]byte(v)) {
			return json.RawMessage(v), nil
		}
		return json.Marshal(string(v))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return json.Marshal(formatFloat(v, 64))
		}
		return json.RawMessage(strconv.FormatFloat(v, 'g', -1, 64)), nil
	case Typed:
		return iceberg.FormatJSONValue(v.Type, v.Value)
	}
	return nil, fmt.Errorf("literal %s of Go type %T has no JSON form", clip(fmt.Sprint(v)), v)
}

// sortedOpNames lists the REST names of predicate operations, for messages.
func sortedOpNames() []string {
	names := make([]string, 0, len(opNames))
	for _, n := range opNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
