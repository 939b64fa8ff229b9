package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// serveWrites runs "flightd serve" in-process with args on a loopback port
// (no credentials: local clients may write) and returns a client.
func serveWrites(t *testing.T, args ...string) flight.Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	all := append([]string{"serve", "--listen", "127.0.0.1:0", "--log-level", "error"}, args...)
	go func() {
		done <- run(ctx, all, pw, os.Stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("flightd did not start: %v (exit %d)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`grpc://(\S+)`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("flightd printed %q, want its address", line)
	}
	fc, err := flight.NewClientWithMiddleware(m[1], nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fc.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("flightd did not stop within 30s of cancellation")
		}
	})
	return fc
}

// writeTarget is one table of a served catalog: its name on the wire, and
// how Iceberg Java and PyIceberg load it.
type writeTarget struct {
	fc    flight.Client
	table string // as flightd names it
	ns    string // the namespace created first
	// java loads the table in Iceberg Java; python in PyIceberg given
	// Java's report (a directory table is read from its metadata file).
	java   writecheck.Table
	python func(r *writecheck.Report) writecheck.Table
	// folder is the table's folder, for the orphan check.
	folder func(t *testing.T) string
}

// directoryTarget serves a fresh directory warehouse.
func directoryTarget(t *testing.T, name string) *writeTarget {
	wh := t.TempDir()
	tg := &writeTarget{fc: serveWrites(t, "--warehouse", wh), table: "db." + name, ns: "db"}
	tg.folder = func(t *testing.T) string { return tableDir(t, wh, "db", name) }
	tg.python = func(r *writecheck.Report) writecheck.Table {
		return writecheck.Table{MetadataLocation: r.MetadataLocation}
	}
	return tg
}

// sqlTarget serves a SQL catalog on SQLite with its warehouse beside it.
func sqlTarget(t *testing.T, name string) *writeTarget {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	if err := os.MkdirAll(filepath.Join(dir, "wh"), 0o755); err != nil {
		t.Fatal(err)
	}
	// An empty file is an empty SQLite database; the catalog opens an
	// existing one.
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, "iceflight.yaml", "catalogs:\n  lake:\n    type: sql\n    uri: sqlite:///"+db+"\n    warehouse: file://"+filepath.Join(dir, "wh")+"\n")
	tg := &writeTarget{fc: serveWrites(t, "--config", cfg), table: "lake.db." + name, ns: "lake.db"}
	tb := writecheck.Table{SQLite: db, Catalog: "lake", Name: "db." + name}
	tg.java = tb
	tg.python = func(*writecheck.Report) writecheck.Table { return tb }
	tg.folder = func(t *testing.T) string {
		r := writecheck.Java(t, tb)
		return writecheck.LocalPath(r.Location)
	}
	return tg
}

// create makes the namespace (if missing) and the table.
func (tg *writeTarget) create(ctx context.Context, t *testing.T, version int, spec ...actions.PartitionField) {
	t.Helper()
	err := action(ctx, tg.fc, "create_namespace", map[string]any{"namespace": tg.ns}, nil)
	if err != nil && status.Code(err) != codes.AlreadyExists {
		t.Fatalf("create_namespace %s: %v", tg.ns, err)
	}
	if err := action(ctx, tg.fc, "create_table", newTable(tg.table, itemsSchema, version, spec...), nil); err != nil {
		t.Fatalf("create_table %s: %v", tg.table, err)
	}
	if tg.java == (writecheck.Table{}) {
		tg.java = writecheck.Table{Dir: tg.folder(t)}
	}
}

// append puts the rows ids in batches of at most 25.
func (tg *writeTarget) append(ctx context.Context, t *testing.T, m model, rowIDs ...int64) actions.WriteResult {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	var recs []arrow.RecordBatch
	for len(rowIDs) > 0 {
		n := min(25, len(rowIDs))
		recs = append(recs, itemBatch(mem, rowIDs[:n]...))
		m.add(rowIDs[:n]...)
		rowIDs = rowIDs[n:]
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	res, err := put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "append"}, recs...)
	if err != nil {
		t.Fatalf("append to %s: %v", tg.table, err)
	}
	return res
}

