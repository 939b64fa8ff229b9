package expr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/iceberg"
)

func TestBind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"int literal stays", "id < 5", "id < 5"},
		{"int column below a literal above its range is always true", "id < 1e20", "TRUE"},
		{"int column above a literal above its range is always false", "id > 1e20", "FALSE"},
		{"int equal to a long beyond int range is false", "id = 3000000000", "FALSE"},
		{"int not equal to a long beyond int range is true", "id != 3000000000", "TRUE"},
		{"int greater than a literal below its range is true", "id > -3000000000", "TRUE"},
		{"long below a literal beyond int64 is true", "l < 92233720368547758070", "TRUE"},
		{"int converts to long", "l = 34", "l = 34"},
		{"fraction on an int column: < rounds down to <=", "id < 1.5", "id <= 1"},
		{"fraction on an int column: > rounds up to >=", "id > 1.5", "id >= 2"},
		{"fraction on an int column: = is false", "id = 1.5", "FALSE"},
		{"fraction on an int column: != is true", "id != 1.5", "TRUE"},
		{"negative fraction rounds toward minus infinity", "id < -1.5", "id <= -2"},
		{"negative fraction with >", "id > -1.5", "id >= -1"},
		{"exponent that is an integer", "id = 1e3", "id = 1000"},
		{"IN drops values no int equals and sorts", "id IN (3, 2.5, 3000000000, 1, 1)", "id IN (1, 3)"},
		{"IN of one value is =", "id IN (1, 1)", "id = 1"},
		{"NOT IN of one value is !=", "id NOT IN (7, 2.5)", "id != 7"},
		{"IN with no possible value is false", "id IN (2.5)", "FALSE"},
		{"NOT IN with no possible value is true", "id NOT IN (2.5)", "TRUE"},
		{"decimal at the column scale", "dec = 14.2", "dec = 14.20"},
		{"integer to decimal", "dec = 5", "dec = 5.00"},
		{"decimal beyond the scale: < rounds down", "dec < 14.205", "dec <= 14.20"},
		{"decimal beyond the scale: > rounds up", "dec > 14.205", "dec >= 14.21"},
		{"decimal beyond the scale: = is false", "dec = 14.205", "FALSE"},
		{"decimal beyond the precision is above every value", "dec < 10000000", "TRUE"},
		{"decimal from a string", "dec > '1.5'", "dec > 1.50"},
		{"double from a decimal literal", "d < 0.1", "d < 0.1"},
		{"float takes the nearest float", "f = 0.1", "f = 0.1"},
		{"float literal beyond float range is above every float", "f < 1e39", "TRUE"},
		{"= NaN is IS NAN", "d = NaN", "d IS NAN"},
		{"!= 'NaN' is IS NOT NAN", "d != 'NaN'", "d IS NOT NAN"},
		{"IN with NaN adds IS NAN", "d IN (1, NaN)", "d = 1 OR d IS NAN"},
		{"NOT IN with NaN adds IS NOT NAN", "f NOT IN (1, 2, NaN)", "f NOT IN (1, 2) AND f IS NOT NAN"},
		{"infinity is a float", "f < Infinity", "f < Infinity"},
		{"infinity is above every int", "id < Infinity", "TRUE"},
		{"string to date", "dt = '2017-11-16'", "dt = DATE '2017-11-16'"},
		{"integer to date is days", "dt = 17486", "dt = DATE '2017-11-16'"},
		{"timestamp string against a date: < rounds down", "dt < '2017-11-16 10:00'", "dt <= DATE '2017-11-16'"},
		{"timestamp against a date: > rounds up", "dt > TIMESTAMP '2017-11-16 10:00:00'", "dt >= DATE '2017-11-17'"},
		{"timestamp against a date: = is false unless midnight", "dt = TIMESTAMP '2017-11-16 10:00:00'", "FALSE"},
		{"midnight timestamp against a date", "dt = TIMESTAMP '2017-11-16 00:00:00'", "dt = DATE '2017-11-16'"},
		{"string to timestamp", "ts = '2017-11-16T22:31:08'", "ts = TIMESTAMP '2017-11-16 22:31:08'"},
		{"date against a timestamp is midnight", "ts >= DATE '2017-11-16'", "ts >= TIMESTAMP '2017-11-16 00:00:00'"},
		{"zoned string to timestamptz", "tstz = '2017-11-16T14:31:08-08:00'", "tstz = TIMESTAMPTZ '2017-11-16 22:31:08+00:00'"},
		{"nanoseconds against a microsecond column", "ts < TIMESTAMP '2017-11-16 22:31:08.000001001'", "ts <= TIMESTAMP '2017-11-16 22:31:08.000001'"},
		{"string to timestamp_ns", "tsns > '2017-11-16 22:31:08.000001001'", "tsns > TIMESTAMP '2017-11-16 22:31:08.000001001'"},
		{"timestamp_ns beyond 2262 is above every value", "tsns < '3000-01-01'", "TRUE"},
		{"string to time", "t = '22:31:08'", "t = TIME '22:31:08'"},
		{"string to uuid", "u = 'F79C3E09-677C-4BBD-A479-3F349CB785E7'", "u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'"},
		{"hex string to binary", "b = '00ff'", "b = X'00ff'"},
		{"binary literal to fixed of its length", "fx = X'00010203'", "fx = X'00010203'"},
		{"boolean", "bo = true", "bo = TRUE"},
		{"IS NULL on a required column is false", "req IS NULL", "FALSE"},
		{"IS NOT NULL on a required column is true", "req IS NOT NULL", "TRUE"},
		{"a required field of an optional struct can be null", "st.a IS NULL", "st.a IS NULL"},
		{"unknown-typed column is always null", "nothing IS NULL", "TRUE"},
		{"unknown-typed column is never not null", "nothing IS NOT NULL", "FALSE"},
		{"nested struct field", "st.b = 'x'", "st.b = 'x'"},
		{"a struct can be tested for null", "st IS NOT NULL", "st IS NOT NULL"},
		{"a list can be tested for null", "arr IS NULL", "arr IS NULL"},
		{"a whole name with a dot wins over a nested path", `"dotted.name" = 1`, `dotted.name = 1`},
		{"NOT is kept by Bind", "NOT id < 5", "NOT id < 5"},
		{"constants fold", "id < 1e20 AND s = 'a'", "s = 'a'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := mustBind(t, tc.in)
			if got.String() != tc.want {
				t.Fatalf("Bind(%q) = %q, want %q", tc.in, got.String(), tc.want)
			}
			// A bound filter prints in a form that binds to itself again.
			again := mustBind(t, got.String())
			if again.String() != got.String() {
				t.Fatalf("rebinding %q gave %q", got.String(), again.String())
			}
			rebound, err := Bind(got, testSchema, true)
			if err != nil || rebound.String() != got.String() {
				t.Fatalf("Bind of the bound filter = %v, %v", rebound, err)
			}
		})
	}
}

