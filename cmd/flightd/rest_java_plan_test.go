package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/restcatalog"
	"github.com/iceflight/iceflight/testkit/writecheck"
	"github.com/iceflight/iceflight/writer"
)

// planCalls counts the planning calls a REST catalog server answered.
type planCalls struct {
	next           http.Handler
	submit, polled atomic.Int64
}

func (p *planCalls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/plan"):
		p.submit.Add(1)
	case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/plan/"):
		p.polled.Add(1)
	}
	p.next.ServeHTTP(w, r)
}

// TestRESTJavaPollsASubmittedPlan serves the REST catalog in-process with
// no wait for plans (restcatalog.WithPlanWait(0): every plan is answered
// "submitted"), as flightd has no flag for it, and reads a table Java
// wrote with scan-planning-mode=server: Iceberg Java must poll the plan
// (GET .../plan/{id}) until it completes and read the rows it wrote.
func TestRESTJavaPollsASubmittedPlan(t *testing.T) {
	t.Parallel()
	cat, err := catalog.NewDirectory(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	signer, err := engine.NewRandomSigner(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(cat, reader.New(fileio.NewResolver()), signer, engine.WithLogger(slog.New(slog.DiscardHandler)))
	srv, err := restcatalog.New(eng, restcatalog.WithWriter(writer.New(cat)), restcatalog.WithPlanWait(0))
	if err != nil {
		t.Fatal(err)
	}
	calls := &planCalls{next: srv}
	ts := httptest.NewServer(calls)
	t.Cleanup(ts.Close)

	table := []string{"db", "polled"}
	m := model{}
	got := runJava(t, ts.URL, nil,
		step{"op": "create_namespace", "namespace": []string{"db"}},
		step{"op": "create_table", "table": table, "schema": itemsIcebergSchema, "partition_by": []string{"day"}},
		step{"op": "append", "table": table, "rows": itemRows(m, ids(0, 20)...)},
		step{"op": "append", "table": table, "rows": itemRows(m, ids(100, 20)...)},
	)
	for i, s := range got {
		s.ok(t, fmt.Sprintf("step %d (%s)", i, s.Op))
	}
	read := runJava(t, ts.URL, []string{"--prop", "scan-planning-mode=server"}, step{"op": "read", "table": table})[0].ok(t, "planned read")
	if read.Scan != "RESTTableScan" {
		t.Errorf("Java planned with %s, want RESTTableScan", read.Scan)
	}
	if calls.submit.Load() == 0 || calls.polled.Load() == 0 {
		t.Errorf("the server answered %d plan submissions and %d polls; want the plan submitted and polled", calls.submit.Load(), calls.polled.Load())
	}
	schema := read.schema(t)
	want := rowsOf(t, &writecheck.Report{Schema: *schema}, m.list())
	writecheck.Same(t, "db.polled", want, map[string][]string{"Iceberg Java planned by the server": read.rows(t, schema)})
}
