package expr

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/iceberg"
)

// parseParams reads a filter with ? parameters as a SQL parser hands its
// WHERE clause over: lexed by LexSQL, read by ParseTokens.
func parseParams(s string) (Expr, int, error) {
	toks, err := LexSQL(s)
	if err != nil {
		return nil, 0, err
	}
	return ParseTokens(toks)
}

// params lists the parameters of e, left to right.
func params(e Expr) []Param {
	var out []Param
	Walk(e, func(p Predicate) {
		for _, v := range p.Values {
			if pm, ok := v.(Param); ok {
				out = append(out, pm)
			}
		}
	})
	return out
}

func TestParseTokensParams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
		n              int
	}{
		{"a parameter stands for a compared value", "id = ?", "id = ?", 1},
		{"a parameter first flips the comparison", "? < id", "id > ?", 1},
		{"parameters in an IN list", "id IN (1, ?, ?)", "id IN (1, ?, ?)", 2},
		{"parameters in a NOT IN list", "id NOT IN (?)", "id NOT IN (?)", 1},
		{"a parameter under NOT", "NOT s = ?", "NOT s = ?", 1},
		{"parameters are numbered in order across AND and OR", "a = ? OR NOT (b = ? AND c IN (?, ?))", "a = ? OR NOT (b = ? AND c IN (?, ?))", 4},
		{"a LIKE pattern", "s LIKE ?", "s LIKE ?", 1},
		{"a NOT LIKE pattern", "s NOT LIKE ?", "s NOT LIKE ?", 1},
		{"a STARTS WITH string", "s NOT STARTS WITH ?", "s NOT STARTS WITH ?", 1},
		{"without parameters it reads as Parse", "a = 1 AND b LIKE 'x%' OR c IS NULL", "a = 1 AND b STARTS WITH 'x' OR c IS NULL", 0},
		{"comments are dropped", "a = ? -- one\n AND /* two */ b = ?", "a = ? AND b = ?", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, n, err := parseParams(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.String(); got != tc.want || n != tc.n {
				t.Fatalf("%q parsed as %q with %d parameters, want %q with %d", tc.in, got, n, tc.want, tc.n)
			}
			ps := params(e)
			if len(ps) != n {
				t.Fatalf("%q: %d parameters in the tree, %d counted", tc.in, len(ps), n)
			}
			for i, p := range ps {
				if p.N != i+1 || tc.in[p.Pos] != '?' {
					t.Errorf("%q: parameter %d is numbered %d at %d", tc.in, i+1, p.N, p.Pos)
				}
			}
			again, _, err := parseParams(e.String())
			if err != nil || again.String() != e.String() {
				t.Errorf("%q printed as %q reads back as %v, %v", tc.in, e.String(), again, err)
			}
		})
	}
}

func TestParseTokensParamErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		pos      int
		msg      string
	}{
		{"a parameter cannot stand for a column", "1 < ?", 4, "expected a column, found parameter ? (a parameter stands for a value, not a column)"},
		{"a parameter cannot name a nested field", "st.? = 1", 3, "expected a column, found parameter ? (a parameter stands for a value, not a column)"},
		{"a parameter alone is no predicate", "a = 1 AND ?", 11, "expected a comparison after the literal, found end of filter"},
		{"IS takes NULL or NAN, not a parameter", "s IS ?", 5, `expected NULL or NAN after IS, found "?"`},
		{"IN takes a list", "id IN ?", 6, `expected '(' after IN, found "?"`},
		{"a typed literal takes a string, not a parameter", "dt = DATE ?", 10, "a parameter stands for a whole value: bind a date value to ? instead of writing DATE ?"},
		{"a minus takes a number", "id = -?", 6, `expected a number after '-', found "?"`},
		{"other characters are refused as in a filter", "id = ? ; x", 7, "unexpected character ';'"},
		{"an empty quoted name", `"" = ?`, 0, "empty quoted name"},
		{"an unterminated comment", "id = ? /* x", 7, "unterminated /* comment"},
		{"an unterminated quoted identifier", "`id = ?", 0, "unterminated quoted identifier"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := parseParams(tc.in)
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalidFilter) {
				t.Fatalf("%q: error %v, want a *SyntaxError", tc.in, err)
			}
			if se.Pos != tc.pos || se.Msg != tc.msg {
				t.Fatalf("%q: error at %d %q, want at %d %q", tc.in, se.Pos, se.Msg, tc.pos, tc.msg)
			}
		})
	}
}

