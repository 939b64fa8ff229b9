package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"
	"google.golang.org/grpc/metadata"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	iceflight "github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var (
	warehouse = filepath.Join("..", "testdata", "warehouse")
	expected  = filepath.Join("..", "testdata", "expected")
	queries   = filepath.Join("..", "testdata", "expected-queries")
)

// server is the real iceflight service on a loopback port. Its DoGet is
// wrapped to count streams open at once and to record call headers.
type server struct {
	addr string
	mem  *memory.CheckedAllocator

	active, maxActive, doGets atomic.Int64
	// delay holds every DoGet open this long before it streams, so that
	// overlapping streams are observable.
	delay time.Duration

	mu      sync.Mutex
	headers []metadata.MD
}

type countingService struct {
	*iceflight.Service
	s *server
}

func (c countingService) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	n := c.s.active.Add(1)
	defer c.s.active.Add(-1)
	c.s.doGets.Add(1)
	for {
		m := c.s.maxActive.Load()
		if n <= m || c.s.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	if md, ok := metadata.FromIncomingContext(stream.Context()); ok {
		c.s.mu.Lock()
		c.s.headers = append(c.s.headers, md)
		c.s.mu.Unlock()
	}
	if c.s.delay > 0 {
		select {
		case <-time.After(c.s.delay):
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
	}
	return c.Service.DoGet(t, stream)
}

// serve starts the service over testdata/warehouse with batches of at most
// batchRows rows; cleanup stops it and checks its allocator is empty.
func serve(t *testing.T, batchRows int, delay time.Duration) *server {
	t.Helper()
	return serveWith(t, batchRows, delay, nil)
}

// serveWith is serve with options of the catalog and the engine.
func serveWith(t *testing.T, batchRows int, delay time.Duration, catOpts []catalog.Option, engOpts ...engine.Option) *server {
	t.Helper()
	cat, err := catalog.NewDirectory(warehouse, catOpts...)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := engine.NewRandomSigner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{mem: memory.NewCheckedAllocator(memory.NewGoAllocator()), delay: delay}
	rd := reader.New(fileio.NewResolver(), reader.WithAllocator(s.mem), reader.WithBatchSize(batchRows))
	srv := flight.NewServerWithMiddleware(nil)
	srv.RegisterFlightService(countingService{iceflight.NewService(engine.New(cat, rd, signer,
		append([]engine.Option{engine.WithAllocator(s.mem), engine.WithLogger(slog.New(slog.DiscardHandler))}, engOpts...)...)), s})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.InitListener(lis)
	go srv.Serve()
	s.addr = "grpc://" + lis.Addr().String()
	t.Cleanup(func() {
		srv.Shutdown()
		s.mem.AssertSize(t, 0)
	})
	return s
}

// dial connects a client with a checked allocator; cleanup closes it and
// checks every batch it decoded was released.
func dial(t *testing.T, addr string, opts ...Option) (*Client, *memory.CheckedAllocator) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, err := Dial(context.Background(), addr, append([]Option{WithAllocator(mem)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		mem.AssertSize(t, 0)
	})
	return c, mem
}

// deadAddr returns a loopback location nobody listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return "grpc://" + addr
}

// oracleScan is one scan of an oracle index.json (testdata/conformance/README.md).
type oracleScan struct {
	Name       string          `json:"name"`
	SnapshotID *int64          `json:"snapshot_id"`
	Schema     json.RawMessage `json:"schema"`
	Rows       int             `json:"rows"`
	File       string          `json:"file"`
}

type oracleIndex struct {
	CurrentSnapshotID *int64       `json:"current_snapshot_id"`
	Scans             []oracleScan `json:"scans"`
}

func readIndex(t *testing.T, table string) oracleIndex {
	t.Helper()
	var idx oracleIndex
	testutil.ReadJSON(t, filepath.Join(expected, table, "index.json"), &idx)
	return idx
}

// oracleQuery is one entry of testdata/expected-queries/index.json.
type oracleQuery struct {
	Name       string          `json:"name"`
	Table      string          `json:"table"`
	SnapshotID *int64          `json:"snapshot_id"`
	Columns    []string        `json:"columns"`
	Filter     json.RawMessage `json:"filter"`
	Schema     json.RawMessage `json:"schema"`
	Rows       int             `json:"rows"`
	File       string          `json:"file"`
	// Data files Iceberg Java planned with and without the filter.
	FilesPlanned int `json:"files_planned"`
	FilesTotal   int `json:"files_total"`
}

func readQuery(t *testing.T, name string) oracleQuery {
	t.Helper()
	var idx struct{ Queries []oracleQuery }
	testutil.ReadJSON(t, filepath.Join(queries, "index.json"), &idx)
	for _, q := range idx.Queries {
		if q.Name == name {
			return q
		}
	}
	t.Fatalf("no oracle query %s", name)
	return oracleQuery{}
}

// oracleRows renders the oracle's row file in canonical form, sorted.
func oracleRows(t *testing.T, path string, schema *iceberg.Schema) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		r, err := testutil.OracleRow(schema, []byte(line))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, r)
	}
	sort.Strings(rows)
	return rows
}

// tableRows renders an Arrow table in canonical form, sorted.
func tableRows(t *testing.T, tbl arrow.Table, schema *iceberg.Schema) []string {
	t.Helper()
	tr := array.NewTableReader(tbl, -1)
	defer tr.Release()
	var rows []string
	for tr.Next() {
		r, err := testutil.ArrowRows(schema, tr.RecordBatch())
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	sort.Strings(rows)
	return rows
}

// parseSchema decodes an oracle schema and orders its top-level fields as
// the request named them (the oracle lists them in schema order).
func parseSchema(t *testing.T, raw json.RawMessage, columns []string) *iceberg.Schema {
	t.Helper()
	var s iceberg.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if len(columns) == 0 {
		return &s
	}
	pos := map[string]int{}
	for i, c := range columns {
		pos[strings.SplitN(c, ".", 2)[0]] = i
	}
	sort.SliceStable(s.Fields, func(i, j int) bool { return pos[s.Fields[i].Name] < pos[s.Fields[j].Name] })
	return &s
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, the Java oracle has %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row differs from the Java oracle\n got %s\nwant %s", what, got[i], want[i])
		}
	}
}
