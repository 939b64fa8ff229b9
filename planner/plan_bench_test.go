package planner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPlanSamples plans a scan of every sample table per iteration,
// with no filter, as most scans are: from the manifest cache, and cold
// with no cache, where decoding manifests is most of the cost.
func BenchmarkPlanSamples(b *testing.B) {
	entries, err := os.ReadDir(filepath.Join("..", "testdata", "warehouse", "samples"))
	if err != nil {
		b.Fatal(err)
	}
	var tables []Table
	for _, e := range entries {
		tables = append(tables, loadSampleTable(b, e.Name()))
	}
	for _, bc := range []struct {
		name string
		opts []Option
	}{
		{"cached", nil},
		{"cold", []Option{WithCacheBytes(0)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := New(bc.opts...)
			b.ReportAllocs()
			for b.Loop() {
				for _, tbl := range tables {
					if _, err := p.Plan(context.Background(), tbl, Request{CaseSensitive: true}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
