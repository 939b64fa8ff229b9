package flight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/writer"
	"github.com/iceflight/iceflight/writer/datafile"
)

// fakeWriter records what the service asks of a writer. Its Write reads
// the whole stream and commits (records a commit) only when the stream
// ended cleanly, as the real writer must.
type fakeWriter struct {
	mu        sync.Mutex
	err       error // returned by every call when set
	calls     []string
	write     writer.WriteRequest
	rows      int64
	streamErr error
	commits   int
	create    writer.CreateTable
	del       writer.DeleteRequest
	alter     writer.AlterRequest
	expire    writer.ExpireRequest
	orphan    writer.OrphanRequest
	compact   writer.CompactRequest
	manifests writer.RewriteManifestsRequest
	maint     *writer.MaintenanceResult
	// wrote is closed when a Write returns.
	wrote chan struct{}

	nsCreated []string
	dropped   []string
	listed    [][]string
}

func newFakeWriter() *fakeWriter { return &fakeWriter{wrote: make(chan struct{}, 16)} }

func (f *fakeWriter) record(call string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	return f.err
}

func (f *fakeWriter) table(id catalog.Identifier) *catalog.Table {
	return &catalog.Table{Identifier: id, MetadataLocation: "mem://" + id.String() + "/v1.metadata.json"}
}

func (f *fakeWriter) CreateTable(_ context.Context, id catalog.Identifier, req writer.CreateTable) (*catalog.Table, error) {
	f.create = req
	if err := f.record("create_table " + id.String()); err != nil {
		return nil, err
	}
	return f.table(id), nil
}

func (f *fakeWriter) Write(ctx context.Context, id catalog.Identifier, req writer.WriteRequest, rows array.RecordReader) (*writer.Result, error) {
	defer func() { f.wrote <- struct{}{} }()
	f.mu.Lock()
	f.write = req
	f.mu.Unlock()
	var n int64
	for rows.Next() {
		n += rows.RecordBatch().NumRows()
	}
	f.mu.Lock()
	f.rows, f.streamErr = n, rows.Err()
	f.mu.Unlock()
	if err := f.record("write " + id.String()); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stream: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.commits++
	f.mu.Unlock()
	return &writer.Result{SnapshotID: 42, SequenceNumber: 3, Operation: "append", AddedDataFiles: 1, AddedRecords: n, Attempts: 1}, nil
}

func (f *fakeWriter) Delete(_ context.Context, id catalog.Identifier, req writer.DeleteRequest) (*writer.Result, error) {
	f.del = req
	if err := f.record("delete " + id.String()); err != nil {
		return nil, err
	}
	return &writer.Result{SnapshotID: 43, Operation: "delete", DeletedRecords: 7, DryRun: req.DryRun}, nil
}

func (f *fakeWriter) Alter(_ context.Context, id catalog.Identifier, req writer.AlterRequest) (*catalog.Table, error) {
	f.alter = req
	if err := f.record("alter_table " + id.String()); err != nil {
		return nil, err
	}
	return f.table(id), nil
}

func (f *fakeWriter) maintenance(call string, id catalog.Identifier) (*writer.MaintenanceResult, error) {
	if err := f.record(call + " " + id.String()); err != nil {
		return nil, err
	}
	if f.maint != nil {
		return f.maint, nil
	}
	return &writer.MaintenanceResult{Removed: []writer.RemovedFile{{Location: "s3://b/t/data/x.parquet", Kind: "data", Size: 10}}, Counts: map[string]int{"data": 1}}, nil
}

func (f *fakeWriter) ExpireSnapshots(_ context.Context, id catalog.Identifier, req writer.ExpireRequest) (*writer.MaintenanceResult, error) {
	f.expire = req
	return f.maintenance("expire_snapshots", id)
}

func (f *fakeWriter) RemoveOrphanFiles(_ context.Context, id catalog.Identifier, req writer.OrphanRequest) (*writer.MaintenanceResult, error) {
	f.orphan = req
	return f.maintenance("remove_orphan_files", id)
}

func (f *fakeWriter) RewriteDataFiles(_ context.Context, id catalog.Identifier, req writer.CompactRequest) (*writer.MaintenanceResult, error) {
	f.compact = req
	return f.maintenance("rewrite_data_files", id)
}

func (f *fakeWriter) RewriteManifests(_ context.Context, id catalog.Identifier, req writer.RewriteManifestsRequest) (*writer.MaintenanceResult, error) {
	f.manifests = req
	return f.maintenance("rewrite_manifests", id)
}

func (f *fakeWriter) ListNamespaces(_ context.Context, parent []string) ([][]string, error) {
	if err := f.record(fmt.Sprint("list_namespaces ", parent)); err != nil {
		return nil, err
	}
	return f.listed, nil
}

