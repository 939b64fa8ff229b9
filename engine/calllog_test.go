package engine

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// annotatingServer fills the CallInfo the way the service does.
type annotatingServer struct {
	flight.BaseFlightServer
}

func (*annotatingServer) GetFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	c := CallInfoFrom(ctx)
	c.SetTable(strings.Join(desc.Path, "."))
	c.SetSnapshotID(42)
	c.SetEndpoints(3)
	c.SetFiles(12)
	return &flight.FlightInfo{FlightDescriptor: desc}, nil
}

func (*annotatingServer) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	c := CallInfoFrom(stream.Context())
	c.SetTable("db.t")
	c.AddServed(100, 1000)
	c.AddServed(5, 50)
	switch string(tkt.Ticket) {
	case "gone":
		return status.Error(codes.NotFound, "file db/t/data/a.parquet not found")
	case "outage":
		return status.Error(codes.Unavailable, "read db/t/data/a.parquet: connection reset")
	case "long":
		return status.Error(codes.InvalidArgument, "filter "+strings.Repeat("(", 1<<20)+": too deep")
	}
	return nil
}

type callLogHarness struct {
	logs    *testutil.LockedBuffer
	client  flight.FlightServiceClient
	health  healthpb.HealthClient
	metrics *sdkmetric.ManualReader
}

func startCallLogServer(t *testing.T, level slog.Level) *callLogHarness {
	t.Helper()
	h := &callLogHarness{logs: &testutil.LockedBuffer{}, metrics: sdkmetric.NewManualReader()}
	log := slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: level}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.metrics))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	m, err := NewMetrics(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(UnaryCallLog(log, m)), grpc.ChainStreamInterceptor(StreamCallLog(log, m)))
	flight.RegisterFlightServiceServer(srv, &annotatingServer{})
	healthpb.RegisterHealthServer(srv, health.NewServer())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
		<-done
	})
	h.client = flight.NewFlightServiceClient(conn)
	h.health = healthpb.NewHealthClient(conn)
	return h
}

// doGet reads a DoGet stream to its end and returns its status code.
func (h *callLogHarness) doGet(t *testing.T, ticket string) codes.Code {
	t.Helper()
	stream, err := h.client.DoGet(context.Background(), &flight.Ticket{Ticket: []byte(ticket)})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if err == io.EOF {
				return codes.OK
			}
			return status.Code(err)
		}
	}
}

func TestCallLogOneLinePerCallWithServiceFields(t *testing.T) {
	t.Parallel()
	h := startCallLogServer(t, slog.LevelInfo)
	ctx := context.Background()
	if _, err := h.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"db", "t"}}); err != nil {
		t.Fatal(err)
	}
	for _, tkt := range []string{"ok", "gone", "outage"} {
		h.doGet(t, tkt)
	}
	lines := h.logs.JSONLines(t)
	if len(lines) != 4 {
		t.Fatalf("got %d log lines, want one per call (4):\n%v", len(lines), lines)
	}
	cases := []struct {
		rule  string
		line  map[string]any
		level string
		want  map[string]any
	}{
		{"a plan logs table, snapshot, endpoints and files", lines[0], "INFO", map[string]any{
			"msg": "call", "method": "/arrow.flight.protocol.FlightService/GetFlightInfo", "code": "OK",
			"table": "db.t", "snapshot_id": 42.0, "endpoints": 3.0, "files": 12.0}},
		{"a stream logs the rows and bytes it served", lines[1], "INFO", map[string]any{
			"method": "/arrow.flight.protocol.FlightService/DoGet", "code": "OK",
			"table": "db.t", "rows": 105.0, "bytes": 1050.0}},
		{"a client-side error is logged at info with its message", lines[2], "INFO", map[string]any{
			"code": "NotFound", "err": "file db/t/data/a.parquet not found", "rows": 105.0}},
		{"an outage is logged at warn", lines[3], "WARN", map[string]any{
			"code": "Unavailable", "err": "read db/t/data/a.parquet: connection reset"}},
	}
	for _, c := range cases {
		if c.line["level"] != c.level {
			t.Errorf("%s: level %v, want %s", c.rule, c.line["level"], c.level)
		}
		for k, v := range c.want {
			if c.line[k] != v {
				t.Errorf("%s: %s = %#v, want %#v (line %v)", c.rule, k, c.line[k], v, c.line)
			}
		}
		if p, _ := c.line["peer"].(string); !strings.HasPrefix(p, "127.0.0.1:") {
			t.Errorf("%s: peer %q, want the client's loopback address", c.rule, p)
		}
		if _, ok := c.line["duration"]; !ok {
			t.Errorf("%s: no duration in %v", c.rule, c.line)
		}
	}
	if _, ok := lines[0]["rows"]; ok {
		t.Errorf("a plan logged rows it never served: %v", lines[0])
	}

	data := testutil.CollectMetrics(t, h.metrics, MeterName)
	doGet := "arrow.flight.protocol.FlightService/DoGet"
	for code, want := range map[string]int64{"OK": 1, "NotFound": 1, "Unavailable": 1} {
		if got := testutil.MetricSum(t, data, "iceflight.calls", attribute.String("method", doGet), attribute.String("code", code)); got != want {
			t.Errorf("calls{DoGet,%s} = %d, want %d", code, got, want)
		}
	}
}