func TestBindCaseInsensitive(t *testing.T) {
	t.Parallel()
	e, _ := Parse("MIXED = 1 AND ST.A > 2")
	got, err := Bind(e, testSchema, false)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != "Mixed = 1 AND st.a > 2" {
		t.Fatalf("got %q", got.String())
	}
	if _, err := Bind(e, testSchema, true); !errors.Is(err, ErrUnknownColumn) {
		t.Fatalf("case-sensitive bind error = %v, want ErrUnknownColumn", err)
	}
	ambiguous := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 2, Name: "A", Type: iceberg.IntType{}})
	e, _ = Parse("a = 1 AND \"A\" = 2")
	if _, err := Bind(e, ambiguous, false); err != nil {
		t.Fatalf("exact names must win over folding: %v", err)
	}
	e, _ = Parse("x = 1")
	if _, err := Bind(e, ambiguous, false); !errors.Is(err, ErrUnknownColumn) {
		t.Fatalf("error = %v", err)
	}
}

func TestBindErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		is       error
		msg      string
	}{
		{"unknown column names the nearest columns", "mixd = 1", ErrUnknownColumn, `unknown column mixd (nearest: Mixed, `},
		{"unknown column close to a real one", "tstzz > 1", ErrUnknownColumn, `unknown column tstzz (nearest: tstz, `},
		{"unknown nested field", "st.c = 1", ErrUnknownColumn, `unknown column st.c (nearest: st.a, st.b, st)`},
		{"fields inside lists cannot be filtered", "arr.element = 1", ErrInvalidFilter, "inside arr"},
		{"a struct is not a value", "st = 1", ErrInvalidFilter, "only IS NULL and IS NOT NULL apply to it"},
		{"STARTS WITH needs a string column", "id STARTS WITH '1'", ErrInvalidFilter, "needs a string column"},
		{"IS NAN needs a float column", "id IS NAN", ErrInvalidFilter, "needs a float or double column"},
		{"a word is not an int", "id = 'abc'", ErrInvalidFilter, `cannot convert 'abc' to int`},
		{"an int is not a string", "s = 5", ErrInvalidFilter, "cannot convert 5 to string"},
		{"an int is not a boolean", "bo = 1", ErrInvalidFilter, "cannot convert 1 to boolean"},
		{"NaN is unordered", "d < NaN", ErrInvalidFilter, "use IS NAN"},
		{"fixed needs its length", "fx = X'00'", ErrInvalidFilter, "binary literal has 1 bytes, fixed[4] needs 4"},
		{"a bad uuid", "u = 'nope'", ErrInvalidFilter, "invalid uuid"},
		{"a bad date", "dt = 'yesterday'", ErrInvalidFilter, "not an ISO-8601 date"},
		{"a fraction is not a date", "dt = 1.5", ErrInvalidFilter, "cannot convert 1.5 to date"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Bind(e, testSchema, true)
			if !errors.Is(err, tc.is) {
				t.Fatalf("Bind(%q) error = %v, want %v", tc.in, err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Bind(%q) error %q does not say %q", tc.in, err, tc.msg)
			}
		})
	}
	if _, err := Bind(mustParse(t, "zzz = 1"), testSchema, true); !errors.Is(err, iceberg.ErrFieldNotFound) {
		t.Fatalf("unknown column must match iceberg.ErrFieldNotFound: %v", err)
	}
}

