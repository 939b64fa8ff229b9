package iceberg

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"testing"
)

// keepMetrics returns f with its metrics cut to the columns in cols, as
// WithMetrics(cols) should decode it; empty metrics become nil.
func keepMetrics(f DataFile, cols MetricColumns) DataFile {
	counts := func(m ColumnCounts) ColumnCounts {
		out := slices.DeleteFunc(slices.Clone(m), func(e ColumnCount) bool { return !cols.Has(e.ID) })
		if len(out) == 0 {
			return nil
		}
		return out
	}
	bounds := func(m ColumnBounds) ColumnBounds {
		out := slices.DeleteFunc(slices.Clone(m), func(e ColumnBound) bool { return !cols.Has(e.ID) })
		if len(out) == 0 {
			return nil
		}
		return out
	}
	f.ColumnSizes, f.ValueCounts = counts(f.ColumnSizes), counts(f.ValueCounts)
	f.NullValueCounts, f.NaNValueCounts = counts(f.NullValueCounts), counts(f.NaNValueCounts)
	f.LowerBounds, f.UpperBounds = bounds(f.LowerBounds), bounds(f.UpperBounds)
	return f
}

// A manifest read for some columns' metrics holds exactly those columns'
// metrics of the full read, and every other value the same, for every
// manifest of the corpus (Iceberg Java's simple map layout) and the other
// layouts writers use.
func TestReadManifestWithMetrics(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, name string, raw []byte, mf ManifestFile, pt *StructType) {
		t.Helper()
		full, err := ReadManifest(bytes.NewReader(raw), mf, pt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cols := range []MetricColumns{MetricsOf(), MetricsOf(1), MetricsOf(2, 3, 1000), AllMetrics()} {
			got, err := ReadManifest(bytes.NewReader(raw), mf, pt, WithMetrics(cols))
			if err != nil {
				t.Fatalf("%s with metrics of %v: %v", name, cols.IDs(), err)
			}
			if len(got) != len(full) {
				t.Fatalf("%s with metrics of %v: %d entries, want %d", name, cols.IDs(), len(got), len(full))
			}
			for i := range full {
				want := full[i]
				want.DataFile = keepMetrics(want.DataFile, cols)
				if !reflect.DeepEqual(got[i], want) {
					t.Errorf("%s entry %d with metrics of %v:\ngot  %+v\nwant %+v", name, i, cols.IDs(), got[i].DataFile, want.DataFile)
				}
			}
		}
	}
	n := 0
	for name := range corpusTableNames(t) {
		ct := loadCorpusTable(t, name)
		s := ct.md.CurrentSnapshot()
		if s == nil || s.ManifestList == "" {
			continue
		}
		for _, mf := range ct.manifestList(t, s) {
			raw, err := os.ReadFile(ct.local(mf.Path))
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := ct.md.SpecByID(mf.SpecID)
			check(t, name+"/"+mf.Path, raw, mf, spec.PartitionType(ct.md.CurrentSchema()))
			n++
		}
	}
	if n == 0 {
		t.Error("no corpus manifest was read")
	}
	check(t, "other map layouts", metricLayoutsManifest(t), ManifestFile{}, nil)
}

func TestMetricColumns(t *testing.T) {
	t.Parallel()
	a, b := MetricsOf(3, 1, 3), MetricsOf(2)
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"a set holds its ids", a.Has(1) && a.Has(3), true},
		{"a set holds no other id", a.Has(2), false},
		{"the empty set holds nothing", MetricColumns{}.Has(1), false},
		{"all holds every id", AllMetrics().Has(12345), true},
		{"a set covers itself", a.Covers(a), true},
		{"a set covers a subset", a.Covers(MetricsOf(1)), true},
		{"a set does not cover other ids", a.Covers(b), false},
		{"a set does not cover all", a.Covers(AllMetrics()), false},
		{"all covers any set", AllMetrics().Covers(a), true},
		{"the union covers both", a.Union(b).Covers(a) && a.Union(b).Covers(b), true},
		{"a union with all is all", a.Union(AllMetrics()).All(), true},
		{"ids are sorted and unique", reflect.DeepEqual(a.Union(b).IDs(), []int{1, 2, 3}), true},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: got %v", tc.name, tc.got)
		}
	}
}
