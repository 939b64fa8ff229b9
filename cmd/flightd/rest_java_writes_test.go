package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// itemsIcebergSchema is itemsSchema (writes_model_test.go) as Iceberg Java
// creates it: the table both Java's appends through REST and DoPut's
// batches fit.
var itemsIcebergSchema = json.RawMessage(`{"type":"struct","schema-id":0,"fields":[
	{"id":1,"name":"id","required":true,"type":"long"},
	{"id":2,"name":"name","required":false,"type":"string"},
	{"id":3,"name":"ts","required":false,"type":"timestamptz"},
	{"id":4,"name":"day","required":false,"type":"date"},
	{"id":5,"name":"price","required":false,"type":"decimal(9,2)"},
	{"id":6,"name":"score","required":false,"type":"double"}]}`)

// retryingCommits lets Java's commits outlast the other writers of a
// table: Iceberg's default is 4 retries.
var retryingCommits = map[string]string{"commit.retry.num-retries": "50", "commit.retry.min-wait-ms": "10"}

// itemRows is the rows ids of the model in the oracle's JSON form, which
// restclient appends.
func itemRows(m model, rowIDs ...int64) []map[string]any {
	m.add(rowIDs...)
	out := make([]map[string]any, len(rowIDs))
	for k, i := range rowIDs {
		out[k] = m[i]
	}
	return out
}

// restTarget is a catalog flightd serves over REST, and how Java and
// Flight name its tables.
type restTarget struct {
	name string
	// serve returns flightd's arguments.
	serve func(t *testing.T) []string
	// javaFlags select the catalog (--warehouse gives its prefix).
	javaFlags []string
	// flight is the catalog's part of a Flight table name.
	flight []string
	// renames says whether the catalog renames tables; the directory
	// catalog does not, as Iceberg Java's HadoopCatalog does not.
	renames bool
}

// sqlConfig writes a configuration of two catalogs, lake (a directory
// warehouse) and jdbc (the SQL catalog on SQLite).
func sqlConfig(t *testing.T) []string {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cfg := writeFile(t, "iceflight.yaml", fmt.Sprintf(
		"catalogs:\n  lake:\n    type: directory\n    warehouse: %s\n  jdbc:\n    type: sql\n    uri: sqlite:///%s\n    warehouse: file://%s\n",
		t.TempDir(), db, filepath.Join(dir, "wh")))
	// An empty file is an empty SQLite database; the catalog opens an
	// existing one.
	testutil.WriteFiles(t, dir, map[string][]byte{"catalog.db": nil, "wh/.keep": nil})
	return []string{"--config", cfg}
}

// TestRESTJavaWritesReadBackByFlight creates, appends to, evolves,
// commits a transaction across two tables, renames and drops through
// Iceberg Java's RESTCatalog, and reads every table back through Flight:
// the rows must be the ones Java wrote, and Java's own reads through REST
// too, planned by itself and planned by the server.
func TestRESTJavaWritesReadBackByFlight(t *testing.T) {
	t.Parallel()
	for _, tg := range []restTarget{
		{name: "directory", serve: func(t *testing.T) []string { return []string{"--warehouse", t.TempDir()} }},
		{name: "sql catalog by prefix", serve: sqlConfig, javaFlags: []string{"--warehouse", "jdbc"}, flight: []string{"jdbc"}, renames: true},
	} {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			fc, uri := serveREST(t, tg.serve(t)...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			items, other := []string{"db", "items"}, []string{"db", "other"}
			m, o := model{}, model{}
			evolved := itemRows(m, ids(10, 5)...)
			for _, r := range evolved {
				r["extra"] = fmt.Sprintf("x%d", idOf(r))
			}
			got := runJava(t, uri, tg.javaFlags,
				step{"op": "create_namespace", "namespace": []string{"db"}},
				step{"op": "create_table", "table": items, "schema": itemsIcebergSchema, "partition_by": []string{"day"}},
				step{"op": "append", "table": items, "rows": itemRows(m, ids(0, 10)...)},
				step{"op": "add_column", "table": items, "name": "extra", "type": "string"},
				step{"op": "append", "table": items, "rows": evolved},
				step{"op": "create_table", "table": other, "schema": itemsIcebergSchema},
				step{"op": "transaction", "appends": []step{
					{"table": items, "rows": itemRows(m, ids(100, 5)...)},
					{"table": other, "rows": itemRows(o, ids(200, 5)...)},
				}},
				step{"op": "read", "table": items},
				step{"op": "read", "table": other},
			)
			for i, s := range got {
				s.ok(t, fmt.Sprintf("step %d (%s)", i, s.Op))
			}
			if tx := got[6].SnapshotIDs; len(tx) != 2 || *got[7].SnapshotID != tx[0] || *got[8].SnapshotID != tx[1] {
				t.Errorf("the transaction committed snapshots %v; the tables' current ones are %v and %v", tx, *got[7].SnapshotID, *got[8].SnapshotID)
			}
			// The same reads planned by the server (POST .../plan), Java
			// reading the files of its tasks.
			planned := runJava(t, uri, append(slices.Clone(tg.javaFlags), "--prop", "scan-planning-mode=server"),
				step{"op": "read", "table": items}, step{"op": "read", "table": other})
			for i, p := range planned {
				if p.ok(t, fmt.Sprintf("planned read %d", i)).Scan != "RESTTableScan" {
					t.Errorf("scan-planning-mode=server: Java planned with %s, want RESTTableScan", p.Scan)
				}
			}
			for _, tc := range []struct {
				table         []string
				m             model
				read, planned javaStep
				wrote         []javaStep
			}{
				{items, m, got[7], planned[0], []javaStep{got[2], got[4]}},
				{other, o, got[8], planned[1], nil},
			} {
				schema := tc.read.schema(t)
				var written []string
				for _, w := range tc.wrote {
					written = append(written, w.rows(t, schema)...)
				}
				label := strings.Join(tc.table, ".")
				flightRows, err := readFlightRows(ctx, fc, append(tg.flight, tc.table...), schema)
				if err != nil {
					t.Fatalf("Flight read of %s: %v", label, err)
				}
				seen := map[string][]string{"Flight": flightRows, "Iceberg Java through REST": tc.read.rows(t, schema),
					"Iceberg Java planned by the server": tc.planned.rows(t, schema)}
				want := rowsOf(t, &writecheck.Report{Schema: *schema}, tc.m.list())
				writecheck.Same(t, label, want, seen)
				if tc.wrote != nil && len(written) != 15 {
					t.Errorf("%s: Java echoed %d rows of its two appends, want 15", label, len(written))
				}
			}
			if s := got[7].schema(t); fmt.Sprint(s.ColumnNames()) != "[id name ts day price score extra]" {
				t.Errorf("evolved columns %v", s.ColumnNames())
			}
			renameAndDrop(ctx, t, tg, fc, uri)
		})
	}
}

