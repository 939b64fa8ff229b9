package flight

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestMessagesSayWhatWasMeant checks the messages a newcomer's first
// mistakes get: each keeps its code and says what to send instead.
func TestMessagesSayWhatWasMeant(t *testing.T) {
	h := serve(t, 1000)
	sql := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte("SELECT * FROM samples.trips")}
	cases := []struct {
		name string
		desc *flight.FlightDescriptor
		code codes.Code
		want string
	}{
		{"a misspelled table names the nearest tables", testutil.PathDesc("samples", "trip"), codes.NotFound,
			"table samples.trip: table not found (nearest: samples.trips, "},
		{"a table without its namespace names the namespaced one", testutil.PathDesc("trips"), codes.NotFound,
			"table trips: table not found (a table name starts with its namespace: samples.trips)"},
		{"a misspelled table without its namespace names the nearest namespaced ones", testutil.PathDesc("trip"), codes.NotFound,
			"(a table name starts with its namespace; nearest: samples.trips, "},
		{"a time in seconds says the unit is milliseconds", testutil.CmdDesc(t, map[string]any{"table": "samples.history", "as_of_timestamp_ms": 1767225600}), codes.NotFound,
			"the earliest is 2025-11-01T00:00:00Z (1761955200000 ms); as_of_timestamp_ms is in milliseconds and 1767225600 looks like seconds"},
		{"an unquoted string asks for quotes", testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "filter": "vendor = NYC"}), codes.InvalidArgument,
			"string literals take single quotes: 'NYC'"},
		{"SQL text says a command is JSON", sql, codes.InvalidArgument,
			`command "SELECT * FROM samples.trips" is text, not JSON: a command is a JSON object such as {"table": "samples.trips"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.client.GetFlightInfo(context.Background(), tc.desc)
			if status.Code(err) != tc.code || !strings.Contains(status.Convert(err).Message(), tc.want) {
				t.Fatalf("got %v\nwant %v containing %q", err, tc.code, tc.want)
			}
		})
	}
}