func (f *fakeWriter) CreateNamespace(_ context.Context, ns []string, _ map[string]string) error {
	f.nsCreated = append(f.nsCreated, strings.Join(ns, "."))
	return f.record("create_namespace " + strings.Join(ns, "."))
}

func (f *fakeWriter) DropNamespace(_ context.Context, ns []string) error {
	return f.record("drop_namespace " + strings.Join(ns, "."))
}

func (f *fakeWriter) DropTable(_ context.Context, id catalog.Identifier, purge bool) error {
	f.dropped = append(f.dropped, fmt.Sprint(id, purge))
	return f.record("drop_table " + id.String())
}

func (f *fakeWriter) callList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// refreshCounter is a catalog that counts the refreshes asked of it.
type refreshCounter struct {
	catalog.Catalog
	mu        sync.Mutex
	refreshed []string
}

func (r *refreshCounter) Refresh(id catalog.Identifier) {
	r.mu.Lock()
	r.refreshed = append(r.refreshed, id.String())
	r.mu.Unlock()
}

// serveWriter serves the sample warehouse with fw as the writer.
func serveWriter(t *testing.T, fw *fakeWriter, grpcOpts []grpc.ServerOption, svcOpts []Option, opts ...engine.Option) (*harness, *refreshCounter) {
	t.Helper()
	dir, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	cat := &refreshCounter{Catalog: dir}
	return serveCatalogWith(t, cat, 0, grpcOpts, append([]Option{WithWriter(fw, fw)}, svcOpts...), opts...), cat
}

var putSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)

// putBatch is a batch of n ids.
func putBatch(mem memory.Allocator, n int) arrow.RecordBatch {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := range n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(putSchema, []arrow.Array{col}, int64(n))
}

// put sends batches of the given sizes under desc and returns the
// PutResult's app_metadata. With cancelAfter > 0 it cancels the call
// after that many batches instead of closing the stream.
func put(ctx context.Context, t *testing.T, client flight.Client, desc *flight.FlightDescriptor, sizes []int, cancelAfter int) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := client.DoPut(ctx)
	if err != nil {
		return nil, err
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	w := flight.NewRecordWriter(stream, ipc.WithSchema(putSchema), ipc.WithAllocator(mem))
	w.SetFlightDescriptor(desc)
	for i, n := range sizes {
		rec := putBatch(mem, n)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			break // the server ended the call; Recv says why
		}
		if cancelAfter > 0 && i+1 == cancelAfter {
			// Let the batches reach the server before the cancel does.
			time.Sleep(50 * time.Millisecond)
			cancel()
			w.Close()
			_, err := stream.Recv()
			return nil, err
		}
	}
	w.Close()
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	res, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	if _, err := stream.Recv(); err != io.EOF {
		t.Errorf("second Recv = %v, want io.EOF (one PutResult)", err)
	}
	return res.GetAppMetadata(), nil
}

func TestDoPutAppendsAndAnswersTheResult(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, cat := serveWriter(t, fw, nil, nil)
	desc := testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "mode": "append", "snapshot_properties": map[string]string{"job": "nightly"}})
	body, err := put(context.Background(), t, h.client, desc, []int{3, 5, 0, 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var res actions.WriteResult
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatalf("app_metadata %q: %v", body, err)
	}
	if res.SnapshotID != 42 || res.AddedRecords != 10 || res.Operation != "append" {
		t.Errorf("result = %+v, want snapshot 42, 10 records", res)
	}
	if fw.rows != 10 || fw.write.Mode != writer.Append || fw.write.SnapshotProperties["job"] != "nightly" || fw.commits != 1 {
		t.Errorf("writer saw %d rows, request %+v, %d commits", fw.rows, fw.write, fw.commits)
	}
	if got := cat.refreshed; len(got) != 1 || got[0] != "samples.trips" {
		t.Errorf("refreshed %v after the commit, want [samples.trips]", got)
	}
}

func TestDoPutOverwriteAndPathDescriptors(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, nil)
	ctx := context.Background()
	if _, err := put(ctx, t, h.client, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "mode": "overwrite", "filter": "id > 3", "branch": "dev"}), []int{4}, 0); err != nil {
		t.Fatal(err)
	}
	if fw.write.Mode != writer.Overwrite || fw.write.Filter != "id > 3" || fw.write.Branch != "dev" {
		t.Errorf("overwrite request = %+v", fw.write)
	}
	if _, err := put(ctx, t, h.client, testutil.PathDesc("samples", "trips"), []int{1}, 0); err != nil {
		t.Fatal(err)
	}
	if fw.write.Mode != writer.Append || fw.write.Filter != "" {
		t.Errorf("PATH descriptor request = %+v, want an append", fw.write)
	}
}

