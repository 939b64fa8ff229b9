package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc/codes"

	"github.com/iceflight/iceflight/reader"
)

// MeterName is the instrumentation scope of the engine's metrics (the
// package it began in, which operators' dashboards name).
const MeterName = "github.com/iceflight/iceflight/flight"

// Reasons a call is rejected before it does any work, the values of the
// reason attribute of iceflight.rejected_calls.
const (
	// RejectStreamLimit: the process already serves --max-streams DoGets.
	RejectStreamLimit = "stream_limit"
	// RejectPlanLimit: the process already runs --max-plans planning calls.
	RejectPlanLimit = "plan_limit"
	// RejectPutLimit: the process already runs its bound of DoPut streams.
	RejectPutLimit = "put_limit"
	// RejectUnauthenticated: missing or wrong credentials.
	RejectUnauthenticated = "unauthenticated"
	// RejectPermissionDenied: valid credentials for another namespace, or
	// a forged or tampered ticket.
	RejectPermissionDenied = "permission_denied"
	// RejectDraining: the process is shutting down.
	RejectDraining = "draining"
)

// planBuckets are the plan latency histogram's bounds in seconds: a cached
// plan of a small table takes about a millisecond, a cold plan reading
// thousands of manifests from object storage several seconds.
var planBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Metrics records the engine's OpenTelemetry metrics. Its methods are
// safe for concurrent use, and a nil *Metrics records nothing, so code
// paths need no checks when metrics are off.
//
// The instrument names below become, through the Prometheus exporter,
// iceflight_rows_served_total, iceflight_served_bytes_total,
// iceflight_active_streams, iceflight_plan_duration_seconds,
// iceflight_manifest_cache_hits_total, iceflight_manifest_cache_misses_total,
// iceflight_rejected_calls_total{reason}, iceflight_calls_total{method,code}
// and iceflight_panics_total; with ObserveReader also
// iceflight_parquet_column_chunks_total{decoder},
// iceflight_parquet_row_groups_total{outcome} and
// iceflight_parquet_rows_skipped_total{by}.
type Metrics struct {
	rows     metric.Int64Counter
	bytes    metric.Int64Counter
	streams  metric.Int64UpDownCounter
	plan     metric.Float64Histogram
	rejected metric.Int64Counter
	calls    metric.Int64Counter
	panics   metric.Int64Counter
	written  metric.Int64Counter
	putBytes metric.Int64Counter
}

