package flight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

type harness struct {
	addr   string
	client flight.Client
	reader *reader.Reader
	data   *testutil.CountingIO
	mem    *memory.CheckedAllocator
}

// newService is the Service over an engine of cat, rd and signer.
func newService(cat catalog.Catalog, rd *reader.Reader, signer *engine.Signer, opts ...engine.Option) *Service {
	return NewService(engine.New(cat, rd, signer, opts...))
}

// sessionSecret signs the session tokens of the tests' authenticators.
var sessionSecret = []byte("0123456789abcdef0123456789abcdef")

// newCredentials parses the texts of a tokens file and a users file.
func newCredentials(t *testing.T, tokens, users string) *engine.Credentials {
	t.Helper()
	c, err := engine.ParseCredentials(tokens, users)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testSigner signs with a key of 32 bytes of key: the harness's is 7.
func testSigner(t testing.TB, key byte) *engine.Signer {
	t.Helper()
	k := bytes.Repeat([]byte{key}, 32)
	s, err := engine.NewSigner(k, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var warehouse = filepath.Join("..", "testdata", "warehouse")

// serve starts the service on a loopback port with a checked allocator and
// a counting FileIO for data files. The allocator is over the reader's
// recycling pool, flightd's own, and the reader validates every batch.
func serve(t *testing.T, batchRows int, opts ...engine.Option) *harness {
	t.Helper()
	return serveWith(t, batchRows, nil, opts...)
}

// serveWith is serve with gRPC server options (interceptors, say).
func serveWith(t *testing.T, batchRows int, grpcOpts []grpc.ServerOption, opts ...engine.Option) *harness {
	t.Helper()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	return serveCatalogWith(t, cat, batchRows, grpcOpts, nil, opts...)
}

// serveCatalog is serve over the tables of cat.
func serveCatalog(t *testing.T, cat catalog.Catalog, batchRows int, opts ...engine.Option) *harness {
	t.Helper()
	return serveCatalogWith(t, cat, batchRows, nil, nil, opts...)
}

// serveCatalogWith is serveCatalog with gRPC server options and the
// Service's own options.
func serveCatalogWith(t *testing.T, cat catalog.Catalog, batchRows int, grpcOpts []grpc.ServerOption, svcOpts []Option, opts ...engine.Option) *harness {
	t.Helper()
	signer := testSigner(t, 7)
	h := &harness{data: &testutil.CountingIO{Base: fileio.NewResolver()}, mem: memory.NewCheckedAllocator(reader.NewPoolAllocator())}
	rd := reader.New(h.data, reader.WithAllocator(h.mem), reader.WithBatchSize(batchRows), reader.WithValidation(true))
	h.reader = rd
	srv := flight.NewServerWithMiddleware(nil, grpcOpts...)
	srv.RegisterFlightService(NewService(engine.New(cat, rd, signer, append([]engine.Option{engine.WithAllocator(h.mem)}, opts...)...), svcOpts...))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.InitListener(lis)
	h.addr = lis.Addr().String()
	go srv.Serve()
	h.client, err = flight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.client.Close()
		srv.Shutdown()
		h.mem.AssertSize(t, 0)
	})
	return h
}

// readAll reads every endpoint and returns the row count.
func (h *harness) readAll(ctx context.Context, t *testing.T, info *flight.FlightInfo) int64 {
	t.Helper()
	var rows int64
	h.each(ctx, t, info, func(rec arrow.RecordBatch) { rows += rec.NumRows() })
	return rows
}

// each reads every endpoint and calls fn for each batch.
func (h *harness) each(ctx context.Context, t *testing.T, info *flight.FlightInfo, fn func(arrow.RecordBatch)) {
	t.Helper()
	for _, ep := range info.Endpoint {
		stream, err := h.client.DoGet(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := flight.NewRecordReader(stream)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			fn(rdr.RecordBatch())
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestDoGetStreamsEveryRowAndReleasesMemory(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Endpoint) < 2 {
		t.Errorf("a 4-file table planned into %d endpoint(s), want several", len(info.Endpoint))
	}
	var stats map[string]any
	if err := json.Unmarshal(info.AppMetadata, &stats); err != nil || stats["data_files"] != float64(4) {
		t.Errorf("plan statistics %s (%v)", info.AppMetadata, err)
	}
	if rows := h.readAll(ctx, t, info); rows != info.TotalRecords || rows == 0 {
		t.Fatalf("read %d rows, FlightInfo promised %d", rows, info.TotalRecords)
	}
	if n := h.data.InUse.Load(); n != 0 {
		t.Errorf("%d data files left open", n)
	}
}

func TestCancelledDoGetStopsReading(t *testing.T) {
	h := serve(t, 10) // 10-row batches: the table is thousands of batches long
	info, err := h.client.GetFlightInfo(context.Background(), testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "max_endpoints": 1}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := h.client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := flight.NewRecordReader(stream, ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatal(err)
	}
	if !rdr.Next() {
		t.Fatalf("no first batch: %v", rdr.Err())
	}
	cancel()
	rdr.Release()
	// The server must notice and close the file it was reading. The issue
	// asks for under a second; the test allows 5 so a loaded CI machine
	// does not fail it, and logs what it took.
	cancelled := time.Now()
	deadline := cancelled.Add(5 * time.Second)
	for h.data.InUse.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the data file is still open 5s after the client went away")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("data file closed %v after the client cancelled", time.Since(cancelled).Round(time.Millisecond))
	reads := h.data.Reads.Load()
	time.Sleep(100 * time.Millisecond)
	if after := h.data.Reads.Load(); after != reads {
		t.Fatalf("reads went on after the stream stopped: %d then %d", reads, after)
	}
	if total := info.TotalRecords; h.data.Opens.Load() >= 4 {
		t.Fatalf("the server opened every file of a %d-row table for a cancelled stream", total)
	}
}

func TestTamperedTicketOpensNoFile(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples.trips"))
	if err != nil {
		t.Fatal(err)
	}
	raw := append([]byte(nil), info.Endpoint[0].Ticket.Ticket...)
	raw[len(raw)/2] ^= 0x40
	stream, err := h.client.DoGet(ctx, &flight.Ticket{Ticket: raw})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.PermissionDenied {
		t.Fatalf("tampered ticket: %v, want PermissionDenied", err)
	}
	if n := h.data.Opens.Load(); n != 0 {
		t.Fatalf("a tampered ticket opened %d data files", n)
	}
}

func TestErrorCodes(t *testing.T) {
	h := serve(t, 1000)
	if _, err := os.Stat(filepath.Join(warehouse, "samples", "history")); errors.Is(err, os.ErrNotExist) {
		t.Skip("sample warehouse missing")
	}
	cases := []struct {
		name string
		desc *flight.FlightDescriptor
		want codes.Code
	}{
		{"unknown table is NotFound", testutil.PathDesc("samples", "nope"), codes.NotFound},
		{"a .. identifier is InvalidArgument", testutil.PathDesc("..", "etc"), codes.InvalidArgument},
		{"an absolute path identifier is InvalidArgument", testutil.PathDesc("/etc/passwd"), codes.InvalidArgument},
		{"unknown snapshot is NotFound", testutil.CmdDesc(t, map[string]any{"table": "samples.history", "snapshot_id": 1}), codes.NotFound},
		{"a time before the table is NotFound", testutil.CmdDesc(t, map[string]any{"table": "samples.history", "as_of_timestamp_ms": 1}), codes.NotFound},
		{"unknown ref is NotFound", testutil.CmdDesc(t, map[string]any{"table": "samples.history", "ref": "nope"}), codes.NotFound},
		{"unknown column is InvalidArgument", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "columns": []string{"nope"}}), codes.InvalidArgument},
		{"unknown key is InvalidArgument", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "colums": []string{"id"}}), codes.InvalidArgument},
		{"a filter syntax error is InvalidArgument", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "filter": "id >"}), codes.InvalidArgument},
		{"a filter on an unknown column is InvalidArgument", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "filter": "nope = 1"}), codes.InvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.client.GetFlightInfo(context.Background(), tc.desc)
			if status.Code(err) != tc.want {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGetSchemaAndListFlights(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	res, err := h.client.GetSchema(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "columns": []string{"fare", "id"}}))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := flight.DeserializeSchema(res.Schema, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if schema.NumFields() != 2 || schema.Field(0).Name != "fare" || schema.Field(1).Name != "id" {
		t.Fatalf("projected schema %v", schema)
	}
	if id, _ := schema.Field(1).Metadata.GetValue("PARQUET:field_id"); id != "1" {
		t.Fatalf("id column carries field id %q, want 1", id)
	}
	names := map[string]int64{}
	for _, info := range h.listFlights(ctx, t) {
		names[info.FlightDescriptor.Path[0]+"."+info.FlightDescriptor.Path[1]] = info.TotalRecords
	}
	if names["samples.trips"] <= 0 || len(names) < 6 {
		t.Fatalf("ListFlights: %v", names)
	}
}

