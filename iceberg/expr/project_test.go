package expr

import (
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// projectionCase projects filter through one partition field named p.
type projectionCase struct {
	name              string
	source            string
	transform         iceberg.Transform
	filter            string
	inclusive, strict string
}

// Expectations were cross-checked against Iceberg Java 1.12
// (Projections.inclusive/strict on the same schema, spec and filter, the
// filters sent as this package's JSON); bucket numbers are Java's.
var projectionCases = []projectionCase{
	// identity
	{"identity keeps a comparison", "id", iceberg.IdentityTransform{}, "id < 5", "p < 5", "p < 5"},
	{"identity keeps IS NULL", "id", iceberg.IdentityTransform{}, "id IS NULL", "p IS NULL", "p IS NULL"},
	{"identity keeps IN", "id", iceberg.IdentityTransform{}, "id IN (1, 2)", "p IN (1, 2)", "p IN (1, 2)"},
	{"identity projects a pushed-down NOT", "id", iceberg.IdentityTransform{}, "NOT id = 5", "p != 5", "p != 5"},
	{"identity keeps STARTS WITH", "s", iceberg.IdentityTransform{}, "s NOT STARTS WITH 'ab'", "p NOT STARTS WITH 'ab'", "p NOT STARTS WITH 'ab'"},
	{"identity keeps IS NAN", "d", iceberg.IdentityTransform{}, "d IS NAN", "p IS NAN", "p IS NAN"},
	{"a column without a partition field is TRUE inclusively and FALSE strictly", "id", iceberg.IdentityTransform{}, "s = 'a'", "TRUE", "FALSE"},

	// bucket
	{"bucket projects = inclusively", "id", iceberg.BucketTransform{N: 16}, "id = 5", "p = 7", "FALSE"},
	{"bucket projects != strictly", "id", iceberg.BucketTransform{N: 16}, "id != 5", "TRUE", "p != 7"},
	{"bucket projects IN inclusively", "id", iceberg.BucketTransform{N: 16}, "id IN (5, 6)", "p IN (1, 7)", "FALSE"},
	{"bucket projects NOT IN strictly", "id", iceberg.BucketTransform{N: 16}, "id NOT IN (5, 6)", "TRUE", "p NOT IN (1, 7)"},
	{"bucket cannot project a range", "id", iceberg.BucketTransform{N: 16}, "id < 5", "TRUE", "FALSE"},
	{"bucket keeps IS NULL", "id", iceberg.BucketTransform{N: 16}, "id IS NULL", "p IS NULL", "p IS NULL"},
	{"bucket of a string", "s", iceberg.BucketTransform{N: 16}, "s = 'iceberg'", "p = 9", "FALSE"},
	{"bucket of a long equals bucket of the same int", "l", iceberg.BucketTransform{N: 16}, "l = 5", "p = 7", "FALSE"},

	// truncate of integers and decimals
	{"truncate int: < becomes <= of the value below", "id", iceberg.TruncateTransform{Width: 10}, "id < 5", "p <= 0", "p < 0"},
	{"truncate int: <=", "id", iceberg.TruncateTransform{Width: 10}, "id <= 5", "p <= 0", "p < 0"},
	{"truncate int: >", "id", iceberg.TruncateTransform{Width: 10}, "id > 5", "p >= 0", "p > 0"},
	{"truncate int: >=", "id", iceberg.TruncateTransform{Width: 10}, "id >= 5", "p >= 0", "p > 0"},
	{"truncate int: = only inclusive", "id", iceberg.TruncateTransform{Width: 10}, "id = 5", "p = 0", "FALSE"},
	{"truncate int: != only strict", "id", iceberg.TruncateTransform{Width: 10}, "id != 5", "TRUE", "p != 0"},
	{"truncate int: < a boundary steps into the lower bin", "id", iceberg.TruncateTransform{Width: 10}, "id < 10", "p <= 0", "p < 10"},
	{"truncate int: > -1 with negative remainders", "id", iceberg.TruncateTransform{Width: 10}, "id > -1", "p >= 0", "p > -10"},
	{"truncate int: IN", "id", iceberg.TruncateTransform{Width: 10}, "id IN (1, 12, 15)", "p IN (0, 10)", "FALSE"},
	{"truncate int: NOT IN", "id", iceberg.TruncateTransform{Width: 10}, "id NOT IN (1, 12)", "TRUE", "p NOT IN (0, 10)"},
	{"truncate long", "l", iceberg.TruncateTransform{Width: 100}, "l >= -150", "p >= -200", "p > -200"},
	{"truncate decimal: < on the unscaled value", "dec", iceberg.TruncateTransform{Width: 50}, "dec < 10.65", "p <= 10.50", "p < 10.50"},
	{"truncate decimal: >=", "dec", iceberg.TruncateTransform{Width: 50}, "dec >= 10.65", "p >= 10.50", "p > 10.50"},
	{"truncate decimal: =", "dec", iceberg.TruncateTransform{Width: 50}, "dec = 10.65", "p = 10.50", "FALSE"},

	// truncate of strings and binary
	{"truncate string: =", "s", iceberg.TruncateTransform{Width: 3}, "s = 'iceberg'", "p = 'ice'", "FALSE"},
	{"truncate string: < stays closed", "s", iceberg.TruncateTransform{Width: 3}, "s < 'iceberg'", "p <= 'ice'", "p < 'ice'"},
	{"truncate string: >", "s", iceberg.TruncateTransform{Width: 3}, "s > 'iceberg'", "p >= 'ice'", "p > 'ice'"},
	{"truncate string: !=", "s", iceberg.TruncateTransform{Width: 3}, "s != 'iceberg'", "TRUE", "p != 'ice'"},
	{"truncate string: a prefix shorter than the width is kept", "s", iceberg.TruncateTransform{Width: 3}, "s STARTS WITH 'ic'", "p STARTS WITH 'ic'", "p STARTS WITH 'ic'"},
	{"truncate string: a prefix of the width pins the value", "s", iceberg.TruncateTransform{Width: 3}, "s STARTS WITH 'ice'", "p = 'ice'", "p = 'ice'"},
	{"truncate string: a longer prefix projects its truncation inclusively", "s", iceberg.TruncateTransform{Width: 3}, "s STARTS WITH 'iceb'", "p STARTS WITH 'ice'", "FALSE"},
	{"truncate string: NOT STARTS WITH a short prefix", "s", iceberg.TruncateTransform{Width: 3}, "s NOT STARTS WITH 'ic'", "p NOT STARTS WITH 'ic'", "p NOT STARTS WITH 'ic'"},
	{"truncate string: NOT STARTS WITH a prefix of the width", "s", iceberg.TruncateTransform{Width: 3}, "s NOT STARTS WITH 'ice'", "p != 'ice'", "p != 'ice'"},
	{"truncate string: NOT STARTS WITH a longer prefix only strictly", "s", iceberg.TruncateTransform{Width: 3}, "s NOT STARTS WITH 'iceb'", "TRUE", "p NOT STARTS WITH 'ice'"},
	{"truncate string: IN", "s", iceberg.TruncateTransform{Width: 3}, "s IN ('iceberg', 'icicle')", "p IN ('ice', 'ici')", "FALSE"},
	{"truncate string counts code points", "s", iceberg.TruncateTransform{Width: 2}, "s STARTS WITH 'éé'", "p = 'éé'", "p = 'éé'"},
	{"truncate binary: <", "b", iceberg.TruncateTransform{Width: 2}, "b < X'010203'", "p <= X'0102'", "p < X'0102'"},
	{"truncate binary: =", "b", iceberg.TruncateTransform{Width: 2}, "b = X'010203'", "p = X'0102'", "FALSE"},

	// day of a timestamp
	{"day: < moves to the previous microsecond's day", "ts", iceberg.DayTransform{}, "ts < TIMESTAMP '2017-11-16 10:00:00'", "p <= DATE '2017-11-16'", "p < DATE '2017-11-16'"},
	{"day: < midnight excludes that day", "ts", iceberg.DayTransform{}, "ts < TIMESTAMP '2017-11-16 00:00:00'", "p <= DATE '2017-11-15'", "p < DATE '2017-11-16'"},
	{"day: <=", "ts", iceberg.DayTransform{}, "ts <= TIMESTAMP '2017-11-16 10:00:00'", "p <= DATE '2017-11-16'", "p < DATE '2017-11-16'"},
	{"day: >", "ts", iceberg.DayTransform{}, "ts > TIMESTAMP '2017-11-16 10:00:00'", "p >= DATE '2017-11-16'", "p > DATE '2017-11-16'"},
	{"day: >=", "ts", iceberg.DayTransform{}, "ts >= TIMESTAMP '2017-11-16 10:00:00'", "p >= DATE '2017-11-16'", "p > DATE '2017-11-16'"},
	{"day: = only inclusive", "ts", iceberg.DayTransform{}, "ts = TIMESTAMP '2017-11-16 10:00:00'", "p = DATE '2017-11-16'", "FALSE"},
	{"day: != only strict", "ts", iceberg.DayTransform{}, "ts != TIMESTAMP '2017-11-16 10:00:00'", "TRUE", "p != DATE '2017-11-16'"},
	{"day projection of ts < X on a pre-epoch value rounds up", "ts", iceberg.DayTransform{}, "ts < TIMESTAMP '1969-12-30 10:00:00'", "p <= DATE '1969-12-31'", "p < DATE '1969-12-30'"},
	{"day projection of ts > X on a pre-epoch value rounds up strictly", "ts", iceberg.DayTransform{}, "ts > TIMESTAMP '1969-12-30 10:00:00'", "p >= DATE '1969-12-30'", "p > DATE '1969-12-31'"},
	{"day projection of ts = X on a pre-epoch value also admits the next day", "ts", iceberg.DayTransform{}, "ts = TIMESTAMP '1969-12-30 10:00:00'", "p IN (DATE '1969-12-30', DATE '1969-12-31')", "FALSE"},
	{"day projection of ts != X on a pre-epoch value also excludes the next day", "ts", iceberg.DayTransform{}, "ts != TIMESTAMP '1969-12-30 10:00:00'", "TRUE", "p NOT IN (DATE '1969-12-30', DATE '1969-12-31')"},
	{"day projection of IN adds the day after each pre-epoch day", "ts", iceberg.DayTransform{}, "ts IN (TIMESTAMP '1969-12-30 10:00:00', TIMESTAMP '2017-11-16 10:00:00')", "p IN (DATE '1969-12-30', DATE '1969-12-31', DATE '2017-11-16')", "FALSE"},
	{"day projection of ts >= epoch is strictly past day 0", "ts", iceberg.DayTransform{}, "ts >= TIMESTAMP '1970-01-01 00:00:00'", "p >= DATE '1970-01-01'", "p > DATE '1970-01-01'"},
	{"day projection of ts > a time on day 0 skips day 1 strictly", "ts", iceberg.DayTransform{}, "ts > TIMESTAMP '1970-01-01 10:00:00'", "p >= DATE '1970-01-01'", "p > DATE '1970-01-02'"},
	{"day keeps IS NULL", "ts", iceberg.DayTransform{}, "ts IS NOT NULL", "p IS NOT NULL", "p IS NOT NULL"},
	{"day of timestamptz", "tstz", iceberg.DayTransform{}, "tstz >= TIMESTAMPTZ '2017-11-16 14:31:08-08:00'", "p >= DATE '2017-11-16'", "p > DATE '2017-11-16'"},

	// day of a date has no pre-epoch adjustment
	{"day of a date: pre-epoch < is not adjusted", "dt", iceberg.DayTransform{}, "dt < DATE '1969-12-30'", "p <= DATE '1969-12-29'", "p < DATE '1969-12-30'"},
	{"day of a date: pre-epoch = is not adjusted", "dt", iceberg.DayTransform{}, "dt = DATE '1969-12-30'", "p = DATE '1969-12-30'", "FALSE"},

	// month, year, hour
	{"month of a date: <", "dt", iceberg.MonthTransform{}, "dt < DATE '2017-11-16'", "p <= 574", "p < 574"},
	{"month of a date: < the first of a month", "dt", iceberg.MonthTransform{}, "dt < DATE '2017-11-01'", "p <= 573", "p < 574"},
	{"month of a date: >= the first of a month", "dt", iceberg.MonthTransform{}, "dt >= DATE '2017-11-01'", "p >= 574", "p > 573"},
	{"month of a pre-epoch date: = admits the next month", "dt", iceberg.MonthTransform{}, "dt = DATE '1969-12-15'", "p IN (-1, 0)", "FALSE"},
	{"month of a pre-epoch date: < rounds up", "dt", iceberg.MonthTransform{}, "dt < DATE '1969-12-15'", "p <= 0", "p < -1"},
	{"year of a timestamp: >= new year", "ts", iceberg.YearTransform{}, "ts >= TIMESTAMP '2017-01-01 00:00:00'", "p >= 47", "p > 46"},
	{"year of a pre-epoch timestamp: > is adjusted strictly", "ts", iceberg.YearTransform{}, "ts > TIMESTAMP '1969-06-01 00:00:00'", "p >= -1", "p > 0"},
	{"hour of timestamptz", "tstz", iceberg.HourTransform{}, "tstz < TIMESTAMPTZ '2017-11-16 22:31:08+00:00'", "p <= 419686", "p < 419686"},
	{"hour of timestamp_ns at the epoch", "tsns", iceberg.HourTransform{}, "tsns >= TIMESTAMP '1970-01-01 00:00:00'", "p >= 0", "p > 0"},
	{"hour NOT IN adds the hour after each negative hour", "ts", iceberg.HourTransform{}, "ts NOT IN (TIMESTAMP '1969-12-31 22:00:00', TIMESTAMP '1970-01-01 05:00:00')", "TRUE", "p NOT IN (-2, -1, 5)"},

	// transforms that cannot project
	{"void projects nothing", "id", iceberg.VoidTransform{}, "id = 5", "TRUE", "FALSE"},
	{"an unknown transform projects nothing", "id", iceberg.UnknownTransform{Name: "zorder"}, "id = 5", "TRUE", "FALSE"},

	// connectives
	{"AND of a projectable and an unprojectable predicate", "ts", iceberg.DayTransform{}, "ts > TIMESTAMP '2017-11-16 10:00:00' AND s = 'a'", "p >= DATE '2017-11-16'", "FALSE"},
	{"OR with an unprojectable predicate", "ts", iceberg.DayTransform{}, "id = 1 OR ts > TIMESTAMP '2017-11-16 10:00:00'", "TRUE", "p > DATE '2017-11-16'"},
	{"NOT over AND is pushed down first", "id", iceberg.IdentityTransform{}, "NOT (id < 5 AND id > 1)", "p >= 5 OR p <= 1", "p >= 5 OR p <= 1"},
}

func TestProjection(t *testing.T) {
	t.Parallel()
	for _, tc := range projectionCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src, _, _ := resolveForTest(t, tc.source)
			spec := spec1(src, tc.transform, "p")
			e := mustBind(t, tc.filter)
			incl, err := Inclusive(spec, testSchema, e)
			if err != nil {
				t.Fatal(err)
			}
			if incl.String() != tc.inclusive {
				t.Errorf("inclusive projection of %s = %q, want %q", e, incl, tc.inclusive)
			}
			strict, err := Strict(spec, testSchema, e)
			if err != nil {
				t.Fatal(err)
			}
			if strict.String() != tc.strict {
				t.Errorf("strict projection of %s = %q, want %q", e, strict, tc.strict)
			}
		})
	}
}

