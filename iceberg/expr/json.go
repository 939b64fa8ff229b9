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
	return exprFromJSON(v)
}

func exprFromJSON(v any) (Expr, error) {
	switch v := v.(type) {
	case bool:
		return constant(v), nil
	case map[string]any:
		return objectFromJSON(v)
	}
	return nil, invalidf("JSON expression: want an object or a boolean, got %s", jsonText(v))
}

func objectFromJSON(obj map[string]any) (Expr, error) {
	typ, ok := obj["type"].(string)
	if !ok {
		return nil, invalidf("JSON expression %s: missing string \"type\"", jsonText(obj))
	}
	typ = strings.ToLower(typ)
	allow := func(keys ...string) error {
		for k := range obj {
			if k != "type" && !contains(keys, k) {
				return invalidf("JSON %s expression: unexpected key %q", typ, k)
			}
		}
		return nil
	}
	child := func(key string) (Expr, error) {
		c, ok := obj[key]
		if !ok {
			return nil, invalidf("JSON %s expression: missing %q", typ, key)
		}
		return exprFromJSON(c)
	}
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
		c, err := child("child")
		if err != nil {
			return nil, err
		}
		return NotExpr{Child: c}, nil
	case "and", "or":
		if err := allow("left", "right"); err != nil {
			return nil, err
		}
		l, err := child("left")
		if err != nil {
			return nil, err
		}
		r, err := child("right")
		if err != nil {
			return nil, err
		}
		if typ == "and" {
			return AndExpr{Left: l, Right: r}, nil
		}
		return OrExpr{Left: l, Right: r}, nil
	}
	op, ok := opByName(typ)
	if !ok {
		return nil, invalidf("JSON expression: unknown type %q (want true, false, and, or, not, %s)", typ, strings.Join(sortedOpNames(), ", "))
	}
	return predicateFromJSON(op, obj, allow)
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

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
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

// MarshalJSON writes {"type": "and", "left": ..., "right": ...}.
func (e AndExpr) MarshalJSON() ([]byte, error) { return marshalPair("and", e.Left, e.Right) }

// MarshalJSON writes {"type": "or", "left": ..., "right": ...}.
func (e OrExpr) MarshalJSON() ([]byte, error) { return marshalPair("or", e.Left, e.Right) }

func marshalPair(typ string, l, r Expr) ([]byte, error) {
	return json.Marshal(struct {
		Type  string `json:"type"`
		Left  Expr   `json:"left"`
		Right Expr   `json:"right"`
	}{typ, l, r})
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
			return nil, fmt.Errorf("predicate on %s: %w", p.Ref.Name, err)
		}
		vals[i] = raw
	}
	switch {
	case p.Op.Set():
		out.Values = vals
	case !p.Op.Unary():
		if len(vals) != 1 {
			return nil, fmt.Errorf("predicate %s on %s has %d values", p.Op, p.Ref.Name, len(vals))
		}
		out.Value = vals[0]
	}
	return json.Marshal(out)
}

func literalJSON(t iceberg.Type, v any) (json.RawMessage, error) {
	if t != nil {
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
	return nil, fmt.Errorf("literal %v of Go type %T has no JSON form", v, v)
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
