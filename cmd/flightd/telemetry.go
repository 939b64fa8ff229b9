package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	httppprof "net/http/pprof"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// serviceName names flightd in exported traces and in Prometheus'
// target_info; OTEL_SERVICE_NAME overrides it.
const serviceName = "iceflight"

// setupTelemetry starts flightd's metrics and tracing.
//
// With metricsListen set, it returns a MeterProvider exported for
// Prometheus on http://metricsListen/metrics (with Go runtime and process
// metrics; /healthz answers 200), from a registry of its own. With
// metricsListen empty, the MeterProvider records nothing.
//
// When OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, spans are batched to that OTLP gRPC endpoint (the exporter reads
// the other OTEL_EXPORTER_OTLP_* variables too) through the global tracer
// provider; otherwise the global provider stays the no-op one. Either way
// the global propagator becomes W3C trace context and baggage, so a
// client's trace id reaches the call log.
//
// shutdown stops the HTTP server and flushes pending spans; call it once,
// after the gRPC server has stopped.
func setupTelemetry(ctx context.Context, metricsListen string, pprof bool, log *slog.Logger) (meterProvider metric.MeterProvider, shutdown func(context.Context) error, err error) {
	var lis net.Listener
	if metricsListen != "" {
		if lis, err = net.Listen("tcp", metricsListen); err != nil {
			return nil, nil, fmt.Errorf("metrics listen: %w", err)
		}
	}
	return startTelemetry(ctx, lis, pprof, log)
}

// startTelemetry is setupTelemetry on a listener already bound (nil: no
// metrics endpoint); it closes lis when it fails.
func startTelemetry(ctx context.Context, lis net.Listener, pprof bool, log *slog.Logger) (metric.MeterProvider, func(context.Context) error, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(serviceName)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
		resource.WithTelemetrySDK())
	if err != nil {
		if lis != nil {
			lis.Close()
		}
		return nil, nil, fmt.Errorf("telemetry resource: %w", err)
	}
	var stops []func(context.Context) error
	shutdown := func(ctx context.Context) error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i](ctx))
		}
		return errors.Join(errs...)
	}

	var mp metric.MeterProvider = noop.NewMeterProvider()
	if lis != nil {
		smp, stop, err := serveMetrics(lis, res, pprof, log)
		if err != nil {
			return nil, nil, err
		}
		mp = smp
		stops = append(stops, stop)
	}

	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		// The exporter connects lazily: an unreachable collector costs
		// dropped spans, never a failed start.
		exp, err := otlptracegrpc.New(ctx)
		if err != nil {
			_ = shutdown(ctx)
			return nil, nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		otel.SetTracerProvider(tp)
		stops = append(stops, tp.Shutdown)
		log.Info("exporting traces over OTLP")
	}
	return mp, shutdown, nil
}

// serveMetrics serves a new MeterProvider's metrics, with the Go runtime's
// and the process's, on lis at /metrics, with Go's profiles at
// /debug/pprof/ when pprof is set.
func serveMetrics(lis net.Listener, res *resource.Resource, pprof bool, log *slog.Logger) (*sdkmetric.MeterProvider, func(context.Context) error, error) {
	// A registry of its own, not prometheus.DefaultRegisterer: what is
	// exported is exactly what flightd registers, and tests can start
	// several in one process.
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfoCollector(),
	} {
		if err := reg.Register(c); err != nil {
			lis.Close()
			return nil, nil, fmt.Errorf("metrics: %w", err)
		}
	}
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		lis.Close()
		return nil, nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))

	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	if pprof {
		// Explicit routes, not net/http/pprof's registration on the default
		// mux, which any other import could expose by accident.
		mux.HandleFunc("GET /debug/pprof/", httppprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", httppprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", httppprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", httppprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", httppprof.Trace)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	log.Info("serving metrics", "url", "http://"+lis.Addr().String()+"/metrics")

	stop := func(ctx context.Context) error {
		err := srv.Shutdown(ctx)
		<-done
		return errors.Join(err, mp.Shutdown(ctx))
	}
	return mp, stop, nil
}
