package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	iceflight "github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/writer"
)

// memWriter is a writer that keeps, per table, the ids appended to it and
// the last request of each kind, so the client's calls can be checked
// end to end through the real service.
type memWriter struct {
	mu      sync.Mutex
	ids     map[string][]int64
	schemas map[string]*arrow.Schema
	last    map[string]any
	ns      map[string]bool
}

func newMemWriter() *memWriter {
	return &memWriter{ids: map[string][]int64{}, schemas: map[string]*arrow.Schema{}, last: map[string]any{}, ns: map[string]bool{}}
}

func (m *memWriter) CreateTable(_ context.Context, id catalog.Identifier, req writer.CreateTable) (*catalog.Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.schemas[id.String()]; ok && !req.IfNotExists {
		return nil, fmt.Errorf("create %s: %w", id, catalog.ErrTableExists)
	}
	m.schemas[id.String()], m.last["create"] = req.Schema, req
	return &catalog.Table{Identifier: id, MetadataLocation: "mem://" + id.String() + "/v1.metadata.json"}, nil
}

func (m *memWriter) Write(_ context.Context, id catalog.Identifier, req writer.WriteRequest, rows array.RecordReader) (*writer.Result, error) {
	m.mu.Lock()
	schema := m.schemas[id.String()]
	m.mu.Unlock()
	if schema == nil {
		return nil, fmt.Errorf("load %s: %w", id, catalog.ErrTableNotFound)
	}
	if !rows.Schema().Equal(schema) {
		return nil, fmt.Errorf("stream schema %s: %w", rows.Schema(), errMismatch)
	}
	var got []int64
	for rows.Next() {
		got = append(got, rows.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.Mode == writer.Overwrite {
		m.ids[id.String()] = nil
	}
	m.ids[id.String()] = append(m.ids[id.String()], got...)
	m.last["write"] = req
	return &writer.Result{SnapshotID: int64(len(m.ids[id.String()])), Operation: "append", AddedRecords: int64(len(got)), Attempts: 1}, nil
}

var errMismatch = errors.New("schema does not match the table")

func (m *memWriter) Delete(_ context.Context, _ catalog.Identifier, req writer.DeleteRequest) (*writer.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last["delete"] = req
	return &writer.Result{SnapshotID: 9, Operation: "delete", DeletedRecords: 2, DryRun: req.DryRun}, nil
}

func (m *memWriter) Alter(_ context.Context, id catalog.Identifier, req writer.AlterRequest) (*catalog.Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last["alter"] = req
	return &catalog.Table{Identifier: id, MetadataLocation: "mem://v2.metadata.json"}, nil
}

func (m *memWriter) maint(kind string, req any) (*writer.MaintenanceResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last[kind] = req
	return &writer.MaintenanceResult{Removed: []writer.RemovedFile{{Location: "mem://t/data/a.parquet", Kind: "data"}}, Counts: map[string]int{"data": 1}}, nil
}

func (m *memWriter) ExpireSnapshots(_ context.Context, _ catalog.Identifier, req writer.ExpireRequest) (*writer.MaintenanceResult, error) {
	return m.maint("expire", req)
}

func (m *memWriter) RemoveOrphanFiles(_ context.Context, _ catalog.Identifier, req writer.OrphanRequest) (*writer.MaintenanceResult, error) {
	return m.maint("orphans", req)
}

func (m *memWriter) RewriteDataFiles(_ context.Context, _ catalog.Identifier, req writer.CompactRequest) (*writer.MaintenanceResult, error) {
	return m.maint("compact", req)
}

func (m *memWriter) RewriteManifests(_ context.Context, _ catalog.Identifier, req writer.RewriteManifestsRequest) (*writer.MaintenanceResult, error) {
	return m.maint("manifests", req)
}

func (m *memWriter) ListNamespaces(context.Context, []string) ([][]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][]string
	for ns := range m.ns {
		out = append(out, strings.Split(ns, "."))
	}
	return out, nil
}

func (m *memWriter) CreateNamespace(_ context.Context, ns []string, _ map[string]string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := strings.Join(ns, ".")
	if m.ns[name] {
		return fmt.Errorf("namespace %s: %w", name, catalog.ErrNamespaceExists)
	}
	m.ns[name] = true
	return nil
}

func (m *memWriter) DropNamespace(_ context.Context, ns []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.ns, strings.Join(ns, "."))
	return nil
}

