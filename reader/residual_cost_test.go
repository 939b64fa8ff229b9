package reader

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// sampleTrips returns the schema and data files of samples.trips in the
// sample warehouse.
func sampleTrips(tb testing.TB) (*iceberg.Schema, []string) {
	tb.Helper()
	dir := filepath.Join("..", "testdata", "warehouse", "samples", "trips")
	raw, err := os.ReadFile(filepath.Join(dir, "metadata", "v2.metadata.json"))
	if err != nil {
		tb.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		tb.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "data", "*.parquet"))
	if len(files) == 0 {
		tb.Fatalf("no data files in %s", dir)
	}
	for _, s := range md.Schemas {
		if s.ID == md.CurrentSchemaID {
			return s, files
		}
	}
	tb.Fatal("no current schema")
	return nil, nil
}

// residualJSON binds a filter to schema and writes it as a ticket carries it.
func residualJSON(tb testing.TB, schema *iceberg.Schema, filter string) string {
	tb.Helper()
	e, err := expr.Parse(filter)
	if err != nil {
		tb.Fatal(err)
	}
	bound, err := expr.Bind(e, schema, true)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(bound)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// stringIn writes "col IN ('v0', ..., 'v<n-1>', extra...)".
func stringIn(col string, n int, extra ...string) string {
	var b strings.Builder
	b.WriteString(col + " IN (")
	for i := range n {
		fmt.Fprintf(&b, "'v%d', ", i)
	}
	for _, s := range extra {
		b.WriteString("'" + strings.ReplaceAll(s, "'", "''") + "', ")
	}
	b.WriteString("'v')")
	return b.String()
}

// BenchmarkReadLargeIn reads samples.trips (20,000 rows) through a residual
// vendor IN list of 100,000 strings, the read of issue 15 that took 25 s.
func BenchmarkReadLargeIn(b *testing.B) {
	schema, files := sampleTrips(b)
	residual := residualOf(b, residualJSON(b, schema, stringIn("vendor", 100_000, "NYC", "CMT", "VTS")))
	rd := New(dirIO{})
	scan := Scan{Schema: schema}
	before := testutil.CPUTime()
	defer func() { b.ReportMetric((testutil.CPUTime()-before).Seconds()/float64(b.N), "cpu-s/op") }()
	for b.Loop() {
		rows := 0
		for _, f := range files {
			st, _ := os.Stat(f)
			task := &scantask.Task{Path: f, Format: scantask.Parquet, FileSize: st.Size(), Residual: residual}
			err := rd.Read(context.Background(), scan, task, func(rec arrow.RecordBatch) error {
				rows += int(rec.NumRows())
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		if rows == 0 {
			b.Fatal("no rows matched")
		}
	}
}

// readColumn reads samples.trips through an optional residual and returns
// each row's value of one column by id, as text ("" for null).
func readColumn(t *testing.T, residual, name string) map[int64]string {
	t.Helper()
	schema, files := sampleTrips(t)
	// The reader's own pool: compute's Take overruns slices with spare
	// capacity, which a CheckedAllocator over the pool hands out (see
	// withComputeAllocator).
	rd := New(dirIO{}, WithBatchSize(1000))
	scan := Scan{Schema: schema}
	id, col := -1, -1
	for i, f := range schema.Fields {
		switch f.Name {
		case "id":
			id = i
		case name:
			col = i
		}
	}
	out := map[int64]string{}
	for _, f := range files {
		st, _ := os.Stat(f)
		task := &scantask.Task{Path: f, Format: scantask.Parquet, FileSize: st.Size(), Residual: residualOf(t, residual)}
		err := rd.Read(context.Background(), scan, task, func(rec arrow.RecordBatch) error {
			ids := rec.Column(id).(*array.Int64)
			vs := rec.Column(col)
			for r := range int(rec.NumRows()) {
				out[ids.Value(r)] = ""
				if vs.IsValid(r) {
					// Copy: the batch's memory goes back to the pool.
					out[ids.Value(r)] = strings.Clone(vs.ValueStr(r))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
	}
	return out
}

// TestLongFloatOrMatchesDirectEvaluation filters samples.trips by an OR of
// 3,000 equalities on fare, a double, which Bind leaves a chain and the
// row filter tests with one set: the rows are those whose fare is one of
// the values, compared here row by row.
func TestLongFloatOrMatchesDirectEvaluation(t *testing.T) {
	t.Parallel()
	all := readColumn(t, "", "fare")
	want := map[string]bool{}
	for _, v := range all {
		if v != "" && len(want) < 40 {
			want[v] = true
		}
	}
	terms := make([]string, 0, 3000+len(want))
	for v := range want {
		terms = append(terms, "fare = "+v)
	}
	for i := range 3000 {
		terms = append(terms, fmt.Sprintf("fare = %d.125", 1000+i))
	}
	schema, _ := sampleTrips(t)
	got := readColumn(t, residualJSON(t, schema, strings.Join(terms, " OR ")), "fare")
	n := 0
	for id, v := range all {
		if !want[v] {
			continue
		}
		n++
		if _, ok := got[id]; !ok {
			t.Fatalf("row %d (fare %s) is missing", id, v)
		}
	}
	if len(got) != n || n == 0 {
		t.Fatalf("read %d rows, want %d", len(got), n)
	}
}

// TestLargeInMatchesDirectEvaluation filters samples.trips by IN and NOT
// IN lists of 30,000 strings and compares the rows with the set test done
// here on every row: the residual's hash sets keep Iceberg's semantics
// (a null vendor is in no list, so it passes NOT IN only).
func TestLargeInMatchesDirectEvaluation(t *testing.T) {
	t.Parallel()
	all := readColumn(t, "", "vendor")
	seen := map[string]bool{}
	var some []string
	for _, v := range all {
		if v != "" && !seen[v] && len(some) < 2 {
			some = append(some, v)
		}
		seen[v] = true
	}
	if len(some) < 2 || !seen[""] {
		t.Fatalf("samples.trips has vendors %v; the test needs two and nulls", seen)
	}
	schema, _ := sampleTrips(t)
	list := stringIn("vendor", 30_000, some...)
	for _, neg := range []bool{false, true} {
		filter := list
		if neg {
			filter = strings.Replace(list, " IN (", " NOT IN (", 1)
		}
		got := readColumn(t, residualJSON(t, schema, filter), "vendor")
		want := 0
		for id, v := range all {
			in := v != "" && (v == some[0] || v == some[1])
			if in == neg {
				continue
			}
			want++
			if _, ok := got[id]; !ok {
				t.Fatalf("NOT IN %v: row %d (vendor %q) is missing", neg, id, v)
			}
		}
		if len(got) != want || want == 0 {
			t.Fatalf("NOT IN %v: read %d rows, want %d", neg, len(got), want)
		}
	}
}