// renameAndDrop renames db.other (where the catalog renames) and drops
// it, and checks Flight sees both.
func renameAndDrop(ctx context.Context, t *testing.T, tg restTarget, fc flight.Client, uri string) {
	other, renamed := []string{"db", "other"}, []string{"db", "renamed"}
	got := runJava(t, uri, tg.javaFlags,
		step{"op": "rename_table", "from": other, "to": renamed},
		step{"op": "tables", "namespace": []string{"db"}},
	)
	final := other
	switch rename := got[0]; {
	case tg.renames:
		rename.ok(t, "rename db.other")
		final = renamed
		if _, err := readFlightRows(ctx, fc, append(tg.flight, other...), &iceberg.Schema{}); status.Code(err) != codes.NotFound {
			t.Errorf("Flight read of db.other after its rename: %v, want NotFound", err)
		}
	case rename.Error == nil || !strings.Contains(rename.Error.Message, "UnsupportedOperationException"):
		t.Errorf("rename on a catalog that cannot rename: %v, want the server's UnsupportedOperationException", rename.Error)
	}
	if names := fmt.Sprint(got[1].ok(t, "list db").Tables); names != fmt.Sprint([][]string{{"db", "items"}, final}) {
		t.Errorf("tables of db after the rename: %s", names)
	}
	dropped := runJava(t, uri, tg.javaFlags, step{"op": "drop_table", "table": final}, step{"op": "load", "table": final})
	if !dropped[0].ok(t, "drop").Dropped {
		t.Errorf("drop of %v answered false", final)
	}
	if dropped[1].Error == nil || dropped[1].Error.Type != "NoSuchTableException" {
		t.Errorf("load after drop: %v, want NoSuchTableException", dropped[1].Error)
	}
	if _, err := readFlightRows(ctx, fc, append(tg.flight, final...), &iceberg.Schema{}); status.Code(err) != codes.NotFound {
		t.Errorf("Flight read of %v after its drop: %v, want NotFound", final, err)
	}
}

