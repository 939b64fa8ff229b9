package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/proto/actions"
)

// sqlClient is arrow-go's own Flight SQL client on addr.
func sqlClient(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	c, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readInfo redeems every endpoint of info (at its first location, or on
// c's own connection) and returns the schema and the rows, formatted and
// sorted so that answers compare as multisets.
func readInfo(ctx context.Context, t *testing.T, info *flight.FlightInfo, at func(ep *flight.FlightEndpoint) func(context.Context, *flight.Ticket) (*flight.Reader, error)) (*arrow.Schema, []string) {
	t.Helper()
	var schema *arrow.Schema
	var rows []string
	for _, ep := range info.Endpoint {
		rdr, err := at(ep)(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		schema = rdr.Schema()
		for rdr.Next() {
			rec := rdr.RecordBatch()
			for i := range int(rec.NumRows()) {
				var cells []string
				for _, col := range rec.Columns() {
					cells = append(cells, col.ValueStr(i))
				}
				rows = append(rows, strings.Join(cells, "|"))
			}
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	slices.Sort(rows)
	return schema, rows
}

// plainRows answers cmd through the plain protocol on fc.
func plainRows(ctx context.Context, t *testing.T, fc flight.Client, cmd string) []string {
	t.Helper()
	info, err := fc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)})
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	_, rows := readInfo(ctx, t, info, func(*flight.FlightEndpoint) func(context.Context, *flight.Ticket) (*flight.Reader, error) {
		return func(ctx context.Context, tkt *flight.Ticket) (*flight.Reader, error) {
			stream, err := fc.DoGet(ctx, tkt)
			if err != nil {
				return nil, err
			}
			return flight.NewRecordReader(stream)
		}
	})
	return rows
}

func TestFlightSQLWithArrowGosClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := startServe(t, "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0")
	c := sqlClient(t, s.addr)
	fc := dial(t, s.addr)
	onConn := func(*flight.FlightEndpoint) func(context.Context, *flight.Ticket) (*flight.Reader, error) {
		return func(ctx context.Context, tkt *flight.Ticket) (*flight.Reader, error) { return c.DoGet(ctx, tkt) }
	}
	history := readHistory(ctx, t, c)

	for _, tc := range []struct{ sql, plain string }{
		{"SELECT * FROM samples.trips", `{"table": "samples.trips"}`},
		{"SELECT id, fare FROM samples.trips WHERE fare > 10 AND vendor IN ('NYC', 'CMT')", `{"table": "samples.trips", "columns": ["id", "fare"], "filter": "fare > 10 AND vendor IN ('NYC', 'CMT')"}`},
		{"SELECT Fare, ID FROM SAMPLES.TRIPS WHERE PASSENGERS >= 2", `{"table": "samples.trips", "columns": ["fare", "id"], "filter": "passengers >= 2"}`},
		{"SELECT * FROM samples.eq_deletes_evolved", `{"table": "samples.eq_deletes_evolved"}`},
		{fmt.Sprintf("SELECT * FROM samples.history FOR SYSTEM_VERSION AS OF %d", history), fmt.Sprintf(`{"table": "samples.history", "snapshot_id": %d}`, history)},
		{"SELECT COUNT(*) FROM samples.pos_deletes_rowgroups", ""},
		// Metadata tables, as Trino names them, bare or quoted.
		{"SELECT file_path, record_count FROM samples.trips$files WHERE record_count > 0", `{"table": "samples.trips", "metadata_table": "files", "columns": ["file_path", "record_count"], "filter": "record_count > 0"}`},
		{"SELECT record_count, file_path FROM samples.trips$files", `{"table": "samples.trips", "metadata_table": "files", "columns": ["record_count", "file_path"]}`},
		{`SELECT * FROM samples."history$snapshots"`, `{"table": "samples.history", "metadata_table": "snapshots"}`},
		{fmt.Sprintf("SELECT status, data_file.file_path FROM samples.history$entries FOR SYSTEM_VERSION AS OF %d", history),
			fmt.Sprintf(`{"table": "samples.history", "metadata_table": "entries", "columns": ["status", "data_file.file_path"], "snapshot_id": %d}`, history)},
	} {
		t.Run(tc.sql, func(t *testing.T) { checkSQL(ctx, t, c, fc, tc.sql, tc.plain) })
	}

	t.Run("table_changes streams a change stream", func(t *testing.T) {
		for _, tc := range []struct{ sql, plain string }{
			{"SELECT * FROM table_changes('samples.history', '1970-01-01 00:00:00')", `{"table": "samples.history", "changes": {}}`},
			{fmt.Sprintf("SELECT * FROM table_changes('samples.history', '1970-01-01 00:00:00', %d) WHERE id > 5", history),
				fmt.Sprintf(`{"table": "samples.history", "changes": {"to_snapshot_id": %d}, "filter": "id > 5"}`, history)},
		} {
			info, err := c.Execute(ctx, tc.sql)
			if err != nil {
				t.Fatalf("%s: %v", tc.sql, err)
			}
			_, got := readInfo(ctx, t, info, onConn)
			want := plainRows(ctx, t, fc, tc.plain)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("%s: %d rows, the plain protocol %d (equal: %v)", tc.sql, len(got), len(want), slices.Equal(got, want))
			}
		}
		if _, err := c.Execute(ctx, "SELECT id FROM table_changes('samples.history', 1)"); status.Code(err) != codes.Unimplemented {
			t.Errorf("a select list with table_changes: %v, want Unimplemented", err)
		}
	})

	t.Run("COUNT(*) of a metadata table counts its rows", func(t *testing.T) {
		info, err := c.Execute(ctx, "SELECT COUNT(*) FROM samples.trips$files")
		if err != nil {
			t.Fatal(err)
		}
		_, got := readInfo(ctx, t, info, onConn)
		n := len(plainRows(ctx, t, fc, `{"table": "samples.trips", "metadata_table": "files"}`))
		if fmt.Sprint(got) != fmt.Sprintf("[%d]", n) || n == 0 {
			t.Errorf("COUNT(*) = %v, want [%d] (the files the plain protocol lists)", got, n)
		}
	})

	t.Run("an alias renames the column", func(t *testing.T) {
		info, err := c.Execute(ctx, `SELECT id AS trip, fare AS "Fare in $" FROM samples.trips LIMIT 5`)
		if err != nil {
			t.Fatal(err)
		}
		schema, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got, rows := readInfo(ctx, t, info, onConn)
		if names := fmt.Sprint(schema.Field(0).Name, ",", schema.Field(1).Name); names != "trip,Fare in $" || !got.Equal(schema) {
			t.Errorf("FlightInfo schema %v, streamed %v; want trip and \"Fare in $\" in both", schema, got)
		}
		if len(rows) != 5 {
			t.Errorf("LIMIT 5 answered %d rows", len(rows))
		}
	})

	t.Run("a prepared statement binds its parameters", func(t *testing.T) {
		ps, err := c.Prepare(ctx, "SELECT id FROM samples.trips WHERE fare > ? AND vendor = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer ps.Close(ctx)
		if ps.ParameterSchema().NumFields() != 2 || ps.ParameterSchema().Field(0).Type.ID() != arrow.FLOAT64 || ps.ParameterSchema().Field(1).Type.ID() != arrow.STRING {
			t.Errorf("parameter schema %v, want fare's double and vendor's string", ps.ParameterSchema())
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, ps.ParameterSchema())
		defer b.Release()
		b.Field(0).(*array.Float64Builder).Append(10)
		b.Field(1).(*array.StringBuilder).Append("NYC")
		params := b.NewRecordBatch()
		defer params.Release()
		ps.SetParameters(params)
		info, err := ps.Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, got := readInfo(ctx, t, info, onConn)
		want := plainRows(ctx, t, fc, `{"table": "samples.trips", "columns": ["id"], "filter": "fare > 10 AND vendor = 'NYC'"}`)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("prepared: %d rows, plain: %d", len(got), len(want))
		}
	})

	t.Run("catalog commands", func(t *testing.T) {
		pattern := "tri%"
		info, err := c.GetTables(ctx, &flightsql.GetTablesOpts{TableNameFilterPattern: &pattern, IncludeSchema: true})
		if err != nil {
			t.Fatal(err)
		}
		_, rows := readInfo(ctx, t, info, onConn)
		if len(rows) != 1 || !strings.HasPrefix(rows[0], "(null)|samples|trips|TABLE|") {
			t.Errorf("GetTables(tri%%) = %q, want samples.trips with its schema", rows)
		}
		info, err = c.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{})
		if err != nil {
			t.Fatal(err)
		}
		if _, rows := readInfo(ctx, t, info, onConn); fmt.Sprint(rows) != "[(null)|samples]" {
			t.Errorf("GetDBSchemas = %q", rows)
		}
		info, err = c.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName, flightsql.SqlInfoFlightSqlServerReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		if _, rows := readInfo(ctx, t, info, onConn); len(rows) != 2 || !strings.Contains(strings.Join(rows, " "), "iceflight") {
			t.Errorf("GetSqlInfo = %q", rows)
		}
		info, err = c.GetXdbcTypeInfo(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, rows := readInfo(ctx, t, info, onConn); len(rows) < 10 {
			t.Errorf("GetXdbcTypeInfo answered %d types", len(rows))
		}
		info, err = c.GetPrimaryKeys(ctx, flightsql.TableRef{Table: "trips"})
		if err != nil {
			t.Fatal(err)
		}
		if _, rows := readInfo(ctx, t, info, onConn); len(rows) != 0 {
			t.Errorf("GetPrimaryKeys = %q, want none", rows)
		}
	})

	t.Run("bad statements say what is wrong", func(t *testing.T) {
		for _, tc := range []struct {
			sql  string
			code codes.Code
			says string
		}{
			{"SELECT id FROM samples.trips WHERE fare >", codes.InvalidArgument, "position 42"},
			{"SELECT id FROM samples.trip", codes.NotFound, "did you mean samples.trips"},
			{"SELECT vendor, count(*) FROM samples.trips GROUP BY vendor", codes.Unimplemented, "GROUP BY"},
		} {
			_, err := c.Execute(ctx, tc.sql)
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%s: %v, want %v saying %q", tc.sql, err, tc.code, tc.says)
			}
		}
	})
}