// check reads the table with Iceberg Java (every file checked), PyIceberg
// and iceflight and fails t unless all three hold m's rows and Java's
// current snapshot is want's (when want is not 0).
func (tg *writeTarget) check(ctx context.Context, t *testing.T, step string, m model, want int64) *writecheck.Report {
	t.Helper()
	r := writecheck.Java(t, tg.java)
	r.Clean(t)
	if want != 0 && (r.CurrentSnapshotID == nil || *r.CurrentSnapshotID != want) {
		t.Errorf("%s: Iceberg Java's current snapshot is %v, the commit answered %d", step, r.CurrentSnapshotID, want)
	}
	writecheck.Same(t, tg.table+" after "+step, rowsOf(t, r, m.list()), map[string][]string{
		"Iceberg Java": r.Current(t),
		"PyIceberg":    writecheck.Python(t, tg.python(r), &r.Schema, 0),
		"iceflight":    readFlight(ctx, t, tg.fc, tg.table, r),
	})
	if gone := writecheck.Missing(r.Files); len(gone) > 0 {
		t.Errorf("%s: files the table reaches are gone: %v", step, gone)
	}
	return r
}

// TestWritesTransformsReadBackEverywhere creates a table partitioned by
// each transform, in v2 and v3, appends and deletes, and reads it back
// with Iceberg Java, PyIceberg and iceflight.
func TestWritesTransformsReadBackEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		spec actions.PartitionField
	}{
		{"identity", actions.PartitionField{Source: "day", Transform: "identity"}},
		{"bucket", actions.PartitionField{Source: "id", Transform: "bucket[4]"}},
		{"truncate", actions.PartitionField{Source: "name", Transform: "truncate[2]"}},
		{"year", actions.PartitionField{Source: "day", Transform: "year"}},
		{"month", actions.PartitionField{Source: "ts", Transform: "month"}},
		{"day", actions.PartitionField{Source: "ts", Transform: "day"}},
		{"hour", actions.PartitionField{Source: "ts", Transform: "hour"}},
		{"void", actions.PartitionField{Source: "score", Transform: "void"}},
	} {
		for _, version := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s v%d", tc.name, version), func(t *testing.T) {
				t.Parallel()
				tg := directoryTarget(t, "t_"+tc.name)
				tg.create(ctx, t, version, tc.spec)
				m := model{}
				tg.append(ctx, t, m, ids(0, 60)...)
				res := tg.append(ctx, t, m, ids(1000, 40)...)
				if res.AddedRecords != 40 || res.Operation != "append" {
					t.Errorf("append result %+v, want 40 records appended", res)
				}
				var del actions.WriteResult
				if err := action(ctx, tg.fc, "delete", map[string]any{"table": tg.table, "filter": "id >= 10 and id < 20"}, &del); err != nil {
					t.Fatalf("delete: %v", err)
				}
				m.remove(func(r map[string]any) bool { id := idOf(r); return id >= 10 && id < 20 })
				if del.DeletedRecords != 10 {
					t.Errorf("delete result %+v, want 10 records deleted", del)
				}
				tg.check(ctx, t, "two appends and a delete", m, del.SnapshotID)
			})
		}
	}
}

// TestWritesLifecycleReadsBackEverywhere drives one table through every
// kind of write and maintenance, on a directory warehouse (v2, v3) and the
// SQL catalog on SQLite (v2), checking it from outside after each step.
func TestWritesLifecycleReadsBackEverywhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		target  func(t *testing.T, name string) *writeTarget
		version int
	}{
		{"directory v2", directoryTarget, 2},
		{"directory v3", directoryTarget, 3},
		{"sql sqlite v2", sqlTarget, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lifecycle(t, tc.target(t, "items"), tc.version)
		})
	}
}

