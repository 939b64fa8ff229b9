package client

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/engine"
)

func TestReadEqualsJavaOracle(t *testing.T) {
	t.Parallel()
	srv := serve(t, 500, 0)
	c, _ := dial(t, srv.addr, WithMaxWorkers(4))
	ctx := context.Background()
	for _, table := range []string{
		"samples.trips",
		"samples.all_types",
		"samples.eq_deletes_evolved",
		"samples.pos_deletes_rowgroups",
		"samples.dv_many_files",
		"samples.v3_lineage",
	} {
		idx := readIndex(t, table)
		cur := idx.Scans[0]
		schema := parseSchema(t, cur.Schema, nil)
		want := oracleRows(t, filepath.Join(expected, table, cur.File), schema)

		tbl, err := c.Read(ctx, Command{Table: table})
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, table+" Read", tableRows(t, tbl, schema), want)
		tbl.Release()

		var scanned []arrow.RecordBatch
		err = c.Scan(ctx, Command{Table: table}, func(rec arrow.RecordBatch) error {
			rec.Retain()
			scanned = append(scanned, rec)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := c.Plan(ctx, Command{Table: table})
		if err != nil {
			t.Fatal(err)
		}
		tbl = array.NewTableFromRecords(plan.Schema, scanned)
		for _, r := range scanned {
			r.Release()
		}
		sameRows(t, table+" Scan", tableRows(t, tbl, schema), want)
		tbl.Release()
	}
}

func TestEverySnapshotEqualsJavaOracle(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	for _, table := range []string{"samples.history", "samples.eq_deletes_evolved", "samples.readded_column"} {
		for _, sc := range readIndex(t, table).Scans[1:] {
			schema := parseSchema(t, sc.Schema, nil)
			tbl, err := c.Read(context.Background(), Command{Table: table, SnapshotID: sc.SnapshotID})
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, table+" "+sc.Name, tableRows(t, tbl, schema), oracleRows(t, filepath.Join(expected, table, sc.File), schema))
			tbl.Release()
		}
	}
}

func TestAsOfReadsTheSnapshotCurrentThen(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	ctx := context.Background()
	snaps, err := c.Snapshots(ctx, "samples.history")
	if err != nil {
		t.Fatal(err)
	}
	idx := readIndex(t, "samples.history")
	if len(snaps) != len(idx.Scans)-1 {
		t.Fatalf("%d snapshots, the oracle lists %d", len(snaps), len(idx.Scans)-1)
	}
	for _, snap := range snaps {
		plan, err := c.Plan(ctx, Command{Table: "samples.history", AsOfTimestampMs: AsOf(time.UnixMilli(snap.TimestampMs))})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Stats.SnapshotID != snap.SnapshotID {
			t.Errorf("as of %d: plan reads snapshot %d, want %d", snap.TimestampMs, plan.Stats.SnapshotID, snap.SnapshotID)
		}
	}
}

func TestFilteredQueriesEqualJavaOracle(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	for _, name := range []string{
		"trips__id_across_files",
		"trips__no_columns",
		"events_by_day__one_day",
		"all_types__decimal_38_10_max",
		"all_types__nested_projection",
		"eq_evolved__snapshot_3",
		"dv_many__replaced_vectors",
		"v3_lineage__pos_and_spec",
		"truncated__price_between",
	} {
		q := readQuery(t, name)
		schema := parseSchema(t, q.Schema, q.Columns)
		tbl, err := c.Read(context.Background(), Command{Table: q.Table, Columns: q.Columns, FilterJSON: q.Filter, SnapshotID: q.SnapshotID})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameRows(t, name, tableRows(t, tbl, schema), oracleRows(t, filepath.Join(queries, q.File), schema))
		tbl.Release()
	}
}

func TestStringFilterEqualsJavaOracle(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	q := readQuery(t, "dv_many__replaced_vectors")
	schema := parseSchema(t, q.Schema, q.Columns)
	tbl, err := c.Read(context.Background(), Command{Table: q.Table, Columns: q.Columns,
		Filter: "(id >= 200 AND id <= 239) OR (id >= 300 AND id <= 339)"})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	sameRows(t, q.Name, tableRows(t, tbl, schema), oracleRows(t, filepath.Join(queries, q.File), schema))
}

func TestPlanStatistics(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	q := readQuery(t, "events_by_day__one_day")
	plan, err := c.Plan(context.Background(), Command{Table: q.Table, Columns: q.Columns, FilterJSON: q.Filter})
	if err != nil {
		t.Fatal(err)
	}
	s := plan.Stats
	// Iceberg Java planned FilesPlanned of FilesTotal files; a reader may prune less, never more.
	if s.DataFiles < q.FilesPlanned || s.DataFiles >= q.FilesTotal {
		t.Errorf("data files %d, Java planned %d of %d", s.DataFiles, q.FilesPlanned, q.FilesTotal)
	}
	if got := s.DataFiles + s.DataFilesSkippedByPartition + s.DataFilesSkippedByMetrics; got != q.FilesTotal {
		t.Errorf("planned + skipped files = %d, the table has %d", got, q.FilesTotal)
	}
	if s.Endpoints != len(plan.Endpoints) {
		t.Errorf("stats say %d endpoints, plan has %d", s.Endpoints, len(plan.Endpoints))
	}
	var records int64
	for i := range plan.Endpoints {
		md, err := plan.EndpointMetadata(i)
		if err != nil {
			t.Fatal(err)
		}
		records += md.Records
	}
	if records != s.Records || plan.Info.TotalRecords != s.Records {
		t.Errorf("endpoint records %d, stats %d, FlightInfo %d", records, s.Records, plan.Info.TotalRecords)
	}
	if want := *readIndex(t, "samples.events_by_day").CurrentSnapshotID; s.SnapshotID != want {
		t.Errorf("snapshot %d, want %d", s.SnapshotID, want)
	}
}

