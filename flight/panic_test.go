package flight

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestPanicInAStreamFailsOnlyThatCall forces a panic inside a DoGet's read
// (a storage read that panics, as a decoder bug met by a hostile file
// would) and checks what must hold afterwards: the process lives on, the
// call ends Internal naming the table and the file, the stack is logged
// once, iceflight_panics_total counts it, and the stream slot and Arrow
// memory are given back (serve's cleanup asserts the checked allocator is
// at zero, and TestMain's goleak that no goroutine is left).
func TestPanicInAStreamFailsOnlyThatCall(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := engine.NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs testutil.LockedBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	// With the call log interceptors, as flightd runs: the panic is still
	// reported once, by the handler, not again by the interceptor.
	h := serveWith(t, 100, []grpc.ServerOption{grpc.ChainStreamInterceptor(engine.StreamCallLog(log, m))},
		engine.WithMetrics(m), engine.WithLimits(1, 1), engine.WithLogger(log))
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "max_endpoints": 1}))
	if err != nil {
		t.Fatal(err)
	}
	fault := func(loc string, read int64) error {
		if read > 0 && strings.HasSuffix(loc, ".parquet") {
			panic("injected fault reading " + loc)
		}
		return nil
	}
	h.data.Fault.Store(&fault)
	err = drainStream(ctx, h, info.Endpoint[0].Ticket.Ticket)
	if status.Code(err) != codes.Internal {
		t.Fatalf("stream ended with %v, want Internal", err)
	}
	for _, want := range []string{"samples.trips", ".parquet", "panic: injected fault"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if got := testutil.MetricSum(t, testutil.CollectMetrics(t, reader, engine.MeterName), "iceflight.panics"); got != 1 {
		t.Errorf("iceflight.panics = %d, want 1", got)
	}
	var stacks int
	for _, l := range logs.JSONLines(t) {
		if l["msg"] == "panic serving a call" {
			stacks++
			if s, _ := l["stack"].(string); !strings.Contains(s, "countingFile") {
				t.Errorf("logged stack does not reach the panicking read:\n%s", s)
			}
		}
	}
	if stacks != 1 {
		t.Errorf("panic logged %d times, want once", stacks)
	}
	if n := h.data.InUse.Load(); n != 0 {
		t.Errorf("%d files left open", n)
	}
	// With --max-streams 1, the next stream runs only if the panicking one
	// gave its slot back.
	h.data.Fault.Store(nil)
	if err := drainStream(ctx, h, info.Endpoint[0].Ticket.Ticket); err != nil {
		t.Fatalf("the stream after the panic: %v", err)
	}
}

// drainStream reads a DoGet stream to its end and returns how it ended
// (nil for a complete stream).
func drainStream(ctx context.Context, h *harness, ticket []byte) error {
	stream, err := h.client.DoGet(ctx, &flight.Ticket{Ticket: ticket})
	for err == nil {
		_, err = stream.Recv()
	}
	if err == io.EOF {
		return nil
	}
	return err
}

// panickyCatalog panics while loading a table, as a metadata decoder bug
// met by a hostile metadata file would, until fixed is set.
type panickyCatalog struct {
	catalog.Catalog
	fixed bool
}

func (c *panickyCatalog) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	if !c.fixed {
		panic("injected fault loading " + id.String())
	}
	return c.Catalog.LoadTable(ctx, id)
}

// TestPanicInAPlanningCallFailsOnlyThatCall checks the handlers that are
// not streams of rows: each turns a panic into Internal, counts it, and
// gives its planning slot back (the limit is 1, so the call after the
// panic runs only if it did).
func TestPanicInAPlanningCallFailsOnlyThatCall(t *testing.T) {
	t.Parallel()
	dir, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	collected := sdkmetric.NewManualReader()
	m, err := engine.NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(collected)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	calls := []struct {
		name string
		call func(*Service) error
	}{
		{"GetFlightInfo", func(s *Service) error {
			_, err := s.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
			return err
		}},
		{"GetSchema", func(s *Service) error { _, err := s.GetSchema(ctx, testutil.PathDesc("samples", "trips")); return err }},
		{"DoAction", func(s *Service) error {
			return s.DoAction(&flight.Action{Type: ActionSnapshots, Body: []byte(`{"table": "samples.trips"}`)}, &fakeServerStream[*flight.Result]{ctx: ctx})
		}},
		{"ListFlights", func(s *Service) error {
			return s.ListFlights(&flight.Criteria{}, &fakeServerStream[*flight.FlightInfo]{ctx: ctx})
		}},
	}
	for i, c := range calls {
		cat := &panickyCatalog{Catalog: dir}
		svc := newService(cat, reader.New(fileio.NewResolver()), testSigner(t, 7), engine.WithLimits(1, 1), engine.WithMetrics(m), engine.WithLogger(slog.New(slog.DiscardHandler)))
		err := c.call(svc)
		if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "injected fault loading samples.") {
			t.Errorf("%s: %v, want Internal naming the table", c.name, err)
		}
		if got := testutil.MetricSum(t, testutil.CollectMetrics(t, collected, engine.MeterName), "iceflight.panics"); got != int64(i+1) {
			t.Errorf("%s: iceflight.panics = %d, want %d", c.name, got, i+1)
		}
		cat.fixed = true
		if err := c.call(svc); err != nil {
			t.Errorf("%s after the panic: %v", c.name, err)
		}
	}
}
