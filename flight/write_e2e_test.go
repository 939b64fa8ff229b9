package flight

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sort"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/writer"
)

// memTables is a committing catalog of tables kept in memory, their files
// in a fileio.Mem: it runs the real writer under the service without a
// warehouse on disk. Commits check requirements and apply updates with
// the iceberg package, as every catalog does.
type memTables struct {
	mu     sync.Mutex
	io     *fileio.Mem
	tables map[string]*iceberg.TableMetadata
	// versions counts each table's commits, for its metadata location.
	versions map[string]int
}

func newMemTables() *memTables {
	return &memTables{io: fileio.NewMem(), tables: map[string]*iceberg.TableMetadata{}, versions: map[string]int{}}
}

func (m *memTables) ListTables(context.Context) ([]catalog.Identifier, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []catalog.Identifier
	for name := range m.tables {
		id, _ := catalog.ParseIdentifier(name)
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	return ids, nil
}

func (m *memTables) LoadTable(_ context.Context, id catalog.Identifier) (*catalog.Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	md, ok := m.tables[id.String()]
	if !ok {
		return nil, fmt.Errorf("table %s: %w", id, catalog.ErrTableNotFound)
	}
	return &catalog.Table{Identifier: id, Metadata: md, IO: m.io, Location: md.Location,
		MetadataLocation: fmt.Sprintf("%s/metadata/v%d.metadata.json", md.Location, m.versions[id.String()])}, nil
}

func (m *memTables) CreateTable(ctx context.Context, id catalog.Identifier, md *iceberg.TableMetadata) (*catalog.Table, error) {
	m.mu.Lock()
	if _, ok := m.tables[id.String()]; ok {
		m.mu.Unlock()
		return nil, fmt.Errorf("table %s: %w", id, catalog.ErrTableExists)
	}
	if md.Location == "" {
		cp := *md
		cp.Location = "mem://warehouse/" + id.String()
		md = &cp
	}
	m.tables[id.String()], m.versions[id.String()] = md, 1
	m.mu.Unlock()
	return m.LoadTable(ctx, id)
}

func (m *memTables) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	m.mu.Lock()
	base, ok := m.tables[id.String()]
	if !ok {
		m.mu.Unlock()
		return nil, fmt.Errorf("table %s: %w", id, catalog.ErrTableNotFound)
	}
	for _, r := range reqs {
		if err := r.Validate(base); err != nil {
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: %w", catalog.ErrCommitConflict, err)
		}
	}
	md, err := iceberg.ApplyUpdates(base, "", updates)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	m.tables[id.String()] = md
	m.versions[id.String()]++
	m.mu.Unlock()
	return m.LoadTable(ctx, id)
}

func (m *memTables) DropTable(_ context.Context, id catalog.Identifier, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tables, id.String())
	return nil
}

func (m *memTables) snapshots(id string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tables[id].Snapshots)
}

// serveRealWriter serves a memTables catalog through the real writer.
func serveRealWriter(t *testing.T) (flight.Client, *memTables) {
	t.Helper()
	cat := newMemTables()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	w := writer.New(cat, writer.WithAllocator(mem))
	svc := NewService(engine.New(cat, reader.New(cat.io, reader.WithAllocator(mem)), testSigner(t, 7), engine.WithAllocator(mem)), WithWriter(w, nil))
	srv := flight.NewServerWithMiddleware(nil)
	srv.RegisterFlightService(svc)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.InitListener(lis)
	go srv.Serve()
	client, err := flight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.Close()
		srv.Shutdown()
		mem.AssertSize(t, 0)
	})
	return client, cat
}

// readIDs reads the id column of table through GetFlightInfo and DoGet.
func readIDs(ctx context.Context, t *testing.T, client flight.Client, table string) []int64 {
	t.Helper()
	info, err := client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": table}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, ep := range info.Endpoint {
		stream, err := client.DoGet(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := flight.NewRecordReader(stream)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			ids = append(ids, rdr.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
		}
		if err := rdr.Err(); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		rdr.Release()
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func TestWritePathEndToEnd(t *testing.T) {
	t.Parallel()
	client, cat := serveRealWriter(t)
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	body, _ := json.Marshal(map[string]any{
		"table":        "db.t",
		"schema":       base64.StdEncoding.EncodeToString(flight.SerializeSchema(schema, memory.DefaultAllocator)),
		"partition_by": []string{"bucket(4, id)"},
	})
	if _, err := doAction(ctx, client, ActionCreateTable, string(body)); err != nil {
		t.Fatal(err)
	}
	if _, err := doAction(ctx, client, ActionCreateTable, string(body)); status.Code(err) != codes.AlreadyExists {
		t.Errorf("second create_table = %v, want AlreadyExists", err)
	}
	res, err := put(ctx, t, client, testutil.CmdDesc(t, map[string]any{"table": "db.t"}), []int{5, 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var r actions.WriteResult
	if err := json.Unmarshal(res, &r); err != nil || r.SnapshotID == 0 || r.AddedRecords != 8 {
		t.Fatalf("append result %s: %v", res, err)
	}
	// putBatch numbers each batch from 0: ids 0-4 and 0-2.
	if got := fmt.Sprint(readIDs(ctx, t, client, "db.t")); got != "[0 0 1 1 2 2 3 4]" {
		t.Errorf("read after append = %s", got)
	}
	// A stream of another schema fails before anything is written.
	stream, err := client.DoPut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := flight.NewRecordWriter(stream, ipcSchema(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)))
	w.SetFlightDescriptor(testutil.CmdDesc(t, map[string]any{"table": "db.t"}))
	w.Close()
	stream.CloseSend()
	if _, err := stream.Recv(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("DoPut of a string id = %v, want InvalidArgument", err)
	}
	// A broken stream commits nothing.
	if _, err := put(ctx, t, client, testutil.CmdDesc(t, map[string]any{"table": "db.t"}), []int{4, 4, 4}, 2); status.Code(err) != codes.Canceled {
		t.Errorf("cancelled DoPut = %v", err)
	}
	if n := cat.snapshots("db.t"); n != 1 {
		t.Errorf("%d snapshots after a refused and a broken DoPut, want 1", n)
	}
	if _, err := doAction(ctx, client, ActionDelete, `{"table": "db.t", "filter": "id < 2"}`); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(readIDs(ctx, t, client, "db.t")); got != "[2 2 3 4]" {
		t.Errorf("read after delete = %s", got)
	}
	if _, err := doAction(ctx, client, ActionDelete, `{"table": "db.t", "filter": "id <"}`); status.Code(err) != codes.InvalidArgument {
		t.Errorf("delete with a broken filter = %v, want InvalidArgument", err)
	}
	if _, err := put(ctx, t, client, testutil.CmdDesc(t, map[string]any{"table": "db.t", "mode": "overwrite", "filter": "id >= 3"}), []int{2}, 0); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(readIDs(ctx, t, client, "db.t")); got != "[0 1 2 2]" {
		t.Errorf("read after overwrite of id >= 3 = %s", got)
	}
}

func ipcSchema(s *arrow.Schema) ipc.Option { return ipc.WithSchema(s) }
