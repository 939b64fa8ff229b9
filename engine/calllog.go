package engine

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/internal/panics"
)

// CallInfo is what the engine learns about one gRPC call while serving
// it (table, snapshot, rows, bytes, ...), logged in the call's single log
// line when it ends. The call log interceptors put one in each call's
// context; the engine fills it through CallInfoFrom. Its methods are safe
// for concurrent use and do nothing on a nil *CallInfo, so a call served
// without the interceptors needs no checks.
type CallInfo struct {
	mu         sync.Mutex
	table      string
	snapshotID int64
	rows       int64
	bytes      int64
	endpoints  int
	files      int
	set        callFields
}

// callFields records which fields were set, so that a zero (an empty
// table, a snapshot with no rows) is logged while an unset field is not.
type callFields uint8

const (
	fieldSnapshot callFields = 1 << iota
	fieldServed
	fieldEndpoints
	fieldFiles
)

type callInfoKey struct{}

// CallInfoFrom returns the record of the call ctx belongs to, or nil when
// ctx did not come through the call log interceptors.
func CallInfoFrom(ctx context.Context) *CallInfo {
	c, _ := ctx.Value(callInfoKey{}).(*CallInfo)
	return c
}

// update changes the record under its lock; a nil record ignores it.
func (c *CallInfo) update(f func(*CallInfo)) {
	if c == nil {
		return
	}
	c.mu.Lock()
	f(c)
	c.mu.Unlock()
}

// SetTable records the table the call is about.
func (c *CallInfo) SetTable(name string) {
	c.update(func(c *CallInfo) { c.table = name })
}

// Table returns the table recorded by SetTable, or "".
func (c *CallInfo) Table() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.table
}

// SetSnapshotID records the snapshot planned or read.
func (c *CallInfo) SetSnapshotID(id int64) {
	c.update(func(c *CallInfo) { c.snapshotID, c.set = id, c.set|fieldSnapshot })
}

// AddServed adds rows and Arrow IPC body bytes sent to the client.
func (c *CallInfo) AddServed(rows, bytes int64) {
	c.update(func(c *CallInfo) { c.rows, c.bytes, c.set = c.rows+rows, c.bytes+bytes, c.set|fieldServed })
}

// SetEndpoints records the endpoints a plan returned.
func (c *CallInfo) SetEndpoints(n int) {
	c.update(func(c *CallInfo) { c.endpoints, c.set = n, c.set|fieldEndpoints })
}

// SetFiles records the data files a plan chose or a ticket reads.
func (c *CallInfo) SetFiles(n int) {
	c.update(func(c *CallInfo) { c.files, c.set = n, c.set|fieldFiles })
}

// attrs returns the fields that were set, as log attributes.
func (c *CallInfo) attrs() []slog.Attr {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []slog.Attr
	if c.table != "" {
		out = append(out, slog.String("table", c.table))
	}
	if c.set&fieldSnapshot != 0 {
		out = append(out, slog.Int64("snapshot_id", c.snapshotID))
	}
	if c.set&fieldEndpoints != 0 {
		out = append(out, slog.Int("endpoints", c.endpoints))
	}
	if c.set&fieldFiles != 0 {
		out = append(out, slog.Int("files", c.files))
	}
	if c.set&fieldServed != 0 {
		out = append(out, slog.Int64("rows", c.rows), slog.Int64("bytes", c.bytes))
	}
	return out
}

// UnaryCallLog returns a unary server interceptor that logs one line per
// call when it ends and counts it in m (which may be nil). Put it first in
// the chain, so that calls refused by later interceptors (auth, limits)
// are logged and those interceptors see the CallInfo, and so that a panic
// further down the chain fails only its call, Internal.
func UnaryCallLog(log *slog.Logger, m *Metrics) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (_ any, err error) {
		ctx, c := startCall(ctx, info.FullMethod)
		defer func() { c.finish(ctx, log, m, err) }()
		defer endIntercepted(ctx, log, m, &err)
		defer panics.Recover(&err, info.FullMethod)
		return handler(ctx, req)
	}
}

// StreamCallLog is UnaryCallLog for streaming calls (DoGet, ListFlights,
// DoAction, health Watch).
func StreamCallLog(log *slog.Logger, m *Metrics) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		ctx, c := startCall(ss.Context(), info.FullMethod)
		defer func() { c.finish(ctx, log, m, err) }()
		defer endIntercepted(ctx, log, m, &err)
		defer panics.Recover(&err, info.FullMethod)
		return handler(srv, &callStream{ServerStream: ss, ctx: ctx})
	}
}