func lifecycle(t *testing.T, tg *writeTarget, version int) {
	ctx := context.Background()
	tg.create(ctx, t, version, actions.PartitionField{Source: "id", Transform: "bucket[4]"})
	m := model{}
	res := tg.append(ctx, t, m, ids(0, 50)...)
	tg.check(ctx, t, "the first append", m, res.SnapshotID)
	res = tg.append(ctx, t, m, ids(50, 50)...)
	r := tg.check(ctx, t, "the second append", m, res.SnapshotID)
	if s := r.Snapshot(res.SnapshotID); s == nil || s.Summary["total-records"] != "100" || s.Summary["added-records"] != "50" {
		t.Errorf("second append's snapshot %+v, want total-records 100 and added-records 50", s)
	}

	// Overwrite: the rows with id < 10 are replaced by 1000..1004.
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	rec := itemBatch(mem, ids(1000, 5)...)
	res, err := put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "overwrite", Filter: "id < 10"}, rec)
	rec.Release()
	mem.AssertSize(t, 0)
	if err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	m.remove(func(r map[string]any) bool { return idOf(r) < 10 })
	m.add(ids(1000, 5)...)
	tg.check(ctx, t, "an overwrite of id < 10", m, res.SnapshotID)

	deleteStep := func(step string, body map[string]any, drop func(int64) bool, want func(actions.WriteResult) bool) {
		t.Helper()
		body["table"] = tg.table
		var res actions.WriteResult
		if err := action(ctx, tg.fc, "delete", body, &res); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		m.remove(func(r map[string]any) bool { return drop(idOf(r)) })
		if !want(res) {
			t.Errorf("%s: result %+v", step, res)
		}
		tg.check(ctx, t, step, m, res.SnapshotID)
	}
	deleteStep("a merge-on-read delete (position deletes in v2, deletion vectors in v3)",
		map[string]any{"filter": "id >= 20 and id < 30"},
		func(id int64) bool { return id >= 20 && id < 30 },
		func(r actions.WriteResult) bool { return r.AddedDeleteFiles > 0 && r.DeletedRecords == 10 })
	deleteStep("a copy-on-write delete",
		map[string]any{"filter": "id >= 40 and id < 45", "copy_on_write": true},
		func(id int64) bool { return id >= 40 && id < 45 },
		func(r actions.WriteResult) bool { return r.AddedDeleteFiles == 0 && r.DeletedDataFiles > 0 })
	deleteStep("a delete of whole files (the overwrite's, all id >= 1000)",
		map[string]any{"filter": "id >= 1000"},
		func(id int64) bool { return id >= 1000 },
		func(r actions.WriteResult) bool {
			return r.AddedDeleteFiles == 0 && r.DeletedDataFiles > 0 && r.DeletedRecords == 5
		})

	// Schema evolution: add extra, rename score to points, drop name.
	alter := map[string]any{"table": tg.table, "schema": []actions.SchemaChange{
		{Op: "add_column", Path: "extra", Type: json.RawMessage(`"string"`)},
		{Op: "rename_column", Path: "score", Name: "points"},
		{Op: "drop_column", Path: "name"},
	}}
	if err := action(ctx, tg.fc, "alter_table", alter, nil); err != nil {
		t.Fatalf("alter_table: %v", err)
	}
	m.each(func(r map[string]any) {
		r["points"] = r["score"]
		delete(r, "score")
		delete(r, "name")
	})
	r = tg.check(ctx, t, "add, rename and drop columns", m, 0)
	if got := r.Schema.ColumnNames(); fmt.Sprint(got) != "[id ts day price points extra]" {
		t.Errorf("evolved columns %v", got)
	}

	// Spec evolution: add day(ts), then append with the evolved schema.
	spec := map[string]any{"table": tg.table, "partition_spec": []actions.SpecChange{{Op: "add_field", Source: "ts", Transform: "day"}}}
	if err := action(ctx, tg.fc, "alter_table", spec, nil); err != nil {
		t.Fatalf("alter_table partition_spec: %v", err)
	}
	res = tg.appendEvolved(ctx, t, m, ids(200, 30)...)
	tg.check(ctx, t, "an append after schema and spec evolution", m, res.SnapshotID)

	var mr actions.MaintenanceResult
	if err := action(ctx, tg.fc, "rewrite_manifests", map[string]any{"table": tg.table}, &mr); err != nil {
		t.Fatalf("rewrite_manifests: %v", err)
	}
	tg.check(ctx, t, "rewrite_manifests", m, mr.SnapshotID)

	mr = actions.MaintenanceResult{}
	if err := action(ctx, tg.fc, "rewrite_data_files", map[string]any{"table": tg.table, "min_input_files": 2}, &mr); err != nil {
		t.Fatalf("rewrite_data_files: %v", err)
	}
	if mr.RewrittenFiles == 0 {
		t.Errorf("compaction rewrote nothing: %+v", mr)
	}
	tg.check(ctx, t, "compaction", m, mr.SnapshotID)

	now := time.Now().UTC().Format(time.RFC3339Nano)
	mr = actions.MaintenanceResult{}
	if err := action(ctx, tg.fc, "expire_snapshots", map[string]any{"table": tg.table, "older_than": now, "retain_last": 1}, &mr); err != nil {
		t.Fatalf("expire_snapshots: %v", err)
	}
	r = tg.check(ctx, t, "expire_snapshots", m, 0)
	if len(r.Snapshots) != 1 || len(mr.ExpiredSnapshots) == 0 {
		t.Errorf("after expiry %d snapshots remain (%d expired), want 1", len(r.Snapshots), len(mr.ExpiredSnapshots))
	}

	// Debris the writer did not make: a stray file in data/.
	folder := tg.folder(t)
	stray := filepath.Join(folder, "data", "stray.parquet")
	if err := os.WriteFile(stray, []byte("not a table file"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stray, old, old)
	mr = actions.MaintenanceResult{}
	if err := action(ctx, tg.fc, "remove_orphan_files", map[string]any{"table": tg.table, "older_than": time.Now().UTC().Format(time.RFC3339Nano)}, &mr); err != nil {
		t.Fatalf("remove_orphan_files: %v", err)
	}
	r = tg.check(ctx, t, "remove_orphan_files", m, 0)
	if left := writecheck.Unreachable(t, folder, r.Files); len(left) > 0 {
		t.Errorf("files no snapshot or metadata file reaches remain after remove_orphan_files: %v", left)
	}
}

