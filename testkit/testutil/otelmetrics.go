package testutil

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// CollectMetrics reads every metric of the instrumentation scope named
// scope, by instrument name.
func CollectMetrics(t testing.TB, r *sdkmetric.ManualReader, scope string) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != scope {
			continue
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// MetricSum returns the int64 sum's value for the data point whose attributes
// are exactly attrs.
func MetricSum(t testing.TB, data map[string]metricdata.Aggregation, name string, attrs ...attribute.KeyValue) int64 {
	t.Helper()
	sum, ok := data[name].(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s: got %T, want an int64 sum", name, data[name])
	}
	want := attribute.NewSet(attrs...)
	for _, dp := range sum.DataPoints {
		if dp.Attributes.Equals(&want) {
			return dp.Value
		}
	}
	t.Fatalf("%s: no data point with attributes %v in %+v", name, want.ToSlice(), sum.DataPoints)
	return 0
}
