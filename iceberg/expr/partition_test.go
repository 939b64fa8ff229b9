package expr

import (
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// residualSpec partitions testSchema by identity(id) and day(ts).
var residualSpec = iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
	{SourceID: 1, FieldID: 1000, Name: "id_p", Transform: iceberg.IdentityTransform{}},
	{SourceID: 11, FieldID: 1001, Name: "ts_day", Transform: iceberg.DayTransform{}},
}}

// Expectations were cross-checked against Iceberg Java 1.12's
// ResidualEvaluator, except where a case says otherwise.
var residualCases = []struct {
	name      string
	partition []any
	filter    string
	want      string
}{
	{"a predicate the partition proves is TRUE", []any{int32(5), int32(17486)}, "id = 5", "TRUE"},
	{"a predicate the partition refutes is FALSE", []any{int32(5), int32(17486)}, "id = 6", "FALSE"},
	{"a predicate on an unpartitioned column stays", []any{int32(5), int32(17486)}, "id > 3 AND s = 'a'", "s = 'a'"},
	{"a range inside the day stays", []any{int32(5), int32(17486)}, "ts >= TIMESTAMP '2017-11-16 10:00:00'", "ts >= TIMESTAMP '2017-11-16 10:00:00'"},
	{"a range covering the day is TRUE", []any{int32(5), int32(17486)}, "ts >= TIMESTAMP '2017-11-16 00:00:00'", "TRUE"},
	{"a range ending before the day is FALSE", []any{int32(5), int32(17486)}, "ts < TIMESTAMP '2017-11-16 00:00:00'", "FALSE"},
	{"IS NULL on a non-null partition value is FALSE", []any{int32(5), int32(17486)}, "id IS NULL", "FALSE"},
	{"OR keeps what is undecided", []any{int32(5), int32(17486)}, "id = 6 OR ts >= TIMESTAMP '2017-11-16 10:00:00'", "ts >= TIMESTAMP '2017-11-16 10:00:00'"},
	{"NOT is pushed down", []any{int32(5), int32(17486)}, "NOT id = 5", "FALSE"},
	{"IS NULL on a null partition value is TRUE", []any{nil, int32(17486)}, "id IS NULL", "TRUE"},
	{"= on a null partition value is FALSE", []any{nil, int32(17486)}, "id = 5", "FALSE"},
	{"!= on a null partition value is TRUE (null != 5)", []any{nil, int32(17486)}, "id != 5", "TRUE"},
	// Java's ResidualEvaluator orders null before every value and answers
	// TRUE here; a null is not less than 5, so this package answers FALSE,
	// agreeing with its own metrics evaluators.
	{"< on a null partition value is FALSE (Java: TRUE)", []any{nil, int32(17486)}, "id < 5", "FALSE"},
	{"IN on the partition value", []any{int32(5), int32(17486)}, "id IN (4, 5)", "TRUE"},
	{"NOT IN the partition value", []any{int32(5), int32(17486)}, "id NOT IN (4, 5)", "FALSE"},
}

func TestResidual(t *testing.T) {
	t.Parallel()
	for _, tc := range residualCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Residual(residualSpec, tc.partition, mustBind(t, tc.filter))
			if got.String() != tc.want {
				t.Fatalf("Residual(%v, %s) = %q, want %q", tc.partition, tc.filter, got, tc.want)
			}
		})
	}
	t.Run("an unpartitioned spec leaves the filter", func(t *testing.T) {
		t.Parallel()
		e := mustBind(t, "id = 5 AND s = 'a'")
		if got := Residual(iceberg.PartitionSpec{}, nil, e); got.String() != e.String() {
			t.Fatalf("got %q", got)
		}
	})
}

func TestPartitionEvaluator(t *testing.T) {
	t.Parallel()
	ev, err := NewPartitionEvaluator(residualSpec, nil, mustBind(t, "id = 5 AND ts >= TIMESTAMP '2017-11-16 10:00:00'"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "id_p = 5 AND ts_day >= DATE '2017-11-16'"; ev.Filter().String() != want {
		t.Fatalf("filter = %q, want %q", ev.Filter(), want)
	}
	cases := []struct {
		name      string
		partition []any
		want      bool
	}{
		{"matching tuple", []any{int32(5), int32(17486)}, true},
		{"later day", []any{int32(5), int32(17490)}, true},
		{"earlier day", []any{int32(5), int32(17485)}, false},
		{"other id", []any{int32(6), int32(17486)}, false},
		{"null id", []any{nil, int32(17486)}, false},
		{"short tuple reads null", []any{int32(5)}, false},
		{"long value of a promoted identity column", []any{int64(5), int32(17486)}, true},
	}
	for _, tc := range cases {
		if got := ev.Eval(tc.partition); got != tc.want {
			t.Errorf("%s: Eval(%v) = %v, want %v", tc.name, tc.partition, got, tc.want)
		}
	}
	// The manifest's partition struct decides positions.
	reordered := &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 1001, Name: "ts_day", Type: iceberg.DateType{}},
		{ID: 1000, Name: "id_p", Type: iceberg.IntType{}},
	}}
	ev, _ = NewPartitionEvaluator(residualSpec, reordered, mustBind(t, "id = 5"))
	if !ev.Eval([]any{int32(17486), int32(5)}) {
		t.Error("positions must come from the partition type")
	}
}