// readHistory returns the first snapshot of samples.history, which later
// snapshots grew.
func readHistory(ctx context.Context, t *testing.T, c *flightsql.Client) int64 {
	t.Helper()
	res, err := c.Client.DoAction(ctx, &flight.Action{Type: "snapshots", Body: []byte(`{"table": "samples.history"}`)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := res.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var snaps []actions.Snapshot
	if err := json.Unmarshal(r.Body, &snaps); err != nil || len(snaps) < 2 {
		t.Fatalf("snapshots of samples.history: %s (%v), want two or more", r.Body, err)
	}
	return snaps[0].SnapshotID
}

// TestFlightSQLEndpointsKeepWorkerLocations plans through Flight SQL on a
// coordinator and redeems the endpoints on the workers it placed them on,
// an aliased query's wrapped tickets too.
func TestFlightSQLEndpointsKeepWorkerLocations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	keys := testKeys(t)
	w1 := startServe(t, "--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys)
	w2 := startServe(t, "--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys)
	coord := startServe(t, "--role", "coordinator", "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0",
		"--ticket-keys", keys, "--workers", w1.addr+","+w2.addr)
	c := sqlClient(t, coord.addr)
	workers := map[string]*flightsql.Client{"grpc://" + w1.addr: sqlClient(t, w1.addr), "grpc://" + w2.addr: sqlClient(t, w2.addr)}
	atWorker := func(ep *flight.FlightEndpoint) func(context.Context, *flight.Ticket) (*flight.Reader, error) {
		w := workers[ep.Location[0].Uri]
		if w == nil {
			t.Fatalf("endpoint at %v, not at a worker", ep.Location)
		}
		return func(ctx context.Context, tkt *flight.Ticket) (*flight.Reader, error) { return w.DoGet(ctx, tkt) }
	}
	for _, sql := range []string{"SELECT id, fare FROM samples.trips", "SELECT id AS trip, fare FROM samples.trips"} {
		info, err := c.Execute(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Endpoint) == 0 {
			t.Fatalf("%s: no endpoints", sql)
		}
		_, rows := readInfo(ctx, t, info, atWorker)
		if int64(len(rows)) != 20000 {
			t.Errorf("%s: %d rows from the workers, want samples.trips's 20000", sql, len(rows))
		}
	}
}

// checkSQL answers sql through the Flight SQL client c, redeeming on its
// own connection, and compares the rows with the plain protocol's answer
// to plainCmd on fc; an empty plainCmd marks the COUNT(*) of
// samples.pos_deletes_rowgroups, compared with the rows fc streams.
func checkSQL(ctx context.Context, t *testing.T, c *flightsql.Client, fc flight.Client, sql, plainCmd string) {
	t.Helper()
	info, err := c.Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	_, got := readInfo(ctx, t, info, func(*flight.FlightEndpoint) func(context.Context, *flight.Ticket) (*flight.Reader, error) {
		return func(ctx context.Context, tkt *flight.Ticket) (*flight.Reader, error) { return c.DoGet(ctx, tkt) }
	})
	if plainCmd == "" {
		n := len(plainRows(ctx, t, fc, `{"table": "samples.pos_deletes_rowgroups"}`))
		if fmt.Sprint(got) != fmt.Sprintf("[%d]", n) {
			t.Errorf("COUNT(*) = %v, want [%d] (the rows the plain protocol streams, deletes applied)", got, n)
		}
		return
	}
	want := plainRows(ctx, t, fc, plainCmd)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("%d rows through Flight SQL, %d through the plain protocol (equal: %v)", len(got), len(want), slices.Equal(got, want))
	}
}

// TestFlightSQLAtManifestLevel answers SQL through a server that plans
// every scan at the manifest level, and one that plans every scan's groups
// in parallel, and compares with the plain protocol's file-level answers
// of a server with the default threshold.
func TestFlightSQLAtManifestLevel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	plain := dial(t, startServe(t, "--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0").addr)
	for _, level := range []struct {
		name  string
		flags []string
	}{{"manifest tickets", manifestLevel}, {"groups in parallel", filesInParallel}} {
		s := startServe(t, append([]string{"--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0"}, level.flags...)...)
		c := sqlClient(t, s.addr)
		history := readHistory(ctx, t, c)
		for _, tc := range []struct{ sql, plain string }{
			{"SELECT * FROM samples.trips", `{"table": "samples.trips"}`},
			{"SELECT id, fare FROM samples.trips WHERE fare > 10 AND vendor IN ('NYC', 'CMT')", `{"table": "samples.trips", "columns": ["id", "fare"], "filter": "fare > 10 AND vendor IN ('NYC', 'CMT')"}`},
			{"SELECT * FROM samples.eq_deletes_evolved", `{"table": "samples.eq_deletes_evolved"}`},
			{"SELECT * FROM samples.dv_many_files", `{"table": "samples.dv_many_files"}`},
			{fmt.Sprintf("SELECT * FROM samples.history FOR SYSTEM_VERSION AS OF %d", history), fmt.Sprintf(`{"table": "samples.history", "snapshot_id": %d}`, history)},
			{"SELECT COUNT(*) FROM samples.pos_deletes_rowgroups", ""},
		} {
			t.Run(level.name+": "+tc.sql, func(t *testing.T) { checkSQL(ctx, t, c, plain, tc.sql, tc.plain) })
		}
	}
}
