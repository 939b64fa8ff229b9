package expr

import (
	"errors"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestEval(t *testing.T) {
	t.Parallel()
	row := map[int]any{
		1: int32(5), 2: int64(-3), 3: float32(math.NaN()), 4: math.Copysign(0, -1),
		5: decimal128.FromI64(1420), 6: "iceberg", 7: []byte{0, 0xff}, 9: int32(17486),
		18: int32(7), // st.a
	}
	get := func(id int) any { return row[id] }
	cases := []struct {
		name, filter string
		want         bool
	}{
		{"comparison", "id = 5 AND l < 0", true},
		{"null fails a comparison", "s2 < 5", false},
		{"null passes !=", "s2 != 5", true},
		{"null fails IN and passes NOT IN", "s2 IN (1, 2) OR s2 NOT IN (1, 2)", true},
		{"null fails STARTS WITH and passes NOT STARTS WITH", "str2 NOT STARTS WITH 'a' AND NOT str2 STARTS WITH 'a'", true},
		{"IS NULL", "s2 IS NULL AND id IS NOT NULL", true},
		{"NaN fails <", "f < 1", false},
		{"NaN fails >", "f > 1", false},
		{"NaN fails =", "f = 1", false},
		{"NaN passes !=", "f != 1", true},
		{"IS NAN", "f IS NAN AND d IS NOT NAN", true},
		{"-0 equals +0", "d = 0", true},
		{"decimal", "dec >= 14.2 AND dec < 14.21", true},
		{"string prefix", "s STARTS WITH 'ice' AND s NOT STARTS WITH 'berg'", true},
		{"binary compares unsigned", "b > X'007f'", true},
		{"date", "dt = DATE '2017-11-16'", true},
		{"IN", "id IN (4, 5, 6)", true},
		{"NOT IN", "id NOT IN (4, 6)", true},
		{"nested field by id", "st.a = 7", true},
		{"OR short-circuits", "id = 5 OR l = 1", true},
		{"NOT", "NOT id = 5", false},
	}
	schema := testSchemaWith("s2", "str2")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := Bind(mustParse(t, tc.filter), schema, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Eval(e, get)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("Eval(%s) = %v, want %v", e, got, tc.want)
			}
		})
	}
	if _, err := Eval(mustParse(t, "id = 1"), get); !errors.Is(err, ErrInvalidFilter) {
		t.Fatalf("unbound Eval error = %v", err)
	}
}

func TestEvalPromotedValues(t *testing.T) {
	t.Parallel()
	// A long column whose old files still hold int values, a double column
	// with float values.
	p := mustBind(t, "l > 2").(Predicate)
	if !EvalPredicate(p, int32(3)) || EvalPredicate(p, int32(2)) {
		t.Fatal("int value against a long literal")
	}
	q := mustBind(t, "d = 0.5").(Predicate)
	if !EvalPredicate(q, float32(0.5)) {
		t.Fatal("float value against a double literal")
	}
}
