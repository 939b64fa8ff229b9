package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// oracleQuery is one entry of a query index the Java oracle writes
// (testdata/conformance/README.md, "Query outputs").
type oracleQuery struct {
	Name              string          `json:"name"`
	Table             string          `json:"table"`
	SnapshotID        *int64          `json:"snapshot_id"`
	CaseSensitive     *bool           `json:"case_sensitive"`
	Columns           []string        `json:"columns"`
	Filter            json.RawMessage `json:"filter"`
	Schema            json.RawMessage `json:"schema"`
	Rows              int             `json:"rows"`
	File              string          `json:"file"`
	Error             string          `json:"error"`
	UnprunedFile      string          `json:"file_without_pruning"`
	NullOrNaNCompared int             `json:"null_or_nan_compared_rows"`
}

// queryTally counts outcomes of a query comparison.
type queryTally struct {
	mu                                  sync.Mutex
	total, equal, javaOrdering, refused int
	javaPruning                         int
	notes                               []string
}

func (q *queryTally) add(f func(*queryTally)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f(q)
}

func (q *queryTally) String() string {
	sort.Strings(q.notes)
	return fmt.Sprintf("%d/%d queries equal to the Java oracle; %d where Java's row evaluator lets null or NaN satisfy a comparison (iceflight keeps SQL's answer, a subset); %d where Java's UUID pruning drops a matching file (iceflight equals Java's unpruned answer); %d refused or accepted against the oracle%s",
		q.equal, q.total, q.javaOrdering, q.javaPruning, q.refused, noteLines(q.notes))
}

// noteLines lists notes below a tally's line, or says there are none.
func noteLines(notes []string) string {
	if len(notes) == 0 {
		return " (none)"
	}
	return ":\n  " + strings.Join(notes, "\n  ")
}

// compareQueries serves warehouse and runs every query of an oracle query
// index through a real Flight client.
func compareQueries(t *testing.T, warehouse, dir string, extra ...string) *queryTally {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatalf("oracle query index: %v", err)
	}
	var idx struct{ Queries []oracleQuery }
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	client := startFlightd(t, warehouse, extra...)
	tl := &queryTally{}
	t.Run("queries", func(t *testing.T) {
		for _, q := range idx.Queries {
			t.Run(q.Name, func(t *testing.T) {
				t.Parallel()
				checkQuery(t, client, dir, q, tl)
			})
		}
	})
	return tl
}

