package expr

import (
	"errors"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// manifestSpec partitions testSchema by identity(id), day(ts), identity(s),
// identity(d) and identity(l).
var manifestSpec = iceberg.PartitionSpec{ID: 1, Fields: []iceberg.PartitionField{
	{SourceID: 1, FieldID: 1000, Name: "id_p", Transform: iceberg.IdentityTransform{}},
	{SourceID: 11, FieldID: 1001, Name: "ts_day", Transform: iceberg.DayTransform{}},
	{SourceID: 6, FieldID: 1002, Name: "s_p", Transform: iceberg.IdentityTransform{}},
	{SourceID: 4, FieldID: 1003, Name: "d_p", Transform: iceberg.IdentityTransform{}},
	{SourceID: 2, FieldID: 1004, Name: "l_p", Transform: iceberg.IdentityTransform{}},
}}

func boolPtr(b bool) *bool { return &b }

// testManifest summarizes: id_p in [5, 10]; ts_day in [2017-11-16,
// 2017-11-30] with nulls; s_p in ["abc", "abd"]; d_p only NaN; l_p only null.
func testManifest(t *testing.T) *iceberg.ManifestFile {
	return &iceberg.ManifestFile{Path: "s3://bucket/metadata/m0.avro", Partitions: []iceberg.FieldSummary{
		{ContainsNull: false, LowerBound: enc(t, iceberg.IntType{}, int32(5)), UpperBound: enc(t, iceberg.IntType{}, int32(10))},
		{ContainsNull: true, LowerBound: enc(t, iceberg.DateType{}, int32(17486)), UpperBound: enc(t, iceberg.DateType{}, int32(17500))},
		{ContainsNull: false, LowerBound: []byte("abc"), UpperBound: []byte("abd")},
		{ContainsNull: false, ContainsNaN: boolPtr(true)},
		{ContainsNull: true},
	}}
}

// Expectations were cross-checked against Iceberg Java 1.12's
// ManifestEvaluator.forRowFilter on the same spec and summaries.
var manifestCases = []struct {
	name, filter string
	want         bool
}{
	{"< the lower bound cannot match", "id < 5", false},
	{"<= the lower bound might match", "id <= 5", true},
	{"> the upper bound cannot match", "id > 10", false},
	{"= inside the bounds might match", "id = 7", true},
	{"= outside the bounds cannot match", "id = 11", false},
	{"IN outside the bounds cannot match", "id IN (1, 2)", false},
	{"IN with a value inside might match", "id IN (1, 7)", true},
	{"!= might match unless the bounds pin one value", "id != 5", true},
	{"IS NULL without nulls cannot match", "id IS NULL", false},
	{"IS NOT NULL might match", "id IS NOT NULL", true},
	{"a day projection above the upper bound cannot match", "ts > TIMESTAMP '2017-12-31 00:00:00'", false},
	{"a day projection below the lower bound cannot match", "ts < TIMESTAMP '2017-11-16 00:00:00'", false},
	{"a day projection inside might match", "ts >= TIMESTAMP '2017-11-20 12:00:00'", true},
	{"IS NULL with nulls might match", "ts IS NULL", true},
	{"STARTS WITH a shared prefix might match", "s STARTS WITH 'ab'", true},
	{"STARTS WITH a prefix above the bounds cannot match", "s STARTS WITH 'b'", false},
	{"NOT STARTS WITH a prefix of both bounds cannot match", "s NOT STARTS WITH 'ab'", false},
	{"NOT STARTS WITH a longer prefix might match", "s NOT STARTS WITH 'abc'", true},
	{"IS NAN where NaN is present might match", "d IS NAN", true},
	{"IS NOT NAN where only NaN is present cannot match", "d IS NOT NAN", false},
	{"a comparison where only NaN is present cannot match", "d > 0", false},
	{"IS NOT NULL where only nulls are present cannot match", "l IS NOT NULL", false},
	{"IS NULL where only nulls are present might match", "l IS NULL", true},
	{"= where only nulls are present cannot match", "l = 1", false},
	{"AND", "id = 7 AND ts IS NULL", true},
	{"OR", "id = 11 OR s STARTS WITH 'ab'", true},
	{"a column that is not a partition source might match", "bo = true", true},
}

func TestManifestEvaluator(t *testing.T) {
	t.Parallel()
	m := testManifest(t)
	for _, tc := range manifestCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := NewManifestEvaluator(manifestSpec, manifestSpec.PartitionType(testSchema), mustBind(t, tc.filter))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ev.Eval(m)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("Eval(%s) = %v, want %v (partition filter %s)", tc.filter, got, tc.want, ev.filter)
			}
		})
	}
}

func TestManifestEvaluatorEdges(t *testing.T) {
	t.Parallel()
	t.Run("a manifest without summaries might match", func(t *testing.T) {
		t.Parallel()
		ev, _ := NewManifestEvaluator(manifestSpec, nil, mustBind(t, "id = 99"))
		if ok, err := ev.Eval(&iceberg.ManifestFile{}); !ok || err != nil {
			t.Fatalf("got %v, %v", ok, err)
		}
	})
	t.Run("a FALSE filter skips even a manifest without summaries", func(t *testing.T) {
		t.Parallel()
		ev, _ := NewManifestEvaluator(manifestSpec, nil, mustBind(t, "req IS NULL"))
		if ok, err := ev.Eval(&iceberg.ManifestFile{}); ok || err != nil {
			t.Fatalf("got %v, %v", ok, err)
		}
	})
	t.Run("NOT = on bounds pinning the value cannot match", func(t *testing.T) {
		t.Parallel()
		m := &iceberg.ManifestFile{Partitions: []iceberg.FieldSummary{
			{LowerBound: enc(t, iceberg.IntType{}, int32(5)), UpperBound: enc(t, iceberg.IntType{}, int32(5))}}}
		ev, _ := NewManifestEvaluator(manifestSpec, nil, mustBind(t, "NOT id = 5"))
		if ok, _ := ev.Eval(m); ok {
			t.Fatal("every partition value is 5")
		}
	})
	t.Run("an undecodable bound is an error naming the manifest", func(t *testing.T) {
		t.Parallel()
		m := testManifest(t)
		m.Partitions[0].LowerBound = []byte{1}
		ev, _ := NewManifestEvaluator(manifestSpec, nil, mustBind(t, "id = 7"))
		if _, err := ev.Eval(m); !errors.Is(err, iceberg.ErrInvalidMetadata) {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("an unbound filter is refused", func(t *testing.T) {
		t.Parallel()
		if _, err := NewManifestEvaluator(manifestSpec, nil, mustParse(t, "id = 1")); !errors.Is(err, ErrInvalidFilter) {
			t.Fatalf("error = %v", err)
		}
	})
}