// TestBindParamsAsWritten checks that a value bound to a parameter makes
// the filter that writing the value's literal in its place makes: the same
// text, which is what a command carries, and the same bound filter.
func TestBindParamsAsWritten(t *testing.T) {
	t.Parallel()
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	at := time.Date(2024, 2, 29, 1, 2, 3, 4000, time.UTC)
	cases := []struct {
		name, filter string
		values       []any
		written      string
	}{
		{"int64", "l = ?", []any{int64(-5)}, "l = -5"},
		{"int32", "id = ?", []any{int32(7)}, "id = 7"},
		{"int", "id IN (?, ?)", []any{1, 2}, "id IN (1, 2)"},
		{"uint8", "id = ?", []any{uint8(200)}, "id = 200"},
		{"uint64 beyond int64", "l < ?", []any{uint64(math.MaxUint64)}, "l < 18446744073709551615"},
		{"float64", "d > ?", []any{0.1}, "d > 0.1"},
		{"float64 with an exponent", "d > ?", []any{1e300}, "d > 1e+300"},
		{"float64 NaN", "d != ?", []any{math.NaN()}, "d != NaN"},
		{"float64 -Infinity", "d > ?", []any{math.Inf(-1)}, "d > -Infinity"},
		{"float32", "f < ?", []any{float32(0.5)}, "f < 0.5"},
		{"decimal as Number", "dec = ?", []any{Number("-14.20")}, "dec = -14.20"},
		{"string", "s = ?", []any{"it's"}, "s = 'it''s'"},
		{"bool", "bo = ?", []any{true}, "bo = TRUE"},
		{"[]byte", "b = ?", []any{[]byte{0xca, 0xfe}}, "b = X'cafe'"},
		{"date", "dt = ?", []any{Typed{Type: iceberg.DateType{}, Value: int32(day.Unix() / 86400)}}, "dt = DATE '2024-02-29'"},
		{"time", "t < ?", []any{Typed{Type: iceberg.TimeType{}, Value: int64(3723_500_000)}}, "t < TIME '01:02:03.5'"},
		{"timestamp", "ts >= ?", []any{Typed{Type: iceberg.TimestampType{}, Value: at.UnixMicro()}}, "ts >= TIMESTAMP '2024-02-29 01:02:03.000004'"},
		{"timestamptz", "tstz >= ?", []any{Typed{Type: iceberg.TimestampTzType{}, Value: at.UnixMicro()}}, "tstz >= TIMESTAMPTZ '2024-02-29T01:02:03.000004Z'"},
		{"nanosecond timestamp", "tsns = ?", []any{Typed{Type: iceberg.TimestampNsType{}, Value: at.UnixNano() + 1}}, "tsns = TIMESTAMP '2024-02-29 01:02:03.000004001'"},
		{"nanosecond timestamp of whole microseconds", "tsns = ?", []any{Typed{Type: iceberg.TimestampNsType{}, Value: at.UnixNano()}}, "tsns = TIMESTAMP '2024-02-29 01:02:03.000004'"},
		{"time.Time", "tstz = ?", []any{at}, "tstz = TIMESTAMPTZ '2024-02-29 01:02:03.000004+00:00'"},
		{"a value first", "? < id", []any{int64(5)}, "5 < id"},
		{"LIKE prefix", "s LIKE ?", []any{"ab%"}, "s LIKE 'ab%'"},
		{"NOT LIKE without a wildcard", "s NOT LIKE ?", []any{`a\%`}, `s NOT LIKE 'a\%'`},
		{"STARTS WITH", "s STARTS WITH ?", []any{"x"}, "s STARTS WITH 'x'"},
		{"nested in NOT, AND and OR", "NOT (id = ? OR s IN (?, 'b')) AND l > ?", []any{1, "a", int64(3)}, "NOT (id = 1 OR s IN ('a', 'b')) AND l > 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, n, err := parseParams(tc.filter)
			if err != nil || n != len(tc.values) {
				t.Fatalf("parse %q: %d parameters, %v", tc.filter, n, err)
			}
			got, err := BindParams(e, tc.values)
			if err != nil {
				t.Fatalf("bind %q: %v", tc.filter, err)
			}
			want, err := Parse(tc.written)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("bound %q is %q, written it is %q", tc.filter, got.String(), want.String())
			}
			again, err := Parse(got.String())
			if err != nil || again.String() != got.String() {
				t.Fatalf("%q does not read back: %v, %v", got.String(), again, err)
			}
			gotBound, gotErr := Bind(again, testSchema, true)
			wantBound, wantErr := Bind(want, testSchema, true)
			if gotErr != nil || wantErr != nil {
				t.Fatalf("bind to the schema: %v, written %v", gotErr, wantErr)
			}
			if gotBound.String() != wantBound.String() {
				t.Fatalf("bound to the schema %q, written %q", gotBound.String(), wantBound.String())
			}
		})
	}
}

func TestBindParamsErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, filter string
		values       []any
		n, pos       int // the parameter the *ParamError names; 0 for a count
		msg          string
	}{
		{"too few values", "a = ? AND b = ?", []any{1}, 0, 0, "the filter has 2 parameters and 1 values were given: parameter 2 has none"},
		{"too many values", "a = ?", []any{1, 2}, 0, 0, "the filter has 1 parameters and 2 values were given"},
		{"values without parameters", "a = 1", []any{1}, 0, 0, "the filter has 0 parameters and 1 values were given"},
		{"NULL", "a = 1 OR b = ?", []any{nil}, 1, 13, "NULL is not a value to compare with; test IS NULL instead"},
		{"an unsupported type", "a = ? OR b IN (1, ?)", []any{1, complex(1, 2)}, 2, 18, "a complex128 value is not supported"},
		{"a uuid", "u = ?", []any{[16]byte{}}, 1, 4, "a [16]uint8 value is not supported"},
		{"a string that is not UTF-8", "s = ?", []any{"\xff"}, 1, 4, "the string is not valid UTF-8"},
		{"a Number that is not a number", "d = ?", []any{Number("1 OR TRUE")}, 1, 4, `Number "1 OR TRUE" is not a number`},
		{"a date held as the wrong Go type", "dt = ?", []any{Typed{Type: iceberg.DateType{}, Value: int64(1)}}, 1, 5, "a date value held as int64 is not supported"},
		{"a date past the years the syntax writes", "dt = ?", []any{Typed{Type: iceberg.DateType{}, Value: int32(4_000_000)}}, 1, 5, "a date value held as int32 is not supported"},
		{"a timestamp past nanosecond range", "tstz = ?", []any{time.Date(3000, 1, 1, 0, 0, 0, 1, time.UTC)}, 1, 7, "nanosecond timestamps must lie between 1677 and 2262"},
		{"LIKE takes a string", "s LIKE ?", []any{int64(5)}, 1, 7, "LIKE takes a pattern string, not int64"},
		{"LIKE takes a prefix pattern", "s = 'x' AND s NOT LIKE ?", []any{"a%b"}, 1, 23, "LIKE supports only prefix patterns ending in a single % ('abc%')"},
		{"STARTS WITH takes a string", "s STARTS WITH ?", []any{true}, 1, 14, "STARTS WITH takes a string, not bool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _, err := parseParams(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			_, err = BindParams(e, tc.values)
			if !errors.Is(err, ErrInvalidFilter) {
				t.Fatalf("%q with %v: error %v, want one matching ErrInvalidFilter", tc.filter, tc.values, err)
			}
			var pe *ParamError
			switch {
			case tc.n == 0:
				if errors.As(err, &pe) || !strings.HasSuffix(err.Error(), tc.msg) {
					t.Fatalf("error %v, want a count error saying %q", err, tc.msg)
				}
			case !errors.As(err, &pe):
				t.Fatalf("error %v, want a *ParamError", err)
			case pe.N != tc.n || pe.Pos != tc.pos || pe.Msg != tc.msg:
				t.Fatalf("error for parameter %d at %d: %q; want %d at %d: %q", pe.N, pe.Pos, pe.Msg, tc.n, tc.pos, tc.msg)
			case err.Error() != fmt.Sprintf("parameter %d: %s", tc.n, tc.msg):
				t.Fatalf("Error() = %q", err.Error())
			}
		})
	}
}

func TestBindRefusesParameters(t *testing.T) {
	t.Parallel()
	e, _, err := parseParams("id = ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(e, testSchema, true); !errors.Is(err, ErrInvalidFilter) {
		t.Fatalf("Bind of a filter with a parameter: %v, want an ErrInvalidFilter", err)
	}
}

func TestParseValue(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{"12", "-1.5", "92233720368547758070", "'it''s'", "TRUE", "NaN", "-Infinity",
		"DATE '2024-01-02'", "TIME '01:02:03'", "TIMESTAMPTZ '2024-01-02 03:04:05+02:00'", "X'00ff'"} {
		v, err := ParseValue(lit)
		if err != nil {
			t.Errorf("ParseValue(%q): %v", lit, err)
			continue
		}
		e, err := Parse("x = " + lit)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := (Predicate{Op: OpEq, Ref: Ref{Name: "x"}, Values: []any{v}}).String(), e.String(); got != want {
			t.Errorf("ParseValue(%q) prints as %q, want %q", lit, got, want)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"", "empty value"},
		{"1 OR TRUE", `unexpected "OR" after the value`},
		{"?", "unexpected character '?'"},
		{"NULL", "NULL is not a value; use IS NULL or IS NOT NULL"},
		{"'open", "unterminated string"},
		{"id", `expected a literal value, found "id" (string literals take single quotes: 'id'; comparing two columns is not supported)`},
	} {
		_, err := ParseValue(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != tc.msg {
			t.Errorf("ParseValue(%q) = %v, want a syntax error saying %q", tc.in, err, tc.msg)
		}
	}
}
