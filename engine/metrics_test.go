package engine

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc/codes"

	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

func TestMetricsRecordWhatTheServiceReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(ctx) })
	hits, misses := int64(7), int64(3)
	m, err := NewMetrics(mp, func() (int64, int64) { return hits, misses })
	if err != nil {
		t.Fatal(err)
	}

	endA := m.StreamStarted(ctx)
	endB := m.StreamStarted(ctx)
	m.Served(ctx, 100, 4096)
	m.Served(ctx, 20, 0)
	m.Planned(ctx, 3*time.Millisecond)
	m.Planned(ctx, 2*time.Second)
	m.Rejected(ctx, RejectStreamLimit)
	m.Rejected(ctx, RejectStreamLimit)
	m.Rejected(ctx, RejectUnauthenticated)
	m.CallFinished(ctx, "/arrow.flight.protocol.FlightService/DoGet", codes.OK)
	m.CallFinished(ctx, "/arrow.flight.protocol.FlightService/DoGet", codes.NotFound)
	m.CallFinished(ctx, "/arrow.flight.protocol.FlightService/DoGet", codes.OK)
	endA()

	data := testutil.CollectMetrics(t, reader, MeterName)
	checks := []struct {
		rule  string
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{"rows add up over batches", "iceflight.rows_served", nil, 120},
		{"bytes add up over batches", "iceflight.served_bytes", nil, 4096},
		{"a stream is active until its done func runs", "iceflight.active_streams", nil, 1},
		{"rejections count by reason", "iceflight.rejected_calls", []attribute.KeyValue{attribute.String("reason", RejectStreamLimit)}, 2},
		{"each reason has its own series", "iceflight.rejected_calls", []attribute.KeyValue{attribute.String("reason", RejectUnauthenticated)}, 1},
		{"calls count by method and code", "iceflight.calls", []attribute.KeyValue{
			attribute.String("method", "arrow.flight.protocol.FlightService/DoGet"), attribute.String("code", "OK")}, 2},
		{"error codes have their own series", "iceflight.calls", []attribute.KeyValue{
			attribute.String("method", "arrow.flight.protocol.FlightService/DoGet"), attribute.String("code", "NotFound")}, 1},
		{"cache hits are read from the planner", "iceflight.manifest_cache.hits", nil, 7},
		{"cache misses are read from the planner", "iceflight.manifest_cache.misses", nil, 3},
	}
	for _, c := range checks {
		if got := testutil.MetricSum(t, data, c.name, c.attrs...); got != c.want {
			t.Errorf("%s: %s = %d, want %d", c.rule, c.name, got, c.want)
		}
	}

	hist, ok := data["iceflight.plan.duration"].(metricdata.Histogram[float64])
	if !ok || len(hist.DataPoints) != 1 {
		t.Fatalf("plan duration: got %#v", data["iceflight.plan.duration"])
	}
	dp := hist.DataPoints[0]
	if dp.Count != 2 || dp.Sum < 2.003-1e-9 || dp.Sum > 2.003+1e-9 {
		t.Errorf("plan duration: count %d sum %g, want 2 and 2.003 s", dp.Count, dp.Sum)
	}
	if len(dp.Bounds) != len(planBuckets) || dp.Bounds[0] != 0.001 || dp.Bounds[len(dp.Bounds)-1] != 10 {
		t.Errorf("plan duration bounds %v, want 1 ms to 10 s", dp.Bounds)
	}
	// 3 ms falls in (2.5 ms, 5 ms], 2 s in (1 s, 2.5 s].
	for i, bound := range dp.Bounds {
		want := uint64(0)
		if bound == 0.005 || bound == 2.5 {
			want = 1
		}
		if dp.BucketCounts[i] != want {
			t.Errorf("plan duration bucket ≤%g holds %d, want %d", bound, dp.BucketCounts[i], want)
		}
	}

	// The cache callback is read at each collection, not once.
	hits, misses = 9, 4
	endB()
	data = testutil.CollectMetrics(t, reader, MeterName)
	if got := testutil.MetricSum(t, data, "iceflight.manifest_cache.hits"); got != 9 {
		t.Errorf("cache hits after more lookups = %d, want 9", got)
	}
	if got := testutil.MetricSum(t, data, "iceflight.active_streams"); got != 0 {
		t.Errorf("active streams after both ended = %d, want 0", got)
	}
}

func TestMetricsNilIsNoOp(t *testing.T) {
	t.Parallel()
	var m *Metrics
	ctx := context.Background()
	m.StreamStarted(ctx)()
	m.Served(ctx, 1, 1)
	m.Planned(ctx, time.Second)
	m.Rejected(ctx, RejectPlanLimit)
	m.CallFinished(ctx, "/x/y", codes.OK)
}

func TestMetricsWithoutCacheStats(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	m, err := NewMetrics(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Served(context.Background(), 5, 50)
	data := testutil.CollectMetrics(t, reader, MeterName)
	if _, ok := data["iceflight.manifest_cache.hits"]; ok {
		t.Error("cache counters exported without a stats callback")
	}
	if got := testutil.MetricSum(t, data, "iceflight.rows_served"); got != 5 {
		t.Errorf("rows = %d, want 5", got)
	}
}

func TestMetricsObserveReader(t *testing.T) {
	t.Parallel()
	mr := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(mr))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	m, err := NewMetrics(mp, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := reader.Stats{RowGroupsRead: 12, RowGroupsSkipped: 5, ColumnChunksDecoded: 40, ColumnChunksFallback: 2, RowsSkippedLate: 7000, RowsSkippedByPageIndex: 120}
	if err := m.ObserveReader(mp, func() reader.Stats { return st }); err != nil {
		t.Fatal(err)
	}
	st = st.Add(reader.Stats{ColumnChunksFallback: 1})
	data := testutil.CollectMetrics(t, mr, MeterName)
	checks := []struct {
		rule  string
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{"chunks pqcodec decoded", "iceflight.parquet.column_chunks", []attribute.KeyValue{attribute.String("decoder", "pqcodec")}, 40},
		{"chunks left to arrow-go, read at collection", "iceflight.parquet.column_chunks", []attribute.KeyValue{attribute.String("decoder", "arrow-go")}, 3},
		{"row groups read", "iceflight.parquet.row_groups", []attribute.KeyValue{attribute.String("outcome", "read")}, 12},
		{"row groups skipped by statistics", "iceflight.parquet.row_groups", []attribute.KeyValue{attribute.String("outcome", "skipped")}, 5},
		{"rows skipped by the filter's columns", "iceflight.parquet.rows_skipped", []attribute.KeyValue{attribute.String("by", "filter_columns")}, 7000},
		{"rows skipped by the page index", "iceflight.parquet.rows_skipped", []attribute.KeyValue{attribute.String("by", "page_index")}, 120},
	}
	for _, c := range checks {
		if got := testutil.MetricSum(t, data, c.name, c.attrs...); got != c.want {
			t.Errorf("%s: %s = %d, want %d", c.rule, c.name, got, c.want)
		}
	}
}