func TestSplitsReadEveryRowOnce(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	whole, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	split, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "target_split_bytes": 1, "columns": []string{"id"}}))
	if err != nil {
		t.Fatal(err)
	}
	var wholeStats, splitStats struct{ Tasks int }
	json.Unmarshal(whole.AppMetadata, &wholeStats)
	json.Unmarshal(split.AppMetadata, &splitStats)
	if splitStats.Tasks <= wholeStats.Tasks {
		t.Fatalf("target_split_bytes=1 planned %d tasks, the default %d: the multi-row-group file was not split", splitStats.Tasks, wholeStats.Tasks)
	}
	seen := map[int64]int{}
	h.each(ctx, t, split, func(rec arrow.RecordBatch) {
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			seen[ids.Value(i)]++
		}
	})
	if int64(len(seen)) != whole.TotalRecords {
		t.Fatalf("split scan saw %d distinct ids, the table has %d rows", len(seen), whole.TotalRecords)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("id %d read %d times", id, n)
		}
	}
}

func TestActions(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	do := func(typ, body string) ([]byte, error) {
		stream, err := h.client.DoAction(ctx, &flight.Action{Type: typ, Body: []byte(body)})
		if err != nil {
			return nil, err
		}
		res, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		return res.Body, nil
	}
	body, err := do(ActionSnapshots, `{"table": "samples.history"}`)
	if err != nil {
		t.Fatal(err)
	}
	// Decoded strictly: the answer has no key the shared definition lacks.
	var snaps []actions.Snapshot
	if err := strictjson.Decode(body, &snaps); err != nil || len(snaps) < 3 || !snaps[len(snaps)-1].Current || snaps[0].Summary["operation"] == "" {
		t.Fatalf("snapshots of a 3-snapshot table: %s (%v)", body, err)
	}
	// Every listed snapshot can be read by id.
	for _, s := range snaps {
		if _, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.history", "snapshot_id": s.SnapshotID})); err != nil {
			t.Errorf("snapshot %d listed but not readable: %v", s.SnapshotID, err)
		}
	}
	body, err = do(ActionRefs, `{"table": "samples.history"}`)
	var refs map[string]actions.Ref
	if err != nil || strictjson.Decode(body, &refs) != nil || refs["main"].SnapshotID != snaps[len(snaps)-1].SnapshotID {
		t.Fatalf("refs: %s (%v)", body, err)
	}
	if _, err := do(ActionRefresh, `{}`); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if _, err := do("nope", ``); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unknown action: %v, want InvalidArgument", err)
	}
	if _, err := do(ActionSnapshots, `{"table": "samples.history", "x": 1}`); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unknown body key: %v, want InvalidArgument", err)
	}
}

