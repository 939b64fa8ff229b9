package expr

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// maxMessage is the longest error message the fuzz targets accept.
const maxMessage = 1000

// FuzzParse feeds the string filter parser arbitrary text. Whatever the
// input, it must not crash or overflow the stack, its errors must be
// short ErrInvalidFilter, and what it accepts must print to a filter that
// parses back to the same text, bind without panicking and, bound, travel
// through JSON unchanged. The text is also read as a statement's WHERE
// clause, with ? parameters (see checkParams). The seed corpus is in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"id = 5", "a.b IN (1, 2.5, 'x') OR NOT c IS NULL", `"q""x" LIKE 'a\%%'`,
		"ts >= TIMESTAMPTZ '2017-11-16 14:31:08-08:00'", "d != -Infinity AND b = X'00'",
		"5 < id", "(a = 1 OR b = 2) AND (c = 3 AND d = 4)", "s NOT STARTS WITH 'it''s'",
		"id = ?", "? < l AND s IN (?, 'x', ?)", "NOT (s LIKE ? OR s NOT STARTS WITH ?)", "1 < ?", "dt = DATE ?",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkParams(t, s)
		e, err := Parse(s)
		if err != nil {
			checkFilterError(t, err)
			return
		}
		again, err := Parse(e.String())
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", s, e.String(), err)
		}
		if again.String() != e.String() {
			t.Fatalf("%q prints as %q, which parses to %q", s, e.String(), again.String())
		}
		checkBound(t, e)
	})
}

// checkParams reads s as the tokens of a statement's WHERE clause, with ?
// parameters: errors are syntax errors inside s; an accepted filter
// numbers its parameters in order at the ? they stand for, prints to a
// filter that reads back the same, and, its parameters bound to strings,
// prints to a filter Parse reads back the same and that binds (or not)
// without panicking.
func checkParams(t *testing.T, s string) {
	t.Helper()
	toks, err := LexSQL(s)
	var e Expr
	n := 0
	if err == nil {
		e, n, err = ParseTokens(toks)
	}
	if err != nil {
		checkFilterError(t, err)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Pos < 0 || se.Pos > len(s) {
			t.Fatalf("%q: error %v is not a syntax error inside the text", s, err)
		}
		return
	}
	var values []any
	Walk(e, func(p Predicate) {
		for _, v := range p.Values {
			if pm, ok := v.(Param); ok {
				if values = append(values, "x%"); pm.N != len(values) || s[pm.Pos] != '?' {
					t.Fatalf("%q: parameter %d is numbered %d at %d", s, len(values), pm.N, pm.Pos)
				}
			}
		}
	})
	if len(values) != n {
		t.Fatalf("%q: %d parameters counted, %d in the filter", s, n, len(values))
	}
	printed, err := LexSQL(e.String())
	if err != nil {
		t.Fatalf("%q prints as %q, which does not lex: %v", s, e.String(), err)
	}
	if again, _, err := ParseTokens(printed); err != nil || again.String() != e.String() {
		t.Fatalf("%q prints as %q, which reads back as %v, %v", s, e.String(), again, err)
	}
	bound, err := BindParams(e, values)
	if err != nil {
		checkFilterError(t, err)
		return
	}
	again, err := Parse(bound.String())
	if err != nil || again.String() != bound.String() {
		t.Fatalf("%q bound prints as %q, which parses as %v, %v", s, bound.String(), again, err)
	}
	checkBound(t, again)
}

// FuzzParseJSON feeds the REST Expression JSON parser arbitrary bytes,
// with the checks of FuzzParse. The seed corpus is in
// testdata/fuzz/FuzzParseJSON.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"type":"and","left":{"type":"eq","term":"id","value":5},"right":{"type":"not","child":{"type":"is-null","term":"s"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseJSON(b)
		if err != nil {
			checkFilterError(t, err)
			return
		}
		checkBound(t, e)
	})
}

func checkFilterError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrInvalidFilter) {
		t.Fatalf("error %v does not match ErrInvalidFilter", err)
	}
	if len(err.Error()) > maxMessage {
		t.Fatalf("error of %d bytes: %.200s", len(err.Error()), err)
	}
}

// checkBound binds e to testSchema and, when it binds, writes it as JSON,
// reads it back and binds it again: the result must be the same filter.
// Metrics and partition evaluation must not fail on it.
func checkBound(t *testing.T, e Expr) {
	t.Helper()
	bound, err := Bind(e, testSchema, true)
	if err != nil {
		if !errors.Is(err, ErrInvalidFilter) && !errors.Is(err, ErrUnknownColumn) {
			t.Fatalf("bind %s: error %v matches neither ErrInvalidFilter nor ErrUnknownColumn", Summary(e), err)
		}
		if len(err.Error()) > maxMessage {
			t.Fatalf("bind error of %d bytes: %.200s", len(err.Error()), err)
		}
		return
	}
	raw, err := json.Marshal(bound)
	if err != nil {
		t.Fatalf("marshal %s: %v", Summary(bound), err)
	}
	back, err := ParseJSON(raw)
	if err != nil {
		t.Fatalf("%s as JSON %.300s does not read back: %v", Summary(bound), raw, err)
	}
	rebound, err := Bind(back, testSchema, true)
	if err != nil {
		t.Fatalf("%s through JSON does not bind: %v", Summary(bound), err)
	}
	if rebound.String() != bound.String() {
		t.Fatalf("%s through JSON became %s", Summary(bound), Summary(rebound))
	}
	ev, err := NewMetricsEvaluator(testSchema, bound, true)
	if err != nil {
		t.Fatalf("metrics evaluator of %s: %v", Summary(bound), err)
	}
	if _, err := ev.EvalMetrics(Metrics{RecordCount: 10}); err != nil {
		t.Fatalf("metrics of %s: %v", Summary(bound), err)
	}
	spec := spec1(1, iceberg.BucketTransform{N: 16}, "id_bucket")
	if _, err := NewPartitionEvaluator(spec, nil, bound); err != nil {
		t.Fatalf("partition evaluator of %s: %v", Summary(bound), err)
	}
}
