package suggest

import (
	"slices"
	"testing"
)

func TestNearest(t *testing.T) {
	t.Parallel()
	tables := []string{"samples.truncated", "samples.history", "samples.trips"}
	cases := []struct {
		name  string
		query string
		n     int
		want  []string
	}{
		{"one letter off is nearest", "samples.trip", 2, []string{"samples.trips", "samples.history"}},
		{"case is ignored", "SAMPLES.TRIPS", 1, []string{"samples.trips"}},
		{"n above the candidates returns them all", "samples.history", 9, []string{"samples.history", "samples.trips", "samples.truncated"}},
		{"n of zero returns none", "samples.trips", 0, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Nearest(tc.query, tables, tc.n); !slices.Equal(got, tc.want) {
				t.Fatalf("Nearest(%q, %d) = %q, want %q", tc.query, tc.n, got, tc.want)
			}
		})
	}
	if got := Nearest("c", []string{"b", "D", "a"}, 3); !slices.Equal(got, []string{"a", "b", "D"}) {
		t.Errorf("ties: %q, want alphabetical order regardless of case", got)
	}
	if !slices.Equal(tables, []string{"samples.truncated", "samples.history", "samples.trips"}) {
		t.Fatalf("candidates were reordered: %q", tables)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"trip", "trips", 1}, {"héllo", "hello", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
