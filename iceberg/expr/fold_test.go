package expr

import (
	"math"
	"strings"
	"testing"
)

func TestBindFoldsSets(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"an OR of equalities on one column is IN", "id = 3 OR id = 1 OR id = 2", "id IN (1, 2, 3)"},
		{"IN lists join the set", "id IN (5, 6) OR id = 1", "id IN (1, 5, 6)"},
		{"the set takes the place of the first equality", "s = 'a' OR id = 1 OR s IS NULL OR id = 2", "s = 'a' OR id IN (1, 2) OR s IS NULL"},
		{"repeated values are one", "id = 1 OR id = 1", "id = 1"},
		{"an AND of inequalities is NOT IN", "id != 1 AND id != 2 AND s = 'x'", "id NOT IN (1, 2) AND s = 'x'"},
		{"equalities under AND stay", "id = 1 AND id = 2", "id = 1 AND id = 2"},
		{"inequalities under OR stay", "id != 1 OR id != 2", "id != 1 OR id != 2"},
		{"nested groups fold on their own", "(id = 1 OR id = 2) AND (l = 3 OR l = 4)", "id IN (1, 2) AND l IN (3, 4)"},
		{"floats stay apart: -0.0 and 0.0 are one value in a set", "d = 0.0 OR d = -0.0", "d = 0 OR d = -0"},
		{"dates fold by value", "dt = '2020-01-02' OR dt = DATE '2020-01-01'", "dt IN (DATE '2020-01-01', DATE '2020-01-02')"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := mustBind(t, tc.in).String(); got != tc.want {
				t.Fatalf("Bind(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestFoldedSetsMatchTheSameRows evaluates folded filters and the OR (or
// AND) of their terms bound one by one on rows with nulls and NaNs: the
// set form must accept exactly the rows the chain does.
func TestFoldedSetsMatchTheSameRows(t *testing.T) {
	t.Parallel()
	filters := []struct {
		terms []string
		and   bool
	}{
		{terms: []string{"id = 1", "id = 3", "id IN (5, 7)", "s = 'b'"}},
		{terms: []string{"d = 1.5", "d = -0.0", "d = NaN"}},
		{terms: []string{"id != 1", "id != 3", "id NOT IN (5, 7)"}, and: true},
		{terms: []string{"s != 'a'", "s != 'c'", "d != NaN"}, and: true},
	}
	var rows []map[int]any
	for _, id := range []any{nil, int32(1), int32(2), int32(3), int32(5), int32(6)} {
		for _, s := range []any{nil, "a", "b", "c"} {
			for _, d := range []any{nil, 1.5, 0.0, math.Copysign(0, -1), 2.0} {
				rows = append(rows, map[int]any{1: id, 6: s, 4: d})
			}
		}
	}
	for _, f := range filters {
		sep := " OR "
		if f.and {
			sep = " AND "
		}
		folded := mustBind(t, strings.Join(f.terms, sep))
		for _, row := range rows {
			get := func(id int) any { return row[id] }
			want := f.and
			for _, term := range f.terms {
				ok, err := Eval(mustBind(t, term), get)
				if err != nil {
					t.Fatal(err)
				}
				if f.and {
					want = want && ok
				} else {
					want = want || ok
				}
			}
			got, err := Eval(folded, get)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s on %v: folded %s gives %v, the terms %v", strings.Join(f.terms, sep), row, folded, got, want)
			}
		}
	}
}