// callStream gives a stream handler the context carrying the CallInfo.
type callStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *callStream) Context() context.Context { return s.ctx }

// call is one call in flight.
type call struct {
	method string
	start  time.Time
	info   *CallInfo
	span   trace.Span
	// peer is the caller's address for calls that did not come through
	// gRPC, whose context carries none.
	peer string
}

// isHealth reports whether method is a gRPC health check: load balancers
// and Kubernetes probe every few seconds, so these are logged at debug
// and get no span.
func isHealth(method string) bool {
	return strings.HasPrefix(method, "/grpc.health.v1.Health/")
}

// startCall attaches a CallInfo to ctx and starts the call's server span,
// continuing the client's trace when its metadata carries W3C
// traceparent (the global propagator, set by flightd when tracing is on).
func startCall(ctx context.Context, method string) (context.Context, *call) {
	var carrier propagation.TextMapCarrier
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		carrier = metadataCarrier(md)
	}
	return startSpan(ctx, method, "grpc", carrier)
}

// startSpan is startCall for any transport: system names it in the span
// ("grpc", "http") and carrier, when not nil, holds the caller's trace
// headers.
func startSpan(ctx context.Context, method, system string, carrier propagation.TextMapCarrier) (context.Context, *call) {
	c := &call{method: method, start: time.Now(), info: &CallInfo{}}
	ctx = context.WithValue(ctx, callInfoKey{}, c.info)
	if !isHealth(method) {
		if carrier != nil {
			ctx = otel.GetTextMapPropagator().Extract(ctx, carrier)
		}
		service, name, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
		// Span name and attributes per the OpenTelemetry RPC semantic
		// conventions: "{rpc.service}/{rpc.method}".
		ctx, c.span = tracer.Start(ctx, strings.TrimPrefix(method, "/"),
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("rpc.system", system),
				attribute.String("rpc.service", service), attribute.String("rpc.method", name)))
	}
	return ctx, c
}

// StartCall records a call that reaches the engine by a transport other
// than gRPC (the REST catalog front end), as the call log interceptors
// record gRPC calls: it puts a CallInfo in the returned context, starts
// the call's span (continuing the trace whose W3C headers carrier holds,
// when it is not nil) and returns the func that ends the call with its
// error, counting it in m and logging its one line to log. method names
// the operation ("/iceberg.rest/loadTable"), peer the caller's address.
func StartCall(ctx context.Context, log *slog.Logger, m *Metrics, method, peer string, carrier propagation.TextMapCarrier) (context.Context, func(error)) {
	ctx, c := startSpan(ctx, method, "http", carrier)
	c.peer = peer
	return ctx, func(err error) {
		if err != nil {
			err = Status(err)
		}
		c.finish(ctx, log, m, err)
	}
}

// finish ends the span, counts the call and writes its log line.
func (c *call) finish(ctx context.Context, log *slog.Logger, m *Metrics, err error) {
	d := time.Since(c.start)
	st := callStatus(err)
	code := st.Code()
	if c.span != nil {
		c.span.SetAttributes(attribute.Int("rpc.grpc.status_code", int(code)))
		if serverFault(code) {
			c.span.SetStatus(otelcodes.Error, TruncateMessage(st.Message()))
		}
		c.span.End()
	}
	m.CallFinished(ctx, c.method, code)

	level := slog.LevelInfo
	switch {
	case isHealth(c.method):
		level = slog.LevelDebug
	case serverFault(code):
		level = slog.LevelWarn
	}
	if log == nil || !log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", c.method),
		slog.String("code", code.String()),
		slog.Duration("duration", d),
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		attrs = append(attrs, slog.String("peer", p.Addr.String()))
	} else if c.peer != "" {
		attrs = append(attrs, slog.String("peer", c.peer))
	}
	attrs = append(attrs, c.info.attrs()...)
	if code != codes.OK {
		attrs = append(attrs, slog.String("err", TruncateMessage(st.Message())))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	log.LogAttrs(ctx, level, "call", attrs...)
}

// callStatus is the status gRPC sends for a handler's error: a status
// error as is, a context error as Canceled or DeadlineExceeded, anything
// else as Unknown.
func callStatus(err error) *status.Status {
	if st, ok := status.FromError(err); ok {
		return st
	}
	return status.FromContextError(err)
}

// serverFault reports whether code means the server failed (a bug or an
// outage) rather than the client asking for something wrong.
func serverFault(code codes.Code) bool {
	switch code {
	case codes.Internal, codes.Unknown, codes.Unavailable:
		return true
	}
	return false
}

// metadataCarrier reads propagation headers from incoming gRPC metadata.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