func (m *memWriter) DropTable(_ context.Context, id catalog.Identifier, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.schemas, id.String())
	return nil
}

// serveWriter starts the real service with w as its writer.
func serveWriter(t *testing.T, w *memWriter) string {
	t.Helper()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := engine.NewRandomSigner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv := flight.NewServerWithMiddleware(nil)
	srv.RegisterFlightService(iceflight.NewService(engine.New(cat, reader.New(fileio.NewResolver()), signer,
		engine.WithAllocator(mem), engine.WithLogger(slog.New(slog.DiscardHandler))), iceflight.WithWriter(w, w)))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.InitListener(lis)
	go srv.Serve()
	t.Cleanup(func() {
		srv.Shutdown()
		mem.AssertSize(t, 0)
	})
	return "grpc://" + lis.Addr().String()
}

var idSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)

// idReader is a record reader of batches of consecutive ids.
func idReader(t *testing.T, mem memory.Allocator, start int64, sizes ...int) array.RecordReader {
	t.Helper()
	var recs []arrow.RecordBatch
	for _, n := range sizes {
		b := array.NewInt64Builder(mem)
		for range n {
			b.Append(start)
			start++
		}
		col := b.NewArray()
		recs = append(recs, array.NewRecordBatch(idSchema, []arrow.Array{col}, int64(n)))
		col.Release()
		b.Release()
	}
	rdr, err := array.NewRecordReader(idSchema, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	t.Cleanup(rdr.Release)
	return rdr
}

func TestClientWrites(t *testing.T) {
	t.Parallel()
	w := newMemWriter()
	c, mem := dial(t, serveWriter(t, w))
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, "lake", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, "lake", nil); status.Code(err) != codes.AlreadyExists {
		t.Errorf("second CreateNamespace = %v, want AlreadyExists", err)
	}
	if ns, err := c.ListNamespaces(ctx, ""); err != nil || len(ns) != 1 || ns[0] != "lake" {
		t.Errorf("ListNamespaces = %v, %v", ns, err)
	}
	info, err := c.CreateTable(ctx, "lake.t", idSchema, CreateTableOptions{PartitionBy: []any{"bucket(4, id)"}, FormatVersion: 3})
	if err != nil || info.Table != "lake.t" {
		t.Fatalf("CreateTable = %+v, %v", info, err)
	}
	if req := w.last["create"].(writer.CreateTable); len(req.PartitionBy) != 1 || req.PartitionBy[0].Transform != "bucket[4]" || req.FormatVersion != 3 {
		t.Errorf("create request %+v", req)
	}
	if _, err := c.CreateTable(ctx, "lake.t", idSchema, CreateTableOptions{}); status.Code(err) != codes.AlreadyExists {
		t.Errorf("second CreateTable = %v, want AlreadyExists", err)
	}
	res, err := c.Append(ctx, "lake.t", idReader(t, mem, 0, 3, 0, 4))
	if err != nil || res.AddedRecords != 7 {
		t.Fatalf("Append = %+v, %v", res, err)
	}
	// A table with no rows to send still gets its schema and a commit.
	if res, err := c.Append(ctx, "lake.t", idReader(t, mem, 0)); err != nil || res.AddedRecords != 0 {
		t.Errorf("empty Append = %+v, %v", res, err)
	}
	if _, err := c.Overwrite(ctx, "lake.t", "id >= 0", idReader(t, mem, 100, 2)); err != nil {
		t.Fatal(err)
	}
	if got := w.ids["lake.t"]; fmt.Sprint(got) != "[100 101]" {
		t.Errorf("table holds %v after the overwrite, want [100 101]", got)
	}
	if req := w.last["write"].(writer.WriteRequest); req.Mode != writer.Overwrite || req.Filter != "id >= 0" {
		t.Errorf("overwrite request %+v", req)
	}
	if res, err := c.Delete(ctx, "lake.t", "id = 100", DeleteOptions{DryRun: true}); err != nil || res.DeletedRecords != 2 || !res.DryRun {
		t.Errorf("Delete = %+v, %v", res, err)
	}
	typ := []byte(`"string"`)
	if _, err := c.Alter(ctx, "lake.t", AlterRequest{Schema: []SchemaChange{{Op: "add_column", Path: "note", Type: typ}}}); err != nil {
		t.Fatal(err)
	}
	if req := w.last["alter"].(writer.AlterRequest); len(req.Schema) != 1 || req.Schema[0].Path != "note" {
		t.Errorf("alter request %+v", req)
	}
	older := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m, err := c.ExpireSnapshots(ctx, "lake.t", ExpireOptions{OlderThan: older, RetainLast: 3})
	if err != nil || len(m.Removed) != 1 {
		t.Fatalf("ExpireSnapshots = %+v, %v", m, err)
	}
	if req := w.last["expire"].(writer.ExpireRequest); !req.OlderThan.Equal(older) || req.RetainLast != 3 {
		t.Errorf("expire request %+v", req)
	}
	if _, err := c.RemoveOrphanFiles(ctx, "lake.t", OrphanOptions{DryRun: true}); err != nil {
		t.Error(err)
	}
	if _, err := c.Compact(ctx, "lake.t", CompactOptions{TargetFileSize: 1 << 20}); err != nil {
		t.Error(err)
	}
	if _, err := c.RewriteManifests(ctx, "lake.t", 0, false); err != nil {
		t.Error(err)
	}
	if err := c.DropTable(ctx, "lake.t", false); err != nil {
		t.Error(err)
	}
	if err := c.DropNamespace(ctx, "lake"); err != nil {
		t.Error(err)
	}
}

