package iceberg

import (
	"reflect"
	"testing"
)

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
