package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// sampleTrips loads samples.trips from the sample warehouse.
func sampleTrips(tb testing.TB) Table {
	tb.Helper()
	cat, err := catalog.NewDirectory(filepath.Join("..", "testdata", "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), catalog.Identifier{"samples", "trips"})
	if err != nil {
		tb.Fatal(err)
	}
	return Table{Name: "samples.trips", Metadata: tbl.Metadata, IO: tbl.IO}
}

// orOfEqualities writes "id = 0 OR id = 1 OR ..." with n terms.
func orOfEqualities(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(" OR ")
		}
		fmt.Fprintf(&b, "id = %d", i)
	}
	return b.String()
}

// BenchmarkPlanLongOr plans samples.trips with an OR of 9,000 equalities
// (120 KB), the filter of issue 15 that cost a minute of CPU.
func BenchmarkPlanLongOr(b *testing.B) {
	table := sampleTrips(b)
	filter, err := expr.Parse(orOfEqualities(9000))
	if err != nil {
		b.Fatal(err)
	}
	p := New()
	for b.Loop() {
		if _, err := p.Plan(context.Background(), table, Request{Filter: filter, CaseSensitive: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlanLongFilters plans chains far longer than the 10,500 terms that
// used to fail with Internal (the residual's JSON nested a level per term
// and Go's decoder stops at 10,000): equalities that fold into one IN, and
// terms on a double column, which stay a chain.
func TestPlanLongFilters(t *testing.T) {
	t.Parallel()
	table := sampleTrips(t)
	var mixed strings.Builder
	for i := range 15_000 {
		if i > 0 {
			mixed.WriteString(" OR ")
		}
		fmt.Fprintf(&mixed, "fare = %d.5", i)
	}
	for name, filter := range map[string]string{
		"20,000 equalities":        orOfEqualities(20_000),
		"15,000 terms on a double": mixed.String(),
	} {
		e, err := ParseFilter(filter)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plan, err := New().Plan(context.Background(), table, Request{Filter: e, CaseSensitive: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		residuals := 0
		for _, ep := range plan.Endpoints {
			for _, task := range ep.Tasks {
				if task.ResidualJson != "" {
					residuals++
					if _, err := expr.ParseJSON([]byte(task.ResidualJson)); err != nil {
						t.Fatalf("%s: residual does not read back: %.200v", name, err)
					}
				}
			}
		}
		if residuals == 0 {
			t.Fatalf("%s: no task carries the residual", name)
		}
	}
}
