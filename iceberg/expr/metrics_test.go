package expr

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// counts and bounds build metrics from map literals, in any order.
func counts(m map[int]int64) iceberg.ColumnCounts {
	var s []iceberg.ColumnCount
	for id, n := range m {
		s = append(s, iceberg.ColumnCount{ID: id, Count: n})
	}
	return iceberg.NewColumnCounts(s)
}

func bounds(m map[int][]byte) iceberg.ColumnBounds {
	var s []iceberg.ColumnBound
	for id, b := range m {
		s = append(s, iceberg.ColumnBound{ID: id, Value: b})
	}
	return iceberg.NewColumnBounds(s)
}

func enc(t *testing.T, typ iceberg.Type, v any) []byte {
	t.Helper()
	b, err := iceberg.EncodeValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testFile has 10 rows: id 1..10 without nulls; l all null; f all NaN; d
// with 2 nulls and 3 NaNs in [-5, 5]; s in ["abc", "abd"] (truncated
// bounds); dt a single date; st.a a single value; dec without metrics.
func testFile(t *testing.T) *iceberg.DataFile {
	return &iceberg.DataFile{
		Path:            "s3://bucket/data/file.parquet",
		RecordCount:     10,
		ValueCounts:     counts(map[int]int64{1: 10, 2: 10, 3: 10, 4: 10, 6: 10, 9: 10, 18: 10}),
		NullValueCounts: counts(map[int]int64{1: 0, 2: 10, 3: 0, 4: 2, 6: 0, 9: 0, 18: 0}),
		NaNValueCounts:  counts(map[int]int64{3: 10, 4: 3}),
		LowerBounds: bounds(map[int][]byte{
			1: enc(t, iceberg.IntType{}, int32(1)), 4: enc(t, iceberg.DoubleType{}, -5.0),
			6: []byte("abc"), 9: enc(t, iceberg.DateType{}, int32(17486)), 18: enc(t, iceberg.IntType{}, int32(3)),
		}),
		UpperBounds: bounds(map[int][]byte{
			1: enc(t, iceberg.IntType{}, int32(10)), 4: enc(t, iceberg.DoubleType{}, 5.0),
			6: []byte("abd"), 9: enc(t, iceberg.DateType{}, int32(17486)), 18: enc(t, iceberg.IntType{}, int32(3)),
		}),
	}
}

type metricsCase struct {
	name              string
	filter            string
	inclusive, strict bool
}

// Expectations were cross-checked against Iceberg Java 1.12's
// InclusiveMetricsEvaluator and StrictMetricsEvaluator on the same file.
var metricsCases = []metricsCase{
	{"< the lower bound cannot match", "id < 1", false, false},
	{"< above the lower bound might match", "id < 2", true, false},
	{"<= the upper bound must match", "id <= 10", true, true},
	{"> the upper bound cannot match", "id > 10", false, false},
	{">= the lower bound must match", "id >= 1", true, true},
	{"= outside the bounds cannot match", "id = 11", false, false},
	{"= inside the bounds might match", "id = 5", true, false},
	{"!= inside the bounds might not match", "id != 5", true, false},
	{"!= outside the bounds must match", "id != 11", true, true},
	{"IN outside the bounds cannot match", "id IN (11, 12)", false, false},
	{"IN with a value inside might match", "id IN (0, 5)", true, false},
	{"NOT IN outside the bounds must match", "id NOT IN (11, 12)", true, true},
	{"IS NULL without nulls cannot match", "id IS NULL", false, false},
	{"IS NOT NULL without nulls must match", "id IS NOT NULL", true, true},
	{"IS NULL on an all-null column must match", "l IS NULL", true, true},
	{"IS NOT NULL on an all-null column cannot match", "l IS NOT NULL", false, false},
	{"= on an all-null column cannot match", "l = 5", false, false},
	{"!= on an all-null column must match (null != 5)", "l != 5", true, true},
	{"IS NAN on an all-NaN column must match", "f IS NAN", true, true},
	{"> on an all-NaN column cannot match", "f > 0", false, false},
	{"IS NOT NAN on an all-NaN column cannot match", "f IS NOT NAN", false, false},
	{"< the lower bound of a double cannot match", "d < -5", false, false},
	{"a comparison with nulls and NaNs present might not match", "d > -10", true, false},
	{"IS NAN with some NaNs might match", "d IS NAN", true, false},
	{"IS NOT NAN with some NaNs might not match", "d IS NOT NAN", true, false},
	{"STARTS WITH a prefix both bounds share must match", "s STARTS WITH 'ab'", true, true},
	{"STARTS WITH a prefix above the upper bound cannot match", "s STARTS WITH 'abe'", false, false},
	{"STARTS WITH a prefix below the lower bound cannot match", "s STARTS WITH 'aa'", false, false},
	{"NOT STARTS WITH a prefix both bounds share cannot match", "s NOT STARTS WITH 'ab'", false, false},
	{"NOT STARTS WITH the lower bound might match", "s NOT STARTS WITH 'abc'", true, false},
	{"NOT STARTS WITH a prefix above the upper bound must match", "s NOT STARTS WITH 'b'", true, true},
	{"< a string's lower bound cannot match", "s < 'abc'", false, false},
	{"= the single value must match", "dt = DATE '2017-11-16'", true, true},
	{"!= the single value cannot match", "dt != DATE '2017-11-16'", false, false},
	{"NOT IN holding the single value cannot match", "dt NOT IN (DATE '2017-11-16', DATE '2017-11-17')", false, false},
	{"IN holding the single value must match", "dt IN (DATE '2017-11-16', DATE '2017-11-17')", true, true},
	{"strict evaluation does not trust nested columns", "st.a = 3", true, false},
	{"a column without metrics might match", "dec = 1", true, false},
	{"OR", "id < 1 OR l IS NULL", true, true},
	{"NOT is pushed down: NOT id < 5 is id >= 5", "NOT id < 5", true, false},
	{"NOT id > 10 is id <= 10", "NOT id > 10", true, true},
}

func TestMetricsEvaluator(t *testing.T) {
	t.Parallel()
	df := testFile(t)
	for _, tc := range metricsCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := mustBind(t, tc.filter)
			for _, inclusive := range []bool{true, false} {
				ev, err := NewMetricsEvaluator(testSchema, e, inclusive)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ev.Eval(df)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.strict
				if inclusive {
					want = tc.inclusive
				}
				if got != want {
					t.Errorf("inclusive=%v: Eval(%s) = %v, want %v", inclusive, e, got, want)
				}
			}
		})
	}
}