func TestTablesSnapshotsRefs(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	ctx := context.Background()
	names, err := c.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(names, ","), "samples.eq_deletes_evolved") {
		t.Errorf("tables %v lack samples.eq_deletes_evolved", names)
	}
	idx := readIndex(t, "samples.eq_deletes_evolved")
	snaps, err := c.Snapshots(ctx, "samples.eq_deletes_evolved")
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]bool{}
	for _, sc := range idx.Scans[1:] {
		want[*sc.SnapshotID] = true
	}
	for _, s := range snaps {
		if !want[s.SnapshotID] {
			t.Errorf("snapshot %d is not in the oracle's list", s.SnapshotID)
		}
		if s.Current != (s.SnapshotID == *idx.CurrentSnapshotID) {
			t.Errorf("snapshot %d: current = %v", s.SnapshotID, s.Current)
		}
	}
	if len(snaps) != len(want) {
		t.Errorf("%d snapshots, want %d", len(snaps), len(want))
	}
	refs, err := c.Refs(ctx, "samples.eq_deletes_evolved")
	if err != nil {
		t.Fatal(err)
	}
	if refs["main"] != (Ref{SnapshotID: *idx.CurrentSnapshotID, Type: "branch"}) {
		t.Errorf("main = %+v", refs["main"])
	}
}

func TestErrorsKeepTheirCodeAndNameTheTable(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	ctx := context.Background()
	tests := []struct {
		name string
		run  func() error
		code codes.Code
	}{
		{"missing table is NotFound", func() error { _, err := c.Read(ctx, Command{Table: "samples.nope"}); return err }, codes.NotFound},
		{"missing snapshot is NotFound", func() error {
			_, err := c.Plan(ctx, Command{Table: "samples.trips", SnapshotID: Int64(1)})
			return err
		}, codes.NotFound},
		{"unknown column is InvalidArgument", func() error {
			_, err := c.Plan(ctx, Command{Table: "samples.trips", Columns: []string{"nope"}})
			return err
		}, codes.InvalidArgument},
		{"snapshots of a missing table is NotFound", func() error { _, err := c.Snapshots(ctx, "samples.nope"); return err }, codes.NotFound},
	}
	for _, tt := range tests {
		err := tt.run()
		if status.Code(err) != tt.code {
			t.Errorf("%s: got %v (%v)", tt.name, status.Code(err), err)
		}
		if err != nil && !strings.Contains(err.Error(), "samples.") {
			t.Errorf("%s: %v does not name the table", tt.name, err)
		}
	}
	if _, err := c.Plan(ctx, Command{Table: "samples.trips", Filter: "a", FilterJSON: json.RawMessage(`true`)}); err == nil {
		t.Error("a command with both filters was sent")
	}
}

func TestCommandJSONIsWhatTheServerDecodes(t *testing.T) {
	t.Parallel()
	caseSensitive := false
	cmd := Command{
		Table: "db.t", Columns: []string{"a", "b.c"}, Filter: "a > 1", SnapshotID: Int64(7),
		AsOfTimestampMs: Int64(8), Ref: "main", Limit: 9, MaxEndpoints: 10, TargetSplitBytes: 11,
		CaseSensitive: &caseSensitive, MetadataTable: "files",
	}
	changes := Command{Table: "db.t", Changes: &Changes{FromSnapshotID: Int64(3), ToRef: "main", ComputeUpdates: true, IdentifierColumns: []string{"id"}}}
	cdesc, err := changes.Descriptor()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := engine.ParseDescriptor(cdesc); err != nil || got.Changes.GetFromSnapshotId() != 3 || got.Changes.ToRef != "main" ||
		!got.Changes.ComputeUpdates || strings.Join(got.Changes.IdentifierColumns, ",") != "id" {
		t.Errorf("server decoded %v (%v) from %s", got, err, cdesc.Cmd)
	}
	desc, err := cmd.Descriptor()
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.ParseDescriptor(desc)
	if err != nil {
		t.Fatalf("server refuses %s: %v", desc.Cmd, err)
	}
	if got.Table != "db.t" || strings.Join(got.Columns, ",") != "a,b.c" || got.Filter != "a > 1" ||
		got.GetSnapshotId() != 7 || got.GetAsOfTimestampMs() != 8 || got.Ref != "main" || got.GetLimit() != 9 ||
		got.MaxEndpoints != 10 || got.TargetSplitBytes != 11 || got.GetCaseSensitive() || got.MetadataTable != "files" {
		t.Errorf("server decoded %v from %s", got, desc.Cmd)
	}
	// Columns: nil reads all, empty reads none.
	for _, tt := range []struct {
		cols []string
		none bool
	}{{nil, false}, {[]string{}, true}} {
		desc, err := Command{Table: "db.t", Columns: tt.cols, FilterJSON: json.RawMessage(`{"type":"is-null","term":"a"}`)}.Descriptor()
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.ParseDescriptor(desc)
		if err != nil {
			t.Fatal(err)
		}
		if got.NoColumns != tt.none || !strings.Contains(got.Filter, "is-null") {
			t.Errorf("%s decoded as %v", desc.Cmd, got)
		}
	}
	if _, err := (Command{}).Descriptor(); err == nil {
		t.Error("a command without a table was encoded")
	}
}
