package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	iceflight "github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/reader"
)

// worker is the real iceflight service on a loopback port behind a bare
// grpc.Server, so that a test can stop it hard: Server.Stop closes every
// connection under its open streams, as a killed process's kernel would.
type worker struct {
	addr   string
	srv    *grpc.Server
	doGets atomic.Int64
	doGet  doGetFunc // nil: the real service
}

type workerService struct {
	*iceflight.Service
	w *worker
}

func (s workerService) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	call := s.w.doGets.Add(1)
	serve := func(st flight.FlightService_DoGetServer) error { return s.Service.DoGet(t, st) }
	if s.w.doGet == nil {
		return serve(stream)
	}
	return s.w.doGet(call, stream, serve)
}

// sharedKey returns a ticket signing key for workers that accept each
// other's tickets.
func sharedKey(t *testing.T) []byte {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// startWorker serves testdata/warehouse in batches of at most batchRows
// rows, signing with key; cleanup stops it and checks its allocator is
// empty. doGet, when not nil, runs each DoGet.
func startWorker(t *testing.T, key []byte, batchRows int, doGet doGetFunc) *worker {
	t.Helper()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := engine.NewSigner(key, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rd := reader.New(fileio.NewResolver(), reader.WithAllocator(mem), reader.WithBatchSize(batchRows))
	w := &worker{doGet: doGet}
	// WaitForHandlers: Stop returns once every DoGet has returned, so the
	// allocator check and goleak see the end of each stream.
	w.srv = grpc.NewServer(grpc.WaitForHandlers(true))
	flight.RegisterFlightServiceServer(w.srv, workerService{iceflight.NewService(engine.New(cat, rd, signer,
		engine.WithAllocator(mem), engine.WithLogger(slog.New(slog.DiscardHandler)))), w})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = w.srv.Serve(lis)
	}()
	w.addr = "grpc://" + lis.Addr().String()
	t.Cleanup(func() {
		w.srv.Stop()
		<-served
		mem.AssertSize(t, 0)
	})
	return w
}

// doGetFunc runs one DoGet (calls count from 1) around serve, the real
// service: it may wrap the stream or answer by itself.
type doGetFunc = func(call int64, stream flight.FlightService_DoGetServer, serve func(flight.FlightService_DoGetServer) error) error

// errBroken stops the service's writes once a stream is broken on purpose.
var errBroken = errors.New("stream broken by the test")

// breakAfter returns a doGetFunc whose calls up to upTo (all when upTo is
// 0) send the schema and n batches, then end with fault's error (fault may
// hold the stream open until the call's context ends).
func breakAfter(n int, upTo int64, fault func(ctx context.Context) error) doGetFunc {
	return func(call int64, st flight.FlightService_DoGetServer, serve func(flight.FlightService_DoGetServer) error) error {
		if upTo > 0 && call > upTo {
			return serve(st)
		}
		ab := &afterBatches{FlightService_DoGetServer: st, n: n}
		err := serve(ab)
		if ab.broken {
			return fault(st.Context())
		}
		return err
	}
}

// afterBatches passes the schema and the first n batches of a DoGet
// stream, then refuses every Send: nothing more reaches the client.
type afterBatches struct {
	flight.FlightService_DoGetServer
	n, sent int
	broken  bool
}

func (s *afterBatches) Send(fd *flight.FlightData) error {
	if err := s.pass(len(fd.GetDataBody())); err != nil {
		return err
	}
	return s.FlightService_DoGetServer.Send(fd)
}

// SendMsg is how flightd's DoGet sends its data messages: already
// encoded, telling their body's size.
func (s *afterBatches) SendMsg(m any) error {
	if wm, ok := m.(interface{ BodyLen() int }); ok {
		if err := s.pass(wm.BodyLen()); err != nil {
			return err
		}
	}
	return s.FlightService_DoGetServer.SendMsg(m)
}

// pass counts a message with a body of n bytes and tells whether it may
// go through.
func (s *afterBatches) pass(n int) error {
	if s.broken {
		return errBroken
	}
	if n > 0 { // a batch; the schema message has no body
		if s.sent == s.n {
			s.broken = true
			return errBroken
		}
		s.sent++
	}
	return nil
}

// tripsPlan plans samples.trips (20,000 rows in four data files) as one
// endpoint and relocates it; it returns the oracle's rows too.
func tripsPlan(t *testing.T, c *Client, locs ...string) (*Plan, func(arrow.Table) []string, []string) {
	t.Helper()
	return tripsPlanN(t, c, 1, locs...)
}

// tripsPlanN is tripsPlan with at most maxEndpoints endpoints (0: the
// server's choice, one a file).
func tripsPlanN(t *testing.T, c *Client, maxEndpoints int32, locs ...string) (*Plan, func(arrow.Table) []string, []string) {
	t.Helper()
	table := "samples.trips"
	cur := readIndex(t, table).Scans[0]
	schema := parseSchema(t, cur.Schema, nil)
	want := oracleRows(t, filepath.Join(expected, table, cur.File), schema)
	plan, err := c.Plan(context.Background(), Command{Table: table, MaxEndpoints: maxEndpoints})
	if err != nil {
		t.Fatal(err)
	}
	if maxEndpoints == 1 && len(plan.Endpoints) != 1 {
		t.Fatalf("%d endpoints, want 1", len(plan.Endpoints))
	}
	rows := func(tbl arrow.Table) []string { return tableRows(t, tbl, schema) }
	return relocate(plan, locs...), rows, want
}

func TestAWorkerStoppedMidStreamFailsOverExactlyOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		maxEndpoints int32
		workers      int
	}{
		{"one endpoint", 1, 1},
		{"four endpoints read at once", 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key := sharedKey(t)
			stalled := make(chan struct{})
			// A holds its first stream after three batches of 1,000 rows
			// until it is stopped, so that the stop falls mid-stream by
			// construction; its other streams run free until then.
			a := startWorker(t, key, 1000, breakAfter(3, 1, func(ctx context.Context) error {
				close(stalled)
				<-ctx.Done()
				return ctx.Err()
			}))
			// B cuts batches of 700 rows, so the rows that reached the
			// client from A end inside one of B's batches, which the
			// client must slice.
			b := startWorker(t, key, 700, nil)
			c, _ := dial(t, a.addr, WithMaxWorkers(tt.workers))
			plan, rows, want := tripsPlanN(t, c, tt.maxEndpoints, a.addr, b.addr)

			first, done, stopped := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var received atomic.Int64
			c.onRecord = func() {
				if received.Add(1) == 1 {
					close(first)
				}
			}
			go func() {
				defer close(stopped)
				for _, ch := range []chan struct{}{stalled, first} {
					select {
					case <-ch:
					case <-done:
						return
					}
				}
				a.srv.Stop() // hard: every connection closes under its streams
			}()
			tbl, err := c.ReadPlan(context.Background(), plan)
			close(done)
			<-stopped
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			if tbl.NumRows() != int64(len(want)) {
				t.Fatalf("%d rows, the Java oracle has %d", tbl.NumRows(), len(want))
			}
			sameRows(t, "failover", rows(tbl), want)
			if b.doGets.Load() == 0 {
				t.Error("B served nothing: the read did not fail over")
			}
			if tt.maxEndpoints == 1 && (a.doGets.Load() != 1 || b.doGets.Load() != 1) {
				t.Errorf("DoGet calls: A %d, B %d; want one each", a.doGets.Load(), b.doGets.Load())
			}
		})
	}
}