func resolveForTest(t *testing.T, name string) (int, iceberg.Type, string) {
	t.Helper()
	path, err := resolve(testSchema, name, true)
	if err != nil {
		t.Fatal(err)
	}
	f := path[len(path)-1]
	return f.ID, f.Type, f.Name
}

func TestProjectionOfSeveralFields(t *testing.T) {
	t.Parallel()
	spec := iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 11, FieldID: 1000, Name: "ts_day", Transform: iceberg.DayTransform{}},
		{SourceID: 11, FieldID: 1001, Name: "ts_hour", Transform: iceberg.HourTransform{}},
		{SourceID: 1, FieldID: 1002, Name: "id_bucket", Transform: iceberg.BucketTransform{N: 16}},
	}}
	e := mustBind(t, "ts >= TIMESTAMP '2017-11-16 22:00:00' AND id = 5")
	incl, err := Inclusive(spec, testSchema, e)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ts_day >= DATE '2017-11-16' AND ts_hour >= 419686 AND id_bucket = 7"; incl.String() != want {
		t.Errorf("inclusive = %q, want %q", incl, want)
	}
	strict, err := Strict(spec, testSchema, e)
	if err != nil {
		t.Fatal(err)
	}
	if strict.String() != "FALSE" {
		t.Errorf("strict = %q, want FALSE: bucket cannot prove id = 5", strict)
	}
	strict, err = Strict(spec, testSchema, mustBind(t, "ts >= TIMESTAMP '2017-11-16 22:00:00'"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "ts_day > DATE '2017-11-16' OR ts_hour > 419685"; strict.String() != want {
		t.Errorf("strict = %q, want %q", strict, want)
	}
	// Unbound filters are bound to the schema first.
	unbound, err := Inclusive(spec, testSchema, mustParse(t, "id = 5"))
	if err != nil || unbound.String() != "id_bucket = 7" {
		t.Errorf("unbound inclusive = %v, %v", unbound, err)
	}
	if _, err := Inclusive(spec, nil, mustParse(t, "id = 5")); err == nil {
		t.Error("unbound filter without a schema: want error")
	}
}