func TestLimitStopsTheStream(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		cmd    map[string]any
		maxRow int64
	}{
		{"a limit below one batch", map[string]any{"table": "samples.trips", "limit": 7}, 7},
		{"a limit across batches and files", map[string]any{"table": "samples.trips", "limit": 12345}, 12345},
		{"a limit with a filter", map[string]any{"table": "samples.trips", "limit": 10, "filter": "passengers >= 2"}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, tc.cmd))
			if err != nil {
				t.Fatal(err)
			}
			if len(info.Endpoint) != 1 {
				t.Fatalf("a limited scan has %d endpoints, want 1", len(info.Endpoint))
			}
			if rows := h.readAll(ctx, t, info); rows != tc.maxRow {
				t.Fatalf("read %d rows, want %d", rows, tc.maxRow)
			}
		})
	}
}

// TestPruningLevels proves each pruning level by its statistics: the
// files a filter skipped by partition and by metrics in planning, and the
// row groups the reader skipped by Parquet statistics.
func TestPruningLevels(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name                          string
		table, filter                 string
		byPartition, byMetrics, files int
		rowGroupsSkipped              int64
	}{
		{"a one-day filter keeps one day partition", "samples.events_by_day",
			"ts >= TIMESTAMP '2024-03-02 00:00:00' AND ts < TIMESTAMP '2024-03-03 00:00:00'", 4, 0, 1, 0},
		{"an identity-partition filter keeps one partition", "samples.events_by_kind", "kind = 'click'", 2, 0, 1, 0},
		{"an id range skips files by their bounds and row groups by Parquet statistics", "samples.trips",
			"id >= 6000 AND id < 6100", 0, 3, 1, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := serve(t, 1000)
			info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": tc.table, "filter": tc.filter}))
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				ByPartition int `json:"data_files_skipped_by_partition"`
				ByMetrics   int `json:"data_files_skipped_by_metrics"`
				Files       int `json:"data_files"`
			}
			if err := json.Unmarshal(info.AppMetadata, &st); err != nil {
				t.Fatal(err)
			}
			if st.ByPartition != tc.byPartition || st.ByMetrics != tc.byMetrics || st.Files != tc.files {
				t.Fatalf("skipped by partition %d, by metrics %d, files kept %d; want %d, %d, %d",
					st.ByPartition, st.ByMetrics, st.Files, tc.byPartition, tc.byMetrics, tc.files)
			}
			if rows := h.readAll(ctx, t, info); rows == 0 {
				t.Fatal("the filter matched no row")
			}
			rs := h.reader.Stats()
			if rs.RowGroupsSkipped != tc.rowGroupsSkipped {
				t.Fatalf("reader skipped %d of %d row groups, want %d skipped", rs.RowGroupsSkipped, rs.RowGroupsSkipped+rs.RowGroupsRead, tc.rowGroupsSkipped)
			}
		})
	}
}

func TestMetadataColumns(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.events_by_kind",
		"columns": []string{"kind", "_partition", "_file", "_pos", "_spec_id"}}))
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	h.each(ctx, t, info, func(rec arrow.RecordBatch) {
		kind := rec.Column(0).(*array.String)
		part := rec.Column(1).(*array.Struct).Field(0).(*array.String)
		file := rec.Column(2).(*array.String)
		pos := rec.Column(3).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			if part.Value(i) != kind.Value(i) {
				t.Fatalf("row %d: _partition.kind %q, kind %q", i, part.Value(i), kind.Value(i))
			}
			if want := "kind=" + kind.Value(i); !strings.Contains(file.Value(i), want) {
				t.Fatalf("row %d: _file %q is not in the %s partition", i, file.Value(i), want)
			}
			if pos.Value(i) < 0 {
				t.Fatalf("row %d: _pos %d", i, pos.Value(i))
			}
			rows++
		}
	})
	if int64(rows) != info.TotalRecords {
		t.Fatalf("read %d rows, want %d", rows, info.TotalRecords)
	}
}