func TestDoPutRefusesBadDescriptorsBeforeWriting(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, nil)
	for _, tc := range []struct {
		name string
		desc *flight.FlightDescriptor
		want string
	}{
		{"unknown key", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "mdoe": "append"}), "unknown field"},
		{"unknown mode", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "mode": "upsert"}), "upsert"},
		{"filter without overwrite", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "filter": "id = 1"}), "overwrite"},
		{"no table", testutil.CmdDesc(t, map[string]any{"mode": "append"}), "names no table"},
		{"text command", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte("INSERT INTO t")}, "JSON object"},
		{"bad table name", testutil.CmdDesc(t, map[string]any{"table": "samples..trips"}), "samples..trips"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := put(context.Background(), t, h.client, tc.desc, []int{1}, 0)
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DoPut = %v, want InvalidArgument naming %q", err, tc.want)
			}
		})
	}
	if calls := fw.callList(); len(calls) != 0 {
		t.Errorf("writer called %v for bad descriptors", calls)
	}
}

func TestDoPutBrokenStreamCommitsNothing(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, nil)
	desc := testutil.CmdDesc(t, map[string]any{"table": "samples.trips"})
	_, err := put(context.Background(), t, h.client, desc, []int{5, 5, 5, 5}, 2)
	if status.Code(err) != codes.Canceled {
		t.Errorf("cancelled DoPut = %v, want Canceled", err)
	}
	select {
	case <-fw.wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer never saw the stream end")
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.commits != 0 || fw.streamErr == nil {
		t.Errorf("broken stream: %d commits, stream error %v; want none and an error", fw.commits, fw.streamErr)
	}
}

func TestDoPutByteLimit(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, []Option{WithPutLimits(0, 4096)})
	_, err := put(context.Background(), t, h.client, testutil.CmdDesc(t, map[string]any{"table": "samples.trips"}), []int{100, 1000, 1000}, 0)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "4096") {
		t.Errorf("DoPut over the limit = %v, want InvalidArgument naming the limit", err)
	}
	if fw.commits != 0 {
		t.Errorf("%d commits of a stream over the limit", fw.commits)
	}
	// Under the limit the same server takes the stream.
	if _, err := put(context.Background(), t, h.client, testutil.CmdDesc(t, map[string]any{"table": "samples.trips"}), []int{10}, 0); err != nil {
		t.Errorf("small DoPut: %v", err)
	}
}

func TestDoPutErrorCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{fmt.Errorf("column x: %w", datafile.ErrSchemaMismatch), codes.InvalidArgument},
		{fmt.Errorf("after 4 attempts: %w", catalog.ErrCommitConflict), codes.Aborted},
		{fmt.Errorf("catalog went away: %w", catalog.ErrCommitStateUnknown), codes.Unknown},
		{catalog.ErrReadOnly, codes.FailedPrecondition},
		{fmt.Errorf("load: %w", catalog.ErrTableNotFound), codes.NotFound},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			t.Parallel()
			fw := newFakeWriter()
			fw.err = tc.err
			h, cat := serveWriter(t, fw, nil, nil)
			_, err := put(context.Background(), t, h.client, testutil.CmdDesc(t, map[string]any{"table": "samples.trips"}), []int{2}, 0)
			if status.Code(err) != tc.want || !strings.Contains(err.Error(), "samples.trips") {
				t.Errorf("DoPut = %v, want %v naming the table", err, tc.want)
			}
			if len(cat.refreshed) != 0 {
				t.Errorf("refreshed %v after a failed commit", cat.refreshed)
			}
		})
	}
}

func TestWritesRefusedByWorkersAndReadOnlyServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		svcOpts []Option
		opts    []engine.Option
		want    string
	}{
		{"worker", nil, []engine.Option{engine.WithRole(engine.RoleWorker)}, "coordinator"},
		{"read-only", []Option{WithReadOnly("started with --read-only")}, nil, "--read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fw := newFakeWriter()
			h, _ := serveWriter(t, fw, nil, tc.svcOpts, tc.opts...)
			ctx := context.Background()
			_, err := put(ctx, t, h.client, testutil.CmdDesc(t, map[string]any{"table": "samples.trips"}), []int{2}, 0)
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DoPut = %v, want FailedPrecondition saying %q", err, tc.want)
			}
			for _, a := range []string{ActionDelete, ActionCreateTable, ActionExpireSnapshots, ActionCreateNamespace} {
				_, err := doAction(ctx, h.client, a, `{"table": "samples.trips", "filter": "true", "namespace": "x"}`)
				if status.Code(err) != codes.FailedPrecondition {
					t.Errorf("%s = %v, want FailedPrecondition", a, err)
				}
			}
			if calls := fw.callList(); len(calls) != 0 {
				t.Errorf("writer called %v", calls)
			}
		})
	}
}