func TestCallLogCutsLongErrors(t *testing.T) {
	t.Parallel()
	h := startCallLogServer(t, slog.LevelInfo)
	if code := h.doGet(t, "long"); code != codes.InvalidArgument {
		t.Fatalf("code %s", code)
	}
	lines := h.logs.JSONLines(t)
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1", len(lines))
	}
	if msg, _ := lines[0]["err"].(string); len(msg) > MaxStatusMessageBytes+64 || !strings.HasPrefix(msg, "filter (((") {
		t.Errorf("logged err of %d bytes (%.40q…), want the start of the message cut to about %d", len(msg), msg, MaxStatusMessageBytes)
	}
}

func TestCallLogHealthChecksOnlyAtDebug(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rule  string
		level slog.Level
		want  int
	}{
		{"health checks are silent at info", slog.LevelInfo, 0},
		{"health checks are logged at debug", slog.LevelDebug, 1},
	} {
		h := startCallLogServer(t, c.level)
		if _, err := h.health.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatal(err)
		}
		lines := h.logs.JSONLines(t)
		if len(lines) != c.want {
			t.Fatalf("%s: got %d lines, want %d: %v", c.rule, len(lines), c.want, lines)
		}
		if c.want == 1 && (lines[0]["level"] != "DEBUG" || lines[0]["method"] != "/grpc.health.v1.Health/Check") {
			t.Errorf("%s: got %v", c.rule, lines[0])
		}
	}
}

func TestCallLogContinuesTheClientTrace(t *testing.T) {
	// Sets the global propagator as flightd does; the W3C propagator is
	// what every other test in this package would get from flightd too.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	h := startCallLogServer(t, slog.LevelInfo)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	ctx := metadata.AppendToOutgoingContext(context.Background(),
		"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if _, err := h.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"db", "t"}}); err != nil {
		t.Fatal(err)
	}
	lines := h.logs.JSONLines(t)
	if len(lines) != 1 || lines[0]["trace_id"] != traceID {
		t.Fatalf("the call's log line should carry the client's trace id %s: %v", traceID, lines)
	}
}

func TestCallInfoNilIsNoOp(t *testing.T) {
	t.Parallel()
	c := CallInfoFrom(context.Background())
	if c != nil {
		t.Fatalf("CallInfoFrom without the interceptor = %v, want nil", c)
	}
	c.SetTable("t")
	c.SetSnapshotID(1)
	c.AddServed(1, 1)
	c.SetEndpoints(1)
	c.SetFiles(1)
}

// TestCallLogRecoversPanicsDownTheChain checks that a panic below the call
// log interceptors (in an auth interceptor, say, which no handler's
// recover covers) ends only its call, Internal, logged and counted once.
func TestCallLogRecoversPanicsDownTheChain(t *testing.T) {
	t.Parallel()
	var logs testutil.LockedBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	collected := sdkmetric.NewManualReader()
	m, err := NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(collected)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, unaryErr := UnaryCallLog(log, m)(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/arrow.flight.protocol.FlightService/GetFlightInfo"},
		func(context.Context, any) (any, error) { panic("injected unary fault") })
	streamErr := StreamCallLog(log, m)(nil, &callStream{ctx: ctx}, &grpc.StreamServerInfo{FullMethod: "/arrow.flight.protocol.FlightService/DoGet"},
		func(any, grpc.ServerStream) error { panic("injected stream fault") })
	for _, err := range []error{unaryErr, streamErr} {
		if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "injected") {
			t.Errorf("call ended with %v, want Internal naming the panic", err)
		}
	}
	if got := testutil.MetricSum(t, testutil.CollectMetrics(t, collected, MeterName), "iceflight.panics"); got != 2 {
		t.Errorf("iceflight.panics = %d, want 2", got)
	}
	var stacks, calls int
	for _, l := range logs.JSONLines(t) {
		switch l["msg"] {
		case "panic serving a call":
			stacks++
		case "call":
			calls++
			if l["code"] != "Internal" {
				t.Errorf("call line %v, want code Internal", l)
			}
		}
	}
	if stacks != 2 || calls != 2 {
		t.Errorf("%d stacks and %d call lines logged, want 2 of each", stacks, calls)
	}
}