func TestMetricsEvaluatorEdges(t *testing.T) {
	t.Parallel()
	evalBoth := func(t *testing.T, filter string, m Metrics) (bool, bool) {
		t.Helper()
		var out [2]bool
		for i, inclusive := range []bool{true, false} {
			ev, err := NewMetricsEvaluator(testSchema, mustParse(t, filter), inclusive)
			if err != nil {
				t.Fatal(err)
			}
			ok, err := ev.EvalMetrics(m)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = ok
		}
		return out[0], out[1]
	}
	t.Run("an empty file cannot match but vacuously must", func(t *testing.T) {
		t.Parallel()
		if incl, strict := evalBoth(t, "id = 1", Metrics{RecordCount: 0}); incl || !strict {
			t.Fatalf("inclusive %v strict %v", incl, strict)
		}
	})
	t.Run("an unknown record count might match", func(t *testing.T) {
		t.Parallel()
		if incl, _ := evalBoth(t, "id = 1", Metrics{RecordCount: -1}); !incl {
			t.Fatal("want might match")
		}
	})
	t.Run("int bounds of a column promoted to long decode as long", func(t *testing.T) {
		t.Parallel()
		m := Metrics{RecordCount: 5,
			ValueCounts: counts(map[int]int64{2: 5}), NullCounts: counts(map[int]int64{2: 0}),
			Lower: bounds(map[int][]byte{2: enc(t, iceberg.IntType{}, int32(5))}),
			Upper: bounds(map[int][]byte{2: enc(t, iceberg.IntType{}, int32(50))})}
		if incl, _ := evalBoth(t, "l > 50", m); incl {
			t.Fatal("l > 50 with upper bound 50 must not match")
		}
		if _, strict := evalBoth(t, "l >= 5", m); !strict {
			t.Fatal("l >= 5 with lower bound 5 must match")
		}
	})
	t.Run("float bounds of a column promoted to double", func(t *testing.T) {
		t.Parallel()
		m := Metrics{RecordCount: 5,
			ValueCounts: counts(map[int]int64{4: 5}), NullCounts: counts(map[int]int64{4: 0}), NaNCounts: counts(map[int]int64{4: 0}),
			Lower: bounds(map[int][]byte{4: enc(t, iceberg.FloatType{}, float32(0.5))}),
			Upper: bounds(map[int][]byte{4: enc(t, iceberg.FloatType{}, float32(1.5))})}
		if incl, strict := evalBoth(t, "d < 0.5", m); incl || strict {
			t.Fatal("d < 0.5 with lower bound 0.5")
		}
		if incl, strict := evalBoth(t, "d <= 1.5", m); !incl || !strict {
			t.Fatal("d <= 1.5 with upper bound 1.5 and no NaN must match")
		}
	})
	t.Run("a NaN lower bound from an old writer is ignored", func(t *testing.T) {
		t.Parallel()
		m := Metrics{RecordCount: 5,
			ValueCounts: counts(map[int]int64{4: 5}), NullCounts: counts(map[int]int64{4: 0}),
			Lower: bounds(map[int][]byte{4: enc(t, iceberg.DoubleType{}, math.NaN())}),
			Upper: bounds(map[int][]byte{4: enc(t, iceberg.DoubleType{}, math.NaN())})}
		if incl, strict := evalBoth(t, "d < 0", m); !incl || strict {
			t.Fatalf("inclusive %v strict %v", incl, strict)
		}
	})
	t.Run("a float column without NaN counts might hold NaN", func(t *testing.T) {
		t.Parallel()
		m := Metrics{RecordCount: 5,
			ValueCounts: counts(map[int]int64{4: 5}), NullCounts: counts(map[int]int64{4: 0}),
			Lower: bounds(map[int][]byte{4: enc(t, iceberg.DoubleType{}, 1.0)}),
			Upper: bounds(map[int][]byte{4: enc(t, iceberg.DoubleType{}, 2.0)})}
		if _, strict := evalBoth(t, "d < 5", m); strict {
			t.Fatal("strict evaluation must not assume no NaN")
		}
	})
	t.Run("inverted uuid bounds from Java's signed comparison are not used", func(t *testing.T) {
		t.Parallel()
		lo, _ := iceberg.ParseUUID("90000000-0000-0000-0000-000000000000")
		hi, _ := iceberg.ParseUUID("10000000-0000-0000-0000-000000000000")
		m := Metrics{RecordCount: 5,
			ValueCounts: counts(map[int]int64{14: 5}), NullCounts: counts(map[int]int64{14: 0}),
			Lower: bounds(map[int][]byte{14: lo[:]}), Upper: bounds(map[int][]byte{14: hi[:]})}
		if incl, _ := evalBoth(t, "u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'", m); !incl {
			t.Fatal("a value outside inverted bounds might still be in the file")
		}
	})
	t.Run("IN of any length is checked against bounds", func(t *testing.T) {
		t.Parallel()
		// Java stops checking past 200 values; a sorted list is checked
		// by binary search whatever its length.
		vals := make([]string, 10_000)
		for i := range vals {
			vals[i] = strconv.Itoa(1000 + i)
		}
		m := MetricsOf(testFile(t))
		if incl, _ := evalBoth(t, "id IN ("+strings.Join(vals, ", ")+")", m); incl {
			t.Fatal("10,000 values above the upper bound: want cannot match")
		}
		if incl, _ := evalBoth(t, "id IN ("+strings.Join(vals, ", ")+", 5)", m); !incl {
			t.Fatal("one value within the bounds: want might match")
		}
		if _, strict := evalBoth(t, "id NOT IN ("+strings.Join(vals, ", ")+")", m); !strict {
			t.Fatal("no value within the bounds: NOT IN must match every row")
		}
	})
	t.Run("a bound that does not decode is an error naming the file", func(t *testing.T) {
		t.Parallel()
		df := testFile(t)
		// The last entry of an id wins, as a map assignment would.
		df.LowerBounds = iceberg.NewColumnBounds(append(slices.Clone(df.LowerBounds), iceberg.ColumnBound{ID: 1, Value: []byte{1, 2}}))
		ev, err := NewMetricsEvaluator(testSchema, mustParse(t, "id > 3"), true)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ev.Eval(df)
		if !errors.Is(err, iceberg.ErrInvalidMetadata) || !strings.Contains(err.Error(), df.Path) {
			t.Fatalf("error = %v", err)
		}
	})
}