func mustParse(t *testing.T, s string) Expr {
	t.Helper()
	e, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRewriteNot(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"NOT id < 5", "id >= 5"},
		{"NOT (id = 1 AND s IS NULL)", "id != 1 OR s IS NOT NULL"},
		{"NOT (id IN (1, 2) OR NOT s STARTS WITH 'a')", "id NOT IN (1, 2) AND s STARTS WITH 'a'"},
		{"NOT NOT d IS NAN", "d IS NAN"},
		{"NOT TRUE OR id > 1", "id > 1"},
	}
	for _, tc := range cases {
		if got := RewriteNot(mustParse(t, tc.in)).String(); got != tc.want {
			t.Errorf("RewriteNot(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestConstructors(t *testing.T) {
	t.Parallel()
	e := And(Equal("id", 5), Or(LessThan("d", 1.5), IsNull("s")), NotIn("l", int32(1), uint64(2)))
	if got := e.String(); got != "id = 5 AND (d < 1.5 OR s IS NULL) AND l NOT IN (1, 2)" {
		t.Fatalf("got %q", got)
	}
	if And(AlwaysTrue(), Equal("id", 1)).String() != "id = 1" || Or(AlwaysTrue(), Equal("id", 1)).String() != "TRUE" {
		t.Fatal("constants do not fold")
	}
	if Not(Not(Equal("id", 1))).String() != "id = 1" {
		t.Fatal("double negation does not fold")
	}
	b, err := Bind(And(Equal("b", []byte{1, 2}), GreaterThan("f", float32(0.25))), testSchema, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != "b = X'0102' AND f > 0.25" {
		t.Fatalf("got %q", b.String())
	}
	ts := time.Date(2017, 11, 16, 14, 31, 8, 0, time.FixedZone("PST", -8*3600))
	b, err = Bind(And(Equal("tstz", ts), GreaterThan("tsns", ts.Add(time.Nanosecond))), testSchema, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "tstz = TIMESTAMPTZ '2017-11-16 22:31:08+00:00' AND tsns > TIMESTAMP '2017-11-16 22:31:08.000000001'"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// TestBindRefusesInvalidUTF8 binds string literals with stray bytes, built
// in Go: JSON, which carries residuals, would turn them into U+FFFD and
// match other rows.
func TestBindRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	for _, e := range []Expr{Equal("s", "a\xff"), In("s", "ok", "\xfc"), StartsWith("s", "\xc3")} {
		if _, err := Bind(e, testSchema, true); !errors.Is(err, ErrInvalidFilter) {
			t.Errorf("Bind(%q) error = %v, want ErrInvalidFilter", e, err)
		}
	}
}
