package expr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"bare true", `true`, "TRUE"},
		{"deprecated true object", `{"type": "true"}`, "TRUE"},
		{"literal false object", `{"type": "literal", "value": false}`, "FALSE"},
		{"Java 1.12 form", `{"type":"and","left":{"type":"eq","term":"id","value":5},"right":{"type":"not","child":{"type":"is-null","term":"s"}}}`, "id = 5 AND NOT s IS NULL"},
		{"or", `{"type":"or","left":{"type":"lt","term":"l","value":-3},"right":{"type":"gt-eq","term":"l","value":10}}`, "l < -3 OR l >= 10"},
		{"reference object with term", `{"type":"in","term":{"type":"reference","term":"id"},"values":[1,2]}`, "id IN (1, 2)"},
		{"newer child and named reference", `{"type":"is-nan","child":{"type":"reference","name":"d"}}`, "d IS NAN"},
		{"newer left and right", `{"type":"lt-eq","left":{"type":"reference","name":"id"},"right":{"type":"literal","value":5}}`, "id <= 5"},
		{"literal on the left flips the operation", `{"type":"lt","left":5,"right":{"type":"reference","name":"id"}}`, "id > 5"},
		{"typed literal list", `{"type":"not-in","child":"dt","values":{"type":"literals","values":["2017-11-16"],"data-type":"date"}}`, "dt NOT IN (DATE '2017-11-16')"},
		{"typed literal value", `{"type":"eq","term":"b","value":{"type":"literal","value":"00ff","data-type":"binary"}}`, "b = X'00ff'"},
		{"decimal number kept exactly", `{"type":"eq","term":"dec","value":14.20}`, "dec = 14.20"},
		{"decimal as a string", `{"type":"eq","term":"dec","value":"14.20"}`, "dec = '14.20'"},
		{"large integer kept exactly", `{"type":"lt","term":"l","value":92233720368547758070}`, "l < 92233720368547758070"},
		{"starts-with", `{"type":"starts-with","term":"s","value":"ab"}`, "s STARTS WITH 'ab'"},
		{"not-starts-with", `{"type":"not-starts-with","term":"s","value":"ab"}`, "s NOT STARTS WITH 'ab'"},
		{"type names are case-insensitive", `{"type":"NOT-NULL","term":"s"}`, "s IS NOT NULL"},
		{"boolean value", `{"type":"eq","term":"bo","value":true}`, "bo = TRUE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			if got := e.String(); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseJSONErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, msg string
	}{
		{"not JSON", `{`, "JSON expression"},
		{"trailing data", `true false`, "trailing data"},
		{"a number is not an expression", `5`, "want an object or a boolean"},
		{"unknown type", `{"type":"between","term":"id"}`, `unknown type "between"`},
		{"transform terms are rejected clearly", `{"type":"eq","term":{"type":"transform","transform":"bucket[16]","term":"id"},"value":3}`, "transform terms (bucket[16] of id) are not supported"},
		{"missing value", `{"type":"eq","term":"id"}`, `missing "value"`},
		{"null value", `{"type":"eq","term":"id","value":null}`, "null is not a value"},
		{"unexpected key", `{"type":"is-null","term":"s","value":1}`, `unexpected key "value"`},
		{"values not an array", `{"type":"in","term":"id","values":5}`, "must be an array"},
		{"empty values", `{"type":"in","term":"id","values":[]}`, "is empty"},
		{"missing child", `{"type":"not"}`, `missing "child"`},
		{"object value", `{"type":"eq","term":"id","value":{"a":1}}`, "is not a literal"},
		{"function application", `{"type":"eq","term":{"type":"apply","function":"f","arguments":[]},"value":1}`, "function applications are not supported"},
		{"bad data-type", `{"type":"eq","term":"id","value":{"type":"literal","value":1,"data-type":"int128"}}`, `literal data-type "int128"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseJSON([]byte(tc.in))
			if !errors.Is(err, ErrInvalidFilter) {
				t.Fatalf("error = %v, want ErrInvalidFilter", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, filter, want string
	}{
		{"true is a bare boolean", "TRUE", `true`},
		{"bound date in its JSON single-value form", "dt = '2017-11-16'", `{"type":"eq","term":"dt","value":"2017-11-16"}`},
		{"decimals are strings with their scale", "dec IN (1, 2.5)", `{"type":"in","term":"dec","values":["1.00","2.50"]}`},
		{"unary has no value", "s IS NULL", `{"type":"is-null","term":"s"}`},
		{"nested and not", "NOT (id = 1 OR s STARTS WITH 'x')", `{"type":"not","child":{"type":"or","left":{"type":"eq","term":"id","value":1},"right":{"type":"starts-with","term":"s","value":"x"}}}`},
		{"binary is hex", "b = X'00ff'", `{"type":"eq","term":"b","value":"00FF"}`},
		{"timestamptz ends in +00:00", "tstz >= '2017-11-16T14:31:08-08:00'", `{"type":"gt-eq","term":"tstz","value":"2017-11-16T22:31:08.000000+00:00"}`},
		{"nested field uses its dotted name", "st.b != 'q'", `{"type":"not-eq","term":"st.b","value":"q"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(mustBind(t, tc.filter))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got %s, want %s", b, tc.want)
			}
		})
	}
}

// TestJSONRoundTrip writes bound filters as JSON, reads them back and binds
// them again: the result must be the same filter.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	filters := []string{
		"id < 5 AND (l >= -3 OR l IN (7, 9))",
		"f > 0.1 AND d <= 1e300 AND d != Infinity",
		"dec = 14.20",
		"s STARTS WITH 'ab' AND s NOT STARTS WITH 'abc' AND s != 'it''s'",
		"b = X'00ff' AND fx = X'00010203'",
		"dt IN (DATE '2017-11-16', DATE '1969-12-31')",
		"t = TIME '22:31:08.000001'",
		"ts < TIMESTAMP '2017-11-16 22:31:08.123456' AND tstz > TIMESTAMPTZ '1960-01-01 00:00:00+00:00'",
		"tsns = TIMESTAMP '2017-11-16 22:31:08.000001001'",
		"u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'",
		"bo = FALSE OR st.a IS NULL",
		"NOT (d IS NAN)",
		"dt = 10000000 OR dt < -800000 OR ts > 400000000000000000 OR tstz < -70000000000000000",
	}
	for _, f := range filters {
		bound := mustBind(t, f)
		b, err := json.Marshal(bound)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := ParseJSON(b)
		if err != nil {
			t.Fatalf("%s: ParseJSON(%s): %v", f, b, err)
		}
		rebound, err := Bind(back, testSchema, true)
		if err != nil {
			t.Fatalf("%s: bind %s: %v", f, b, err)
		}
		if rebound.String() != bound.String() {
			t.Errorf("round trip of %q through %s gave %q", bound, b, rebound)
		}
	}
	// Unbound filters round-trip too: Typed literals become strings that
	// convert back at bind time.
	for _, f := range filters {
		e := mustParse(t, f)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := ParseJSON(b)
		if err != nil {
			t.Fatalf("%s: ParseJSON(%s): %v", f, b, err)
		}
		got, err := Bind(back, testSchema, true)
		if err != nil {
			t.Fatalf("%s: bind %s: %v", f, b, err)
		}
		if want := mustBind(t, f); got.String() != want.String() {
			t.Errorf("unbound round trip of %q through %s gave %q", f, b, got)
		}
	}
}