func checkQuery(t *testing.T, client flight.Client, dir string, q oracleQuery, tl *queryTally) {
	cmd := map[string]any{"table": q.Table}
	if q.SnapshotID != nil {
		cmd["snapshot_id"] = *q.SnapshotID
	}
	if q.CaseSensitive != nil {
		cmd["case_sensitive"] = *q.CaseSensitive
	}
	if q.Columns != nil {
		cmd["columns"] = q.Columns
	}
	if len(q.Filter) > 0 && string(q.Filter) != "null" {
		cmd["filter"] = q.Filter
	}
	b, _ := json.Marshal(cmd)
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tl.add(func(q *queryTally) { q.total++ })

	var schema iceberg.Schema
	if q.Error == "" {
		if err := json.Unmarshal(q.Schema, &schema); err != nil {
			t.Fatalf("oracle schema: %v", err)
		}
		schema = *requestedOrder(&schema, q.Columns)
	}
	if q.Error != "" || status.Code(errorOf(ctx, client, desc)) == codes.InvalidArgument {
		// The two readers disagree on whether the query is valid: say so.
		err := errorOf(ctx, client, desc)
		switch {
		case q.Error != "" && status.Code(err) == codes.InvalidArgument:
			tl.add(func(tl *queryTally) { tl.equal++ })
		case q.Error != "":
			tl.add(func(tl *queryTally) {
				tl.refused++
				tl.notes = append(tl.notes, fmt.Sprintf("%s: Java refuses (%.60s), iceflight accepts", q.Name, q.Error))
			})
		default:
			tl.add(func(tl *queryTally) {
				tl.refused++
				tl.notes = append(tl.notes, fmt.Sprintf("%s: iceflight refuses: %.100s", q.Name, status.Convert(err).Message()))
			})
		}
		return
	}
	got, err := scanRows(ctx, client, desc, &schema)
	if err != nil {
		t.Fatalf("%s: %v", q.Name, err)
	}
	want, err := oracleRows(filepath.Join(dir, q.File), &schema)
	if err != nil {
		t.Fatal(err)
	}
	d := testutil.DiffRows(got, want)
	switch {
	case d == "":
		tl.add(func(tl *queryTally) { tl.equal++ })
	case q.UnprunedFile != "":
		unpruned, err := oracleRows(filepath.Join(dir, q.UnprunedFile), &schema)
		if err != nil {
			t.Fatal(err)
		}
		if d2 := testutil.DiffRows(got, unpruned); d2 != "" {
			t.Errorf("%s: rows differ from the oracle both pruned (%s) and unpruned (%s)", q.Name, d, d2)
			return
		}
		tl.add(func(tl *queryTally) { tl.javaPruning++ })
	case q.NullOrNaNCompared > 0 && len(got) == len(want)-q.NullOrNaNCompared && subset(got, want):
		tl.add(func(tl *queryTally) { tl.javaOrdering++ })
	default:
		t.Errorf("%s: rows differ from the Java oracle: %s", q.Name, d)
	}
}

// requestedOrder reorders the oracle's projected schema (Java keeps the
// table's order) into the order the columns were asked for, as iceflight
// serves them.
func requestedOrder(s *iceberg.Schema, columns []string) *iceberg.Schema {
	rank := func(name string) int {
		for i, c := range columns {
			if c == name || strings.HasPrefix(c, name+".") {
				return i
			}
		}
		return len(columns)
	}
	fields := append([]iceberg.NestedField(nil), s.Fields...)
	sort.SliceStable(fields, func(i, j int) bool { return rank(fields[i].Name) < rank(fields[j].Name) })
	return iceberg.NewSchema(s.ID, fields...)
}

// errorOf returns the planning error of desc, if any.
func errorOf(ctx context.Context, client flight.Client, desc *flight.FlightDescriptor) error {
	_, err := client.GetFlightInfo(ctx, desc)
	return err
}

// subset reports whether every row of a (a multiset) is in b.
func subset(a, b []string) bool {
	count := map[string]int{}
	for _, r := range b {
		count[r]++
	}
	for _, r := range a {
		if count[r]--; count[r] < 0 {
			return false
		}
	}
	return true
}

func TestConformanceQueriesMatchJavaOracle(t *testing.T) {
	needCorpus(t, "conformance queries")
	tl := compareQueries(t, conformanceDir, filepath.Join("..", "..", "testdata", "conformance-queries"))
	printTally("conformance queries", tl)
}

func TestConformanceQueriesAtManifestLevelMatchJavaOracle(t *testing.T) {
	needCorpus(t, "conformance queries manifest-level")
	tl := compareQueries(t, conformanceDir, filepath.Join("..", "..", "testdata", "conformance-queries"), manifestLevel...)
	printTally("conformance queries manifest-level", tl)
}

func TestConformanceQueriesPlannedInParallelMatchJavaOracle(t *testing.T) {
	needCorpus(t, "conformance queries groups in parallel")
	tl := compareQueries(t, conformanceDir, filepath.Join("..", "..", "testdata", "conformance-queries"), filesInParallel...)
	printTally("conformance queries groups in parallel", tl)
}

func TestSampleQueriesMatchJavaOracle(t *testing.T) {
	tl := compareQueries(t, filepath.Join("..", "..", "testdata", "warehouse"), filepath.Join("..", "..", "testdata", "expected-queries"))
	printTally("sample warehouse queries", tl)
}