// evolvedSchema is itemsSchema after lifecycle's alter_table.
var evolvedSchema = arrow.NewSchema([]arrow.Field{
	itemsSchema.Field(0), itemsSchema.Field(2), itemsSchema.Field(3), itemsSchema.Field(4),
	{Name: "points", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// appendEvolved appends rows ids with evolvedSchema (extra is "x<id>").
func (tg *writeTarget) appendEvolved(ctx context.Context, t *testing.T, m model, rowIDs ...int64) actions.WriteResult {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	old := itemBatch(mem, rowIDs...)
	defer old.Release()
	extra := stringArray(mem, rowIDs, func(i int64) string { return fmt.Sprintf("x%d", i) })
	defer extra.Release()
	cols := []arrow.Array{old.Column(0), old.Column(2), old.Column(3), old.Column(4), old.Column(5), extra}
	rec := arrowRecord(evolvedSchema, cols, int64(len(rowIDs)))
	defer rec.Release()
	res, err := put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "append"}, rec)
	if err != nil {
		t.Fatalf("append with the evolved schema: %v", err)
	}
	for _, i := range rowIDs {
		row := item(i)
		row["points"] = row["score"]
		delete(row, "score")
		delete(row, "name")
		row["extra"] = fmt.Sprintf("x%d", i)
		m[i] = row
	}
	return res
}
