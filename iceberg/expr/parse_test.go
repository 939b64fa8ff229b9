package expr

import (
	"errors"
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"comparison", "id = 5", "id = 5"},
		{"keywords are case-insensitive", "s is not null and id in (1,2) or not b is null", "s IS NOT NULL AND id IN (1, 2) OR NOT b IS NULL"},
		{"<> is !=", "id <> 5", "id != 5"},
		{"AND binds tighter than OR", "a = 1 OR b = 2 AND c = 3", "a = 1 OR b = 2 AND c = 3"},
		{"parentheses keep an OR inside an AND", "(a = 1 OR b = 2) AND c = 3", "(a = 1 OR b = 2) AND c = 3"},
		{"a right-nested AND keeps its parentheses", "a = 1 AND (b = 2 AND c = 3)", "a = 1 AND (b = 2 AND c = 3)"},
		{"NOT of a group", "NOT (a = 1 OR b = 2)", "NOT (a = 1 OR b = 2)"},
		{"double-quoted name with a quote and a space", `"odd ""name"" x" = 'v'`, `"odd ""name"" x" = 'v'`},
		{"reserved word as a quoted name", `"in" = 1`, `"in" = 1`},
		{"dotted nested name", "st.a > 3", "st.a > 3"},
		{"quoted part of a dotted name", `"st".a > 3`, "st.a > 3"},
		{"string with an escaped quote", "s = 'it''s'", "s = 'it''s'"},
		{"negative integer", "id >= -12", "id >= -12"},
		{"decimal kept as written", "dec = 14.20", "dec = 14.20"},
		{"exponent", "d < 1e20", "d < 1e20"},
		{"integer beyond int64 kept exactly", "l < 92233720368547758070", "l < 92233720368547758070"},
		{"NaN and Infinity are float words", "d != NaN AND d < Infinity AND d > -Infinity", "d != NaN AND d < Infinity AND d > -Infinity"},
		{"booleans", "bo = true", "bo = TRUE"},
		{"TRUE alone", "true", "TRUE"},
		{"LIKE prefix is STARTS WITH", "s LIKE 'ab%'", "s STARTS WITH 'ab'"},
		{"NOT LIKE prefix", "s NOT LIKE 'ab%'", "s NOT STARTS WITH 'ab'"},
		{"LIKE escapes", `s LIKE 'a\%b\_c%'`, "s STARTS WITH 'a%b_c'"},
		{"LIKE without wildcard is equality", "s LIKE 'abc'", "s = 'abc'"},
		{"STARTS WITH", "s starts with 'x'", "s STARTS WITH 'x'"},
		{"NOT IN", "id not in (3, 1)", "id NOT IN (3, 1)"},
		{"IS NAN", "d is nan or f is not nan", "d IS NAN OR f IS NOT NAN"},
		{"literal first flips the comparison", "5 < id", "id > 5"},
		{"typed literal first", "DATE '2020-01-01' <= dt", "dt >= DATE '2020-01-01'"},
		{"date literal", "dt = date '2017-11-16'", "dt = DATE '2017-11-16'"},
		{"time literal", "t < TIME '22:31:08.5'", "t < TIME '22:31:08.5'"},
		{"timestamp literal with T", "ts > TIMESTAMP '2017-11-16T22:31:08'", "ts > TIMESTAMP '2017-11-16 22:31:08'"},
		{"timestamptz literal is normalized to UTC", "tstz > TIMESTAMPTZ '2017-11-16 14:31:08-08:00'", "tstz > TIMESTAMPTZ '2017-11-16 22:31:08+00:00'"},
		{"nanosecond timestamp literal", "tsns = TIMESTAMP '2017-11-16 22:31:08.000001001'", "tsns = TIMESTAMP '2017-11-16 22:31:08.000001001'"},
		{"hex literal", "b = X'00FF'", "b = X'00ff'"},
		{"a column named date", "date = DATE '2020-01-01'", "date = DATE '2020-01-01'"},
		{"names with dollar and digits", "col$1_x = 1", "col$1_x = 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := e.String(); got != tc.want {
				t.Fatalf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
			}
			again, err := Parse(e.String())
			if err != nil {
				t.Fatalf("reparse %q: %v", e.String(), err)
			}
			if again.String() != e.String() {
				t.Fatalf("round trip changed %q to %q", e.String(), again.String())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		pos      int
		msg      string
	}{
		{"empty filter", "  ", 0, "empty filter"},
		{"missing value", "id =", 4, "expected a literal value, found end of filter"},
		{"NULL compared with =", "id = NULL", 5, "NULL is not a value; use IS NULL or IS NOT NULL"},
		{"unterminated string", "s = 'abc", 4, "unterminated string"},
		{"unterminated quoted name", `"abc = 1`, 0, "unterminated quoted name"},
		{"unknown character", "id = 5 ; drop", 7, "unexpected character ';'"},
		{"lone bang", "id ! 5", 3, "unexpected '!' (did you mean '!='?)"},
		{"missing operator", "id 5", 3, `expected an operator after column id (=, !=, <, <=, >, >=, IN, IS, LIKE, STARTS WITH), found "5"`},
		{"unclosed parenthesis", "(id = 1", 7, "expected ')' to close '(' at byte 0, found end of filter"},
		{"trailing token", "id = 1 id = 2", 7, `unexpected "id" (expected AND, OR or end of filter)`},
		{"IS needs NULL or NAN", "id IS 5", 6, `expected NULL or NAN after IS, found "5"`},
		{"empty IN list", "id IN ()", 7, "IN needs at least one value"},
		{"IN list separator", "id IN (1 2)", 9, `expected ',' or ')' in the IN list, found "2"`},
		{"LIKE infix wildcard", "s LIKE 'a%b'", 7, "LIKE supports only prefix patterns ending in a single % ('abc%')"},
		{"LIKE underscore", "s LIKE 'a_%'", 7, `LIKE supports only prefix patterns; _ is not supported (escape it as \_)`},
		{"STARTS needs WITH", "s STARTS 'a'", 9, "expected WITH after STARTS, found string 'a'"},
		{"comparing two columns", "id = other", 5, `expected a literal value, found "other" (string literals take single quotes: 'other'; comparing two columns is not supported)`},
		{"an unquoted string suggests single quotes", "vendor = NYC", 9, `expected a literal value, found "NYC" (string literals take single quotes: 'NYC'; comparing two columns is not supported)`},
		{"a double-quoted string suggests single quotes", `note = "it's"`, 7, `expected a literal value, found name "it's" (double quotes name a column; string literals take single quotes: 'it''s')`},
		{"reserved word as a column", "in = 1", 0, `expected a column, found keyword IN (quote it as "in" to use it as a name)`},
		{"bad date", "dt = DATE '2020-02-30'", 10, `invalid DATE literal: "2020-02-30" is not a valid date`},
		{"timestamp with zone needs TIMESTAMPTZ", "ts = TIMESTAMP '2020-01-01 00:00+01:00'", 15, "invalid TIMESTAMP literal: TIMESTAMP has no zone; write TIMESTAMPTZ '2020-01-01 00:00+01:00'"},
		{"malformed number", "id = 12abc", 5, `malformed number "12a"`},
		{"exponent without digits", "d = 1e", 5, "expected digits in the exponent"},
		{"bad hex", "b = X'0g'", 4, "invalid hex in binary literal X'0g'"},
		{"NOT needs an operator", "id NOT 5", 7, `expected IN, LIKE or STARTS WITH after NOT, found "5"`},
		{"dangling AND", "id = 1 AND", 10, "expected a predicate, found end of filter"},
		{"a string that is not UTF-8", "s = 'a\xffb'", 4, "string is not valid UTF-8"},
		{"a quoted name that is not UTF-8", "\"\xfc\" = 1", 0, "quoted name is not valid UTF-8"},
		{"an empty quoted name", `"" = 1`, 0, "empty quoted name"},
		{"a backquoted name is SQL's, not the filter syntax's", "`id` = 1", 0, "unexpected character '`'"},
		{"a parameter outside a prepared statement", "id = ?", 5, "unexpected character '?'"},
		{"a comment is SQL's, not the filter syntax's", "id = 1 -- x", 7, `unexpected "-" (expected AND, OR or end of filter)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tc.in)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want *SyntaxError", tc.in, err)
			}
			if se.Pos != tc.pos || se.Msg != tc.msg {
				t.Fatalf("Parse(%q) = error at %d %q, want at %d %q", tc.in, se.Pos, se.Msg, tc.pos, tc.msg)
			}
			if !errors.Is(err, ErrInvalidFilter) {
				t.Fatal("syntax error does not match ErrInvalidFilter")
			}
			if want := fmt.Sprintf("filter syntax error at byte %d: %s", tc.pos, tc.msg); err.Error() != want {
				t.Fatalf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}