func TestAStreamBreakIsRetriedOnlyWhenRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault error
		retry bool
	}{
		{"Unavailable (storage outage) resumes at the next location", status.Error(codes.Unavailable, "read file x: connection refused"), true},
		{"a reset stream resumes at the next location", status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR"), true},
		{"a stream ended without a status resumes at the next location", status.Error(codes.Internal, "server closed the stream without sending trailers"), true},
		{"Internal (a bug) is not retried", status.Error(codes.Internal, "table samples.trips: index out of range"), false},
		{"NotFound (file gone) is not retried", status.Error(codes.NotFound, "table samples.trips: file x not found"), false},
		{"PermissionDenied is not retried", status.Error(codes.PermissionDenied, "table samples.trips: namespace"), false},
		{"Unauthenticated (expired ticket) is not retried", status.Error(codes.Unauthenticated, "table samples.trips: ticket expired"), false},
		{"InvalidArgument is not retried", status.Error(codes.InvalidArgument, "table samples.trips: bad filter"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key := sharedKey(t)
			// The stream ends with the fault's status after two batches.
			a := startWorker(t, key, 1000, breakAfter(2, 0, func(context.Context) error { return tt.fault }))
			b := startWorker(t, key, 1000, nil)
			c, _ := dial(t, a.addr)
			plan, rows, want := tripsPlan(t, c, a.addr, b.addr)
			tbl, err := c.ReadPlan(context.Background(), plan)
			if !tt.retry {
				if err == nil {
					tbl.Release()
					t.Fatal("read succeeded")
				}
				if got, want := status.Code(err), status.Code(tt.fault); got != want {
					t.Errorf("got %v, want code %v", err, want)
				}
				if n := b.doGets.Load(); n != 0 {
					t.Errorf("%d DoGet calls at B, want none", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			sameRows(t, tt.name, rows(tbl), want)
			if n := b.doGets.Load(); n != 1 {
				t.Errorf("%d DoGet calls at B, want 1", n)
			}
		})
	}
}

func TestASingleLocationIsRetriedOnceAfterABreak(t *testing.T) {
	t.Parallel()
	key := sharedKey(t)
	a := startWorker(t, key, 1000, breakAfter(2, 1, func(context.Context) error {
		return status.Error(codes.Unavailable, "read file x: connection reset")
	}))
	c, _ := dial(t, a.addr)
	plan, rows, want := tripsPlan(t, c, a.addr)
	tbl, err := c.ReadPlan(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "retried", rows(tbl), want)
	tbl.Release()
	if n := a.doGets.Load(); n != 2 {
		t.Errorf("%d DoGet calls, want 2", n)
	}
}

func TestAResumedStreamMustMatchTheBrokenOne(t *testing.T) {
	t.Parallel()
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	tests := []struct {
		name string
		b    doGetFunc
		want error
	}{
		{"a resumed stream with another schema is refused", func(_ int64, st flight.FlightService_DoGetServer, _ func(flight.FlightService_DoGetServer) error) error {
			w := flight.NewRecordWriter(st, ipc.WithSchema(other))
			return w.Close()
		}, ErrSchemaMismatch},
		{"a resumed stream shorter than the rows delivered is refused", breakAfter(1, 0, func(context.Context) error { return nil }), ErrResumeDiverged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key := sharedKey(t)
			a := startWorker(t, key, 1000, breakAfter(3, 0, func(context.Context) error {
				return status.Error(codes.Unavailable, "gone")
			}))
			b := startWorker(t, key, 1000, tt.b)
			c, _ := dial(t, a.addr)
			plan, _, _ := tripsPlan(t, c, a.addr, b.addr)
			tbl, err := c.ReadPlan(context.Background(), plan)
			if err == nil {
				tbl.Release()
				t.Fatal("read succeeded")
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if n := a.doGets.Load() + b.doGets.Load(); n != 2 {
				t.Errorf("%d DoGet calls, want 2: the mismatch is not retried", n)
			}
		})
	}
}

func TestEveryLocationBrokenEndsUnavailable(t *testing.T) {
	t.Parallel()
	key := sharedKey(t)
	breakAll := breakAfter(0, 0, func(context.Context) error { return status.Error(codes.Unavailable, "storage down") })
	a := startWorker(t, key, 1000, breakAll)
	b := startWorker(t, key, 1000, breakAll)
	c, _ := dial(t, a.addr)
	plan, _, _ := tripsPlan(t, c, a.addr, b.addr)
	_, err := c.ReadPlan(context.Background(), plan)
	if !errors.Is(err, ErrEndpointUnavailable) || status.Code(err) != codes.Unavailable {
		t.Errorf("got %v, want ErrEndpointUnavailable", err)
	}
	// No row ever came: each location once, no wrap-around.
	if a.doGets.Load() != 1 || b.doGets.Load() != 1 {
		t.Errorf("DoGet calls: A %d, B %d; want one each", a.doGets.Load(), b.doGets.Load())
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"Unavailable", status.Error(codes.Unavailable, "error reading from server: EOF"), true},
		{"wrapped Unavailable", errors.Join(errors.New("arrow/ipc"), status.Error(codes.Unavailable, "x")), true},
		{"grpc-go reset stream", status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR"), true},
		{"gRPC C++ reset stream", status.Error(codes.Internal, "Received RST_STREAM with error code 2"), true},
		{"Internal from a bug", status.Error(codes.Internal, "nil pointer"), false},
		{"Internal naming a transport word only in the wrapping", fmt.Errorf("table connection reset: %w", status.Error(codes.Internal, "bug")), false},
		{"Canceled", status.Error(codes.Canceled, "context canceled"), false},
		{"caller's cancellation", context.Canceled, false},
		{"ResourceExhausted", status.Error(codes.ResourceExhausted, "max streams"), false},
		{"not a status", errors.New("boom"), false},
		{"schema mismatch", ErrSchemaMismatch, false},
	}
	for _, tt := range tests {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("%s: retryable(%v) = %v", tt.name, tt.err, got)
		}
	}
}
