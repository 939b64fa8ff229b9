package manifest

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// keepMetrics returns f with its metrics cut to the columns in cols, as
// WithMetrics(cols) should decode it; empty metrics become nil.
func keepMetrics(f iceberg.DataFile, cols iceberg.MetricColumns) iceberg.DataFile {
	counts := func(m iceberg.ColumnCounts) iceberg.ColumnCounts {
		if m == nil {
			return nil
		}
		out := slices.DeleteFunc(slices.Clone(m), func(e iceberg.ColumnCount) bool { return !cols.Has(e.ID) })
		if len(out) == 0 {
			return iceberg.ColumnCounts{} // present, holding no kept column
		}
		return out
	}
	bounds := func(m iceberg.ColumnBounds) iceberg.ColumnBounds {
		if m == nil {
			return nil
		}
		out := slices.DeleteFunc(slices.Clone(m), func(e iceberg.ColumnBound) bool { return !cols.Has(e.ID) })
		if len(out) == 0 {
			return iceberg.ColumnBounds{} // present, holding no kept column
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
	check := func(t *testing.T, name string, raw []byte, mf iceberg.ManifestFile, pt *iceberg.StructType) {
		t.Helper()
		full, err := Read(bytes.NewReader(raw), mf, pt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cols := range []iceberg.MetricColumns{iceberg.MetricsOf(), iceberg.MetricsOf(1), iceberg.MetricsOf(2, 3, 1000), iceberg.AllMetrics()} {
			got, err := Read(bytes.NewReader(raw), mf, pt, WithMetrics(cols))
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
	check(t, "other map layouts", metricLayoutsManifest(t), iceberg.ManifestFile{}, nil)
}