// NewMetrics creates the engine's instruments on a meter of mp.
// cacheStats, when not nil, is called at each collection for the manifest
// cache's running hit and miss counts (planner.Planner.CacheStats).
func NewMetrics(mp metric.MeterProvider, cacheStats func() (hits, misses int64)) (*Metrics, error) {
	meter := mp.Meter(MeterName)
	m := &Metrics{}
	var err error
	if m.rows, err = meter.Int64Counter("iceflight.rows_served", metric.WithUnit("{row}"),
		metric.WithDescription("Rows sent to clients by DoGet.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.bytes, err = meter.Int64Counter("iceflight.served_bytes", metric.WithUnit("By"),
		metric.WithDescription("Arrow IPC body bytes sent to clients by DoGet.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.streams, err = meter.Int64UpDownCounter("iceflight.active_streams", metric.WithUnit("{stream}"),
		metric.WithDescription("DoGet streams being served.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.plan, err = meter.Float64Histogram("iceflight.plan.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to plan a scan (GetFlightInfo)."),
		metric.WithExplicitBucketBoundaries(planBuckets...)); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.rejected, err = meter.Int64Counter("iceflight.rejected_calls", metric.WithUnit("{call}"),
		metric.WithDescription("Calls refused before doing work, by reason.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.calls, err = meter.Int64Counter("iceflight.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Finished gRPC calls, by method and status code.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.panics, err = meter.Int64Counter("iceflight.panics", metric.WithUnit("{panic}"),
		metric.WithDescription("Panics recovered while serving a call; each is a bug, logged with its stack.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.written, err = meter.Int64Counter("iceflight.rows_written", metric.WithUnit("{row}"),
		metric.WithDescription("Rows committed from clients' DoPut streams.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if m.putBytes, err = meter.Int64Counter("iceflight.received_bytes", metric.WithUnit("By"),
		metric.WithDescription("Arrow IPC bytes of the DoPut streams committed.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if cacheStats != nil {
		if err := observeCache(meter, cacheStats); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	return m, nil
}

// observeCache registers the manifest cache counters, read from the
// planner at collection time rather than counted twice.
func observeCache(meter metric.Meter, stats func() (hits, misses int64)) error {
	hits, err := meter.Int64ObservableCounter("iceflight.manifest_cache.hits", metric.WithUnit("{lookup}"),
		metric.WithDescription("Manifest and manifest list lookups served from the cache."))
	if err != nil {
		return err
	}
	misses, err := meter.Int64ObservableCounter("iceflight.manifest_cache.misses", metric.WithUnit("{lookup}"),
		metric.WithDescription("Manifest and manifest list lookups that read the file."))
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		h, m := stats()
		o.ObserveInt64(hits, h)
		o.ObserveInt64(misses, m)
		return nil
	}, hits, misses)
	return err
}

// ObserveReader registers the Parquet decoding counters, read from stats
// at collection time: column chunks of flat columns by the decoder that
// read them (decoder="pqcodec", or "arrow-go" where pqcodec does not
// cover a chunk's codec, encoding or type), row groups read and skipped
// by their statistics, and rows stepped over undecoded: by="filter_columns"
// where the residual filter's columns ruled out their batch, and
// by="page_index" where the page index ruled out their pages. A rising
// arrow-go count is how an operator sees files that miss the fast path.
func (m *Metrics) ObserveReader(mp metric.MeterProvider, stats func() reader.Stats) error {
	if m == nil {
		return nil
	}
	meter := mp.Meter(MeterName)
	chunks, err := meter.Int64ObservableCounter("iceflight.parquet.column_chunks", metric.WithUnit("{chunk}"),
		metric.WithDescription("Parquet column chunks of flat columns decoded, by decoder."))
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	groups, err := meter.Int64ObservableCounter("iceflight.parquet.row_groups", metric.WithUnit("{row_group}"),
		metric.WithDescription("Parquet row groups of data files, read or skipped by their statistics."))
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	rows, err := meter.Int64ObservableCounter("iceflight.parquet.rows_skipped", metric.WithUnit("{row}"),
		metric.WithDescription("Rows of data files not decoded, by what ruled them out: the residual filter's columns or the page index."))
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	pqcodec := metric.WithAttributes(attribute.String("decoder", "pqcodec"))
	arrowGo := metric.WithAttributes(attribute.String("decoder", "arrow-go"))
	read := metric.WithAttributes(attribute.String("outcome", "read"))
	skipped := metric.WithAttributes(attribute.String("outcome", "skipped"))
	byFilter := metric.WithAttributes(attribute.String("by", "filter_columns"))
	byIndex := metric.WithAttributes(attribute.String("by", "page_index"))
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := stats()
		o.ObserveInt64(chunks, st.ColumnChunksDecoded, pqcodec)
		o.ObserveInt64(chunks, st.ColumnChunksFallback, arrowGo)
		o.ObserveInt64(groups, st.RowGroupsRead, read)
		o.ObserveInt64(groups, st.RowGroupsSkipped, skipped)
		o.ObserveInt64(rows, st.RowsSkippedLate, byFilter)
		o.ObserveInt64(rows, st.RowsSkippedByPageIndex, byIndex)
		return nil
	}, chunks, groups, rows)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// StreamStarted counts a DoGet stream as active until the returned
// function is called; call it exactly once, when the stream ends.
func (m *Metrics) StreamStarted(ctx context.Context) (done func()) {
	if m == nil {
		return func() {}
	}
	m.streams.Add(ctx, 1)
	return func() { m.streams.Add(ctx, -1) }
}

// Served counts rows and Arrow IPC body bytes sent to a client; either may
// be zero.
func (m *Metrics) Served(ctx context.Context, rows, bytes int64) {
	if m == nil {
		return
	}
	if rows > 0 {
		m.rows.Add(ctx, rows)
	}
	if bytes > 0 {
		m.bytes.Add(ctx, bytes)
	}
}

// Planned records the time one scan took to plan.
func (m *Metrics) Planned(ctx context.Context, d time.Duration) {
	if m == nil {
		return
	}
	m.plan.Record(ctx, d.Seconds())
}

// Rejected counts a call refused for reason, one of the Reject constants.
func (m *Metrics) Rejected(ctx context.Context, reason string) {
	if m == nil {
		return
	}
	m.rejected.Add(ctx, 1, metric.WithAttributes(attribute.String("reason", reason)))
}

// Panicked counts a panic recovered while serving a call.
func (m *Metrics) Panicked(ctx context.Context) {
	if m == nil {
		return
	}
	m.panics.Add(ctx, 1)
}

// CallFinished counts a finished gRPC call by its full method name
// ("/package.Service/Method") and status code. The call log interceptors
// call it; the engine need not.
func (m *Metrics) CallFinished(ctx context.Context, fullMethod string, code codes.Code) {
	if m == nil {
		return
	}
	m.calls.Add(ctx, 1, metric.WithAttributes(
		attribute.String("method", strings.TrimPrefix(fullMethod, "/")),
		attribute.String("code", code.String())))
}

// Written counts the rows and Arrow IPC bytes of a committed DoPut.
func (m *Metrics) Written(ctx context.Context, rows, bytes int64) {
	if m == nil {
		return
	}
	m.written.Add(ctx, rows)
	m.putBytes.Add(ctx, bytes)
}
