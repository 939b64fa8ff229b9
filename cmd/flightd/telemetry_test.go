package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/reader"
)

// metricsURL finds the /metrics address setupTelemetry logged.
func metricsURL(t *testing.T, logs *bytes.Buffer) string {
	t.Helper()
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec struct{ URL string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.URL != "" {
			return rec.URL
		}
	}
	t.Fatalf("no metrics url logged: %s", logs)
	return ""
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestTelemetryServesPrometheusMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var logs bytes.Buffer
	mp, shutdown, err := setupTelemetry(ctx, "127.0.0.1:0", false, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	url := metricsURL(t, &logs)

	m, err := engine.NewMetrics(mp, func() (int64, int64) { return 11, 2 })
	if err != nil {
		t.Fatal(err)
	}
	if err := m.ObserveReader(mp, func() reader.Stats {
		return reader.Stats{RowGroupsRead: 4, RowGroupsSkipped: 1, ColumnChunksDecoded: 30, ColumnChunksFallback: 2, RowsSkippedLate: 900, RowsSkippedByPageIndex: 40}
	}); err != nil {
		t.Fatal(err)
	}
	done := m.StreamStarted(ctx)
	m.Served(ctx, 7, 700)
	m.Planned(ctx, 4*time.Millisecond)
	m.Rejected(ctx, engine.RejectStreamLimit)

	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	// The series a Prometheus scrape of flightd must find, in the text
	// exposition format (names per OpenTelemetry's Prometheus mapping).
	for _, want := range []string{
		"iceflight_rows_served_total 7",
		"iceflight_served_bytes_total 700",
		"iceflight_active_streams 1",
		`iceflight_plan_duration_seconds_bucket{le="0.0025"} 0`,
		`iceflight_plan_duration_seconds_bucket{le="0.005"} 1`,
		"iceflight_plan_duration_seconds_count 1",
		`iceflight_rejected_calls_total{reason="stream_limit"} 1`,
		"iceflight_manifest_cache_hits_total 11",
		"iceflight_manifest_cache_misses_total 2",
		`iceflight_parquet_column_chunks_total{decoder="pqcodec"} 30`,
		`iceflight_parquet_column_chunks_total{decoder="arrow-go"} 2`,
		`iceflight_parquet_row_groups_total{outcome="read"} 4`,
		`iceflight_parquet_row_groups_total{outcome="skipped"} 1`,
		`iceflight_parquet_rows_skipped_total{by="filter_columns"} 900`,
		`iceflight_parquet_rows_skipped_total{by="page_index"} 40`,
		"go_goroutines ",
		"process_resident_memory_bytes ",
		`target_info{service_name="iceflight"`,
		`iceflight_build_info{goversion="` + runtime.Version() + `",version="` + buildVersion() + `"} 1`,
	} {
		if !strings.Contains(body, "\n"+want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	done()
	if code, _ := get(t, strings.TrimSuffix(url, "/metrics")+"/healthz"); code != http.StatusOK {
		t.Errorf("GET /healthz: %d, want 200", code)
	}

	if err := shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("/metrics still served after shutdown")
	}
}

func TestTelemetryWithoutMetricsListen(t *testing.T) {
	t.Parallel()
	mp, shutdown, err := setupTelemetry(context.Background(), "", false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	m, err := engine.NewMetrics(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Served(context.Background(), 1, 1)
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestTelemetryRejectsABadMetricsAddress(t *testing.T) {
	t.Parallel()
	if _, _, err := setupTelemetry(context.Background(), "256.0.0.1:http", false, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("setupTelemetry accepted an address it cannot bind")
	}
}

// fakeCollector is an in-process OTLP trace collector that keeps the
// names of the spans exported to it, and their service name.
type fakeCollector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu       sync.Mutex
	spans    []string
	services []string
}

func (c *fakeCollector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				c.services = append(c.services, a.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, s.Name)
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// Not parallel: it sets the OTLP environment and the global tracer
// provider.
func TestTelemetryExportsSpansOverOTLP(t *testing.T) {
	col := &fakeCollector{}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, col)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+lis.Addr().String())
	t.Cleanup(func() { otel.SetTracerProvider(tracenoop.NewTracerProvider()) })

	ctx := context.Background()
	_, shutdown, err := setupTelemetry(ctx, "", false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// A real plan, so the spans are the planner's own.
	if code, _, stderr := runCmd(t, "plan", "samples.trips", "--warehouse", sampleWarehouse); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	// Shutdown flushes the batch span processor.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	got := strings.Join(col.spans, " ")
	for _, want := range []string{"planner.Plan", "planner.ManifestList", "planner.Manifest"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("collector got spans %q, want %s among them", got, want)
		}
	}
	if len(col.services) == 0 || col.services[0] != "iceflight" {
		t.Errorf("exported service.name %v, want iceflight", col.services)
	}
}

func TestTelemetryServesProfilesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, pprof := range []bool{false, true} {
		var logs bytes.Buffer
		_, shutdown, err := setupTelemetry(context.Background(), "127.0.0.1:0", pprof, slog.New(slog.NewJSONHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		url := strings.TrimSuffix(metricsURL(t, &logs), "/metrics") + "/debug/pprof/goroutine?debug=1"
		code, body := get(t, url)
		if want := map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[pprof]; code != want {
			t.Errorf("pprof=%v: GET %s: %d, want %d", pprof, url, code, want)
		}
		if pprof && !strings.Contains(body, "goroutine profile") {
			t.Errorf("pprof=%v: body %.80q is not a goroutine profile", pprof, body)
		}
		if err := shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}
}
