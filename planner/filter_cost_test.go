package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// benchPlan plans table with filter once per iteration.
func benchPlan(b *testing.B, table Table, filter string) {
	e, err := expr.Parse(filter)
	if err != nil {
		b.Fatal(err)
	}
	p := New()
	before := testutil.CPUTime()
	for b.Loop() {
		if _, err := p.Plan(context.Background(), table, Request{Filter: e, CaseSensitive: true}); err != nil {
			b.Fatal(err)
		}
	}
	// Planning runs goroutines, and the machine is shared: CPU time says
	// more than wall time.
	b.ReportMetric((testutil.CPUTime()-before).Seconds()/float64(b.N), "cpu-s/op")
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
	benchPlan(b, loadSampleTable(b, "trips"), orOfEqualities(9000))
}

// TestPlanLongFilters plans chains far longer than the 10,500 terms that
// used to fail with Internal (the residual's JSON nested a level per term
// and Go's decoder stops at 10,000): equalities that fold into one IN, and
// terms on a double column, which stay a chain.
func TestPlanLongFilters(t *testing.T) {
	t.Parallel()
	table := loadSampleTable(t, "trips")
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
				if task.Residual != nil {
					residuals++
					b, err := json.Marshal(task.Residual.Expr)
					if err != nil {
						t.Fatalf("%s: residual does not encode: %.200v", name, err)
					}
					if _, err := expr.ParseJSON(b); err != nil {
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

// BenchmarkPlanLongChain plans samples.trips with ORs of n comparisons on
// a double column, which do not fold into a set: the cost per term should
// stay flat as n doubles.
func BenchmarkPlanLongChain(b *testing.B) {
	table := loadSampleTable(b, "trips")
	for _, n := range []int{5_000, 10_000, 20_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var s strings.Builder
			for i := range n {
				if i > 0 {
					s.WriteString(" OR ")
				}
				fmt.Fprintf(&s, "fare = %d.5", i)
			}
			benchPlan(b, table, s.String())
		})
	}
}