// TestRESTJavaCommitsRaceFlightPutsLosingNothing appends to one table from
// Iceberg Java through REST and from a Flight DoPut at the same time:
// every row of both must be in the final snapshot, once.
func TestRESTJavaCommitsRaceFlightPutsLosingNothing(t *testing.T) {
	t.Parallel()
	fc, uri := serveREST(t, "--warehouse", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	table := []string{"db", "race"}
	runJava(t, uri, nil,
		step{"op": "create_namespace", "namespace": []string{"db"}},
		step{"op": "create_table", "table": table, "schema": itemsIcebergSchema, "properties": retryingCommits},
	)[1].ok(t, "create db.race")

	const javaCommits, rowsPerCommit = 12, 5
	m := model{}
	var javaSteps []step
	for c := range int64(javaCommits) {
		javaSteps = append(javaSteps, step{"op": "append", "table": table, "rows": itemRows(m, ids(10_000+c*rowsPerCommit, rowsPerCommit)...)})
	}
	javaDone := make(chan []javaStep)
	go func() { javaDone <- runJava(t, uri, nil, javaSteps...) }()
	// DoPut until Java has made all its commits, so that the two race for
	// the whole of Java's run; bounded in case Java never ends.
	var puts int
	var javaGot []javaStep
	for javaGot == nil && puts < 150 {
		select {
		case javaGot = <-javaDone:
			continue
		default:
		}
		rowIDs := ids(int64(puts)*rowsPerCommit, rowsPerCommit)
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		rec := itemBatch(mem, rowIDs...)
		_, err := put(ctx, fc, putCommand{Table: "db.race", Mode: "append"}, rec)
		rec.Release()
		mem.AssertSize(t, 0)
		if err != nil {
			t.Fatalf("DoPut %d: %v", puts, err)
		}
		m.add(rowIDs...)
		puts++
	}
	if javaGot == nil {
		javaGot = <-javaDone
	}
	commits := map[int64]bool{}
	for i, s := range javaGot {
		s.ok(t, fmt.Sprintf("append %d", i))
		commits[*s.SnapshotID] = true
	}
	if len(commits) != javaCommits {
		t.Errorf("Java's %d appends made %d distinct snapshots", javaCommits, len(commits))
	}
	read := runJava(t, uri, nil, step{"op": "read", "table": table})[0].ok(t, "read db.race")
	schema := read.schema(t)
	flightRows, err := readFlightRows(ctx, fc, table, schema)
	if err != nil {
		t.Fatalf("Flight read: %v", err)
	}
	want := rowsOf(t, &writecheck.Report{Schema: *schema}, m.list())
	writecheck.Same(t, "db.race", want, map[string][]string{"Flight": flightRows, "Iceberg Java through REST": read.rows(t, schema)})
	fmt.Printf("rest java race: %d Java commits through REST and %d DoPuts, %d rows in the final snapshot (want %d)\n",
		javaCommits, puts, len(flightRows), len(want))
}

// TestRESTJavaGrantsBoundWhatItSees logs in with credential=user:pass
// (OAuth2 client credentials on a --users login): Java sees the
// namespaces the user's grants name and no other, reads a read-only one
// and gets ForbiddenException writing to it.
func TestRESTJavaGrantsBoundWhatItSees(t *testing.T) {
	t.Parallel()
	wh := t.TempDir()
	table := func(ns string) []string { return []string{ns, "t"} }
	row := []map[string]any{item(1)}
	// The tables are made through a server without credentials first, so
	// that every file a refused write might leave lies in this warehouse.
	_, open := serveREST(t, "--warehouse", wh)
	var setup []step
	for _, ns := range []string{"open", "ro", "hidden"} {
		setup = append(setup,
			step{"op": "create_namespace", "namespace": []string{ns}},
			step{"op": "create_table", "table": table(ns), "schema": itemsIcebergSchema},
			step{"op": "append", "table": table(ns), "rows": row})
	}
	for i, s := range runJava(t, open, nil, setup...) {
		s.ok(t, fmt.Sprintf("set-up step %d (%s)", i, s.Op))
	}

	users := writeFile(t, "users", "alice wonder-land-42 rw:open,ro\n")
	_, uri := serveREST(t, "--warehouse", wh, "--users", users, "--ticket-keys", testKeys(t))
	got := runJava(t, uri, []string{"--credential", "alice:wonder-land-42"},
		step{"op": "namespaces"},
		step{"op": "read", "table": table("ro")},
		step{"op": "append", "table": table("ro"), "rows": row},
		step{"op": "create_table", "table": []string{"ro", "new"}, "schema": itemsIcebergSchema},
		step{"op": "tables", "namespace": []string{"hidden"}},
		step{"op": "read", "table": table("hidden")},
		step{"op": "append", "table": table("open"), "rows": row},
		step{"op": "create_table", "table": []string{"open", "new"}, "schema": itemsIcebergSchema},
	)
	if ns := fmt.Sprint(got[0].ok(t, "list namespaces").Namespaces); ns != "[[open] [ro]]" {
		t.Errorf("alice sees namespaces %s, want [[open] [ro]]", ns)
	}
	if r := got[1].ok(t, "read ro.t"); len(r.Rows) != 1 {
		t.Errorf("alice read %d rows of ro.t, want 1", len(r.Rows))
	}
	for i, what := range map[int]string{2: "append to ro.t", 3: "create ro.new", 4: "list hidden", 5: "read hidden.t"} {
		if e := got[i].Error; e == nil || e.Type != "ForbiddenException" {
			t.Errorf("%s: %v, want ForbiddenException", what, e)
		}
	}
	got[6].ok(t, "append to open.t")
	got[7].ok(t, "create open.new")
}
