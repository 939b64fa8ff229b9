package rest_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// countingTransport counts the requests that reach the server, and the
// 304 answers among them.
type countingTransport struct {
	requests, notModified atomic.Int64
	mu                    sync.Mutex
	paths                 []string
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	c.mu.Lock()
	c.paths = append(c.paths, req.Method+" "+req.URL.Path)
	c.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusNotModified {
		c.notModified.Add(1)
	}
	return resp, err
}

func localIO(context.Context, fileio.Properties) (fileio.FileIO, error) {
	return fileio.NewResolver(), nil
}

// readRows plans the table's current snapshot and reads every task with
// the reader, in the canonical row form of the oracle's output.
func readRows(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	ctx := context.Background()
	plan, err := planner.New().Plan(ctx, planner.Table{Name: tbl.Identifier.String(), MetadataLocation: tbl.MetadataLocation,
		Metadata: tbl.Metadata, IO: tbl.IO}, planner.Request{CaseSensitive: true})
	if err != nil {
		t.Fatalf("plan %s: %v", tbl.Identifier, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd := reader.New(tbl.IO, reader.WithAllocator(mem))
	var rows []string
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			err := rd.Read(ctx, reader.Scan{Schema: plan.Schema}, task, func(rec arrow.RecordBatch) error {
				r, err := testutil.ArrowRows(plan.Schema, rec)
				rows = append(rows, r...)
				return err
			})
			if err != nil {
				t.Fatalf("read %s: %v", task.Path, err)
			}
		}
	}
	return rows
}

// TestFixtureTablesWrittenByJavaReadEqualToJava runs the Iceberg REST
// fixture (Iceberg Java's RESTCatalogAdapter), which creates namespaces and
// tables with data through the REST API, and checks that they list, load
// and read back equal to the rows Iceberg Java reads; that OAuth2 client
// credentials are accepted by the real token endpoint; that an unchanged
// table costs one conditional request; and the errors of missing tables.
func TestFixtureTablesWrittenByJavaReadEqualToJava(t *testing.T) {
	srv := restfixture.Start(t, restfixture.Options{Samples: true})
	ctx := context.Background()
	counter := &countingTransport{}
	cat, err := rest.New(ctx, "lake", fileio.Properties{"uri": srv.URI, "credential": "iceflight:not-a-real-secret"},
		rest.WithHTTPClient(&http.Client{Transport: counter}), rest.WithFileIO(localIO))
	if err != nil {
		t.Fatal(err)
	}

	ids, err := cat.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.Identifier{{"demo", "nested", "events"}, {"demo", "trips"}}
	if !slices.EqualFunc(ids, want, slices.Equal) {
		t.Fatalf("ListTables = %v, want %v", ids, want)
	}

	t.Run("every table reads equal to Iceberg Java", func(t *testing.T) {
		for _, id := range want {
			tbl, err := cat.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			oracle, err := testutil.OracleFile(tbl.Metadata.CurrentSchema(), filepath.Join(srv.Samples, id.String()+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := testutil.DiffRows(readRows(t, tbl), oracle); diff != "" {
				t.Errorf("%s: %s", id, diff)
			}
		}
	})

	t.Run("an unchanged table costs one conditional request", func(t *testing.T) {
		id := catalog.Identifier{"demo", "trips"}
		first, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before, before304 := counter.requests.Load(), counter.notModified.Load()
		again, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if n := counter.requests.Load() - before; n != 1 {
			t.Errorf("reload sent %d requests, want 1", n)
		}
		if n := counter.notModified.Load() - before304; n != 1 {
			t.Errorf("reload got %d answers 304, want 1", n)
		}
		if again != first {
			t.Error("a 304 gave another table than the cached one")
		}
	})

	t.Run("the token came from the OAuth2 endpoint", func(t *testing.T) {
		counter.mu.Lock()
		defer counter.mu.Unlock()
		if !slices.Contains(counter.paths, "POST /v1/oauth/tokens") {
			t.Errorf("no token request among %v", counter.paths)
		}
	})

	t.Run("listing in pages of one gives the same tables", func(t *testing.T) {
		paged, err := rest.New(ctx, "lake", fileio.Properties{"uri": srv.URI}, rest.WithPageSize(1), rest.WithFileIO(localIO))
		if err != nil {
			t.Fatal(err)
		}
		ids, err := paged.ListTables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(ids, want, slices.Equal) {
			t.Errorf("ListTables = %v, want %v", ids, want)
		}
	})

	t.Run("snapshot-loading-mode refs loads the referenced snapshots only", func(t *testing.T) {
		refs, err := rest.New(ctx, "lake", fileio.Properties{"uri": srv.URI, "snapshot-loading-mode": "refs"}, rest.WithFileIO(localIO))
		if err != nil {
			t.Fatal(err)
		}
		id := catalog.Identifier{"demo", "trips"}
		full, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := refs.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		// trips has two snapshots (two appends); main references the second.
		if len(full.Metadata.Snapshots) != 2 || len(tbl.Metadata.Snapshots) != 1 ||
			tbl.Metadata.CurrentSnapshot().SnapshotID != full.Metadata.CurrentSnapshot().SnapshotID {
			t.Errorf("snapshots: %d in full, %d with refs, want 2 and the current one", len(full.Metadata.Snapshots), len(tbl.Metadata.Snapshots))
		}
		if diff := testutil.DiffRows(readRows(t, tbl), readRows(t, full)); diff != "" {
			t.Errorf("refs mode reads other rows: %s", diff)
		}
	})

	tests := []struct {
		name string
		id   catalog.Identifier
		want []error
	}{
		{"a missing table is ErrTableNotFound", catalog.Identifier{"demo", "nope"}, []error{catalog.ErrTableNotFound}},
		// The fixture's JdbcCatalog answers NoSuchTableException here; a
		// server that answers NoSuchNamespaceException is a unit test's.
		{"a table in a missing namespace is not found", catalog.Identifier{"nope", "trips"}, []error{catalog.ErrTableNotFound}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cat.LoadTable(ctx, tc.id)
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("LoadTable(%s) = %v, want %v", tc.id, err, w)
				}
			}
		})
	}
}