func TestClientAppendErrors(t *testing.T) {
	t.Parallel()
	w := newMemWriter()
	c, mem := dial(t, serveWriter(t, w))
	ctx := context.Background()
	if _, err := c.Append(ctx, "lake.none", idReader(t, mem, 0, 2)); status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), "lake.none") {
		t.Errorf("Append to a missing table = %v, want NotFound naming it", err)
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
	if _, err := c.CreateTable(ctx, "lake.s", other, CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake's mismatch is not the writer's sentinel: it surfaces as the
	// server's Internal, but still as an error of the table's DoPut.
	if _, err := c.Append(ctx, "lake.s", idReader(t, mem, 0, 2)); err == nil || !strings.Contains(err.Error(), "lake.s") {
		t.Errorf("Append of another schema = %v, want an error naming the table", err)
	}
	// Rows that fail midway cancel the call: nothing is committed.
	if _, err := c.CreateTable(ctx, "lake.t", idSchema, CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := &failingReader{RecordReader: idReader(t, mem, 0, 2, 2), after: 1}
	if _, err := c.Append(ctx, "lake.t", bad); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Append of failing rows = %v, want the rows' error", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if got := w.ids["lake.t"]; len(got) != 0 || w.last["write"] != nil {
		t.Errorf("table holds %v after a failed append", got)
	}
}

// failingReader fails after a number of batches.
type failingReader struct {
	array.RecordReader
	after, n int
}

func (f *failingReader) Next() bool {
	if f.n >= f.after {
		return false
	}
	f.n++
	return f.RecordReader.Next()
}

func (f *failingReader) Err() error {
	if f.n >= f.after {
		return errors.New("disk on fire")
	}
	return nil
}

// TestClientAppendSplitsLargeBatches appends one 8 MiB batch to a server
// with gRPC's default 4 MiB bound on received messages: sent whole, it
// would be refused with ResourceExhausted.
func TestClientAppendSplitsLargeBatches(t *testing.T) {
	t.Parallel()
	w := newMemWriter()
	c, mem := dial(t, serveWriter(t, w))
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, "lake.big", idSchema, CreateTableOptions{}); err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	res, err := c.Append(ctx, "lake.big", idReader(t, mem, 0, n))
	if err != nil || res.AddedRecords != n {
		t.Fatalf("Append of one %d-row batch = %+v, %v", n, res, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if got := w.ids["lake.big"]; len(got) != n || got[0] != 0 || got[n-1] != n-1 {
		t.Errorf("table holds %d ids, want 0..%d in order", len(got), n-1)
	}
}
