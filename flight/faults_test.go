package flight

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestStorageErrorsEndTheStreamWithAnActionableCode checks what a client
// sees when storage fails after planning: NotFound when a data file is gone
// (say, expired with its snapshot), Unavailable when storage is down,
// PermissionDenied when it refuses the credentials, and the file named
// every way.
func TestStorageErrorsEndTheStreamWithAnActionableCode(t *testing.T) {
	tests := []struct {
		name  string
		fault func(loc string, read int64) error
		code  codes.Code
	}{
		{"data file gone since planning", func(loc string, read int64) error {
			if read < 0 && strings.HasSuffix(loc, ".parquet") {
				return fmt.Errorf("open %s: %w", loc, fileio.ErrNotFound)
			}
			return nil
		}, codes.NotFound},
		{"storage outage mid-stream", func(loc string, read int64) error {
			if read > 3 {
				return fmt.Errorf("read %s: connection reset: %w", loc, fileio.ErrUnavailable)
			}
			return nil
		}, codes.Unavailable},
		{"storage refuses the credentials", func(loc string, read int64) error {
			if read < 0 && strings.HasSuffix(loc, ".parquet") {
				return fmt.Errorf("open %s: bucket b, static keys from s3.access-key-id: %w", loc, fileio.ErrPermissionDenied)
			}
			return nil
		}, codes.PermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := serve(t, 100)
			ctx := context.Background()
			info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "max_endpoints": 1}))
			if err != nil {
				t.Fatal(err)
			}
			h.data.Fault.Store(&tt.fault)
			stream, err := h.client.DoGet(ctx, info.Endpoint[0].Ticket)
			if err != nil {
				t.Fatal(err)
			}
			for err == nil {
				_, err = stream.Recv()
			}
			if err == io.EOF || status.Code(err) != tt.code {
				t.Fatalf("stream ended with %v, want %s", err, tt.code)
			}
			if !strings.Contains(err.Error(), ".parquet") || !strings.Contains(err.Error(), "samples.trips") {
				t.Errorf("error %q names neither the file nor the table", err)
			}
		})
	}
}

// TestSlowClientSlowsOnlyItsStream checks backpressure: a client that
// stops reading stops the server's reads once gRPC flow control fills, so
// a stream's server memory stays bounded however slow its client is.
func TestSlowClientSlowsOnlyItsStream(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := engine.NewMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, 10, engine.WithMetrics(m)) // 10-row batches: thousands of messages
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info, _ := startTripsStream(ctx, t, h)
	served := func() int64 {
		return testutil.MetricSum(t, testutil.CollectMetrics(t, reader, engine.MeterName), "iceflight.rows_served")
	}
	// Let the server fill the flow-control window, then watch it stay put.
	var before int64
	for i := 0; ; i++ {
		time.Sleep(100 * time.Millisecond)
		now := served()
		if now == before && now > 0 {
			break
		}
		if i > 50 {
			t.Fatalf("the server kept producing for 5s (%d rows) while its client read nothing", now)
		}
		before = now
	}
	if before >= info.TotalRecords {
		t.Fatalf("the server produced all %d rows for a client that read one message", before)
	}
	heldBytes := h.mem.CurrentAlloc()
	time.Sleep(300 * time.Millisecond)
	if now := served(); now != before {
		t.Errorf("server produced %d more rows while the client was stalled", now-before)
	}
	if heldBytes > 16<<20 {
		t.Errorf("a stalled stream holds %d bytes of Arrow memory on the server", heldBytes)
	}
	t.Logf("stalled at %d of %d rows, %d bytes of Arrow memory held", before, info.TotalRecords, heldBytes)
	cancel()
}

// TestAClientCancelIsLoggedAsCanceled checks that a stream its client
// cancels mid-read ends Canceled in the call log, at INFO: it is no
// server fault, and was once logged Internal at WARN.
func TestAClientCancelIsLoggedAsCanceled(t *testing.T) {
	var logs testutil.LockedBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := serveWith(t, 10, []grpc.ServerOption{grpc.ChainStreamInterceptor(engine.StreamCallLog(log, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startTripsStream(ctx, t, h)
	cancel()
	for i := 0; ; i++ {
		for _, l := range logs.JSONLines(t) {
			if l["method"] != "/arrow.flight.protocol.FlightService/DoGet" {
				continue
			}
			if l["code"] != codes.Canceled.String() || l["level"] != "INFO" {
				t.Fatalf("a cancelled stream logged %v at %v, want Canceled at INFO (err %v)", l["code"], l["level"], l["err"])
			}
			return
		}
		if i > 100 {
			t.Fatal("no call log line for the cancelled DoGet after 5s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startTripsStream plans samples.trips as one endpoint and starts its
// stream, returning once the first message has arrived.
func startTripsStream(ctx context.Context, t *testing.T, h *harness) (*flight.FlightInfo, flight.FlightService_DoGetClient) {
	t.Helper()
	info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "max_endpoints": 1}))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := h.client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	return info, stream
}