func TestWriteGrants(t *testing.T) {
	t.Parallel()
	const (
		roToken    = "read-only-token-0001"
		rwToken    = "read-write-token-0001"
		otherToken = "other-write-token-001"
	)
	creds := newCredentials(t, roToken+" samples\n"+rwToken+" rw:samples\n"+otherToken+" samples,rw:other\n", "")
	a, err := engine.NewAuthenticator(creds, sessionSecret)
	if err != nil {
		t.Fatal(err)
	}
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, []grpc.ServerOption{grpc.ChainUnaryInterceptor(a.UnaryInterceptor()), grpc.ChainStreamInterceptor(a.StreamInterceptor())}, nil, engine.WithAuthenticator(a))
	as := func(token string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
	}
	desc := testutil.CmdDesc(t, map[string]any{"table": "samples.trips"})
	for _, tc := range []struct {
		token string
		want  codes.Code
	}{{roToken, codes.PermissionDenied}, {otherToken, codes.PermissionDenied}, {rwToken, codes.OK}} {
		if _, err := put(as(tc.token), t, h.client, desc, []int{1}, 0); status.Code(err) != tc.want {
			t.Errorf("DoPut with %s = %v, want %v", tc.token[:10], err, tc.want)
		}
		_, err := doAction(as(tc.token), h.client, ActionDelete, `{"table": "samples.trips", "filter": "id = 1"}`)
		if status.Code(err) != tc.want {
			t.Errorf("delete with %s = %v, want %v", tc.token[:10], err, tc.want)
		}
	}
	if _, err := put(as(roToken), t, h.client, desc, []int{1}, 0); err == nil || !strings.Contains(err.Error(), "rw:") {
		t.Errorf("read-only refusal %v does not say how to get a write grant", err)
	}
	// Namespaces: creating one needs a write grant covering it.
	if _, err := doAction(as(otherToken), h.client, ActionCreateNamespace, `{"namespace": "other.sub"}`); err != nil {
		t.Errorf("create_namespace other.sub with rw:other: %v", err)
	}
	if _, err := doAction(as(otherToken), h.client, ActionCreateNamespace, `{"namespace": "samples.sub"}`); status.Code(err) != codes.PermissionDenied {
		t.Errorf("create_namespace samples.sub with read-only samples = %v, want PermissionDenied", err)
	}
	if got := fw.callList(); len(got) != 3 || got[0] != "write samples.trips" || got[1] != "delete samples.trips" || got[2] != "create_namespace other.sub" {
		t.Errorf("writer calls = %v, want only the granted ones", got)
	}
}

// doAction runs an action and returns its results' bodies.
func doAction(ctx context.Context, client flight.Client, typ, body string) ([][]byte, error) {
	stream, err := client.DoAction(ctx, &flight.Action{Type: typ, Body: []byte(body)})
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for {
		res, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, res.GetBody())
	}
}

func TestDoPutAbortMessageCommitsNothing(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, nil)
	stream, err := h.client.DoPut(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(putSchema))
	w.SetFlightDescriptor(testutil.CmdDesc(t, map[string]any{"table": "samples.trips"}))
	rec := putBatch(memory.DefaultAllocator, 3)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&flight.FlightData{AppMetadata: []byte(PutAbort)}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	stream.CloseSend()
	if _, err := stream.Recv(); status.Code(err) != codes.Canceled || !strings.Contains(err.Error(), "aborted") {
		t.Errorf("aborted DoPut = %v, want Canceled", err)
	}
	<-fw.wrote
	if fw.commits != 0 || fw.rows != 3 {
		t.Errorf("aborted DoPut: %d commits after %d rows; want none after 3", fw.commits, fw.rows)
	}
}

func TestDoPutMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(ctx) })
	m, err := engine.NewMetrics(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, []Option{WithPutLimits(1, 0)}, engine.WithMetrics(m))
	if _, err := put(ctx, t, h.client, testutil.CmdDesc(t, map[string]any{"table": "samples.trips"}), []int{4, 6}, 0); err != nil {
		t.Fatal(err)
	}
	data := testutil.CollectMetrics(t, reader, engine.MeterName)
	if got := testutil.MetricSum(t, data, "iceflight.rows_written"); got != 10 {
		t.Errorf("rows_written = %d, want 10", got)
	}
	if got := testutil.MetricSum(t, data, "iceflight.received_bytes"); got < 10*8 {
		t.Errorf("received_bytes = %d, want at least the 80 bytes of ids", got)
	}
}
