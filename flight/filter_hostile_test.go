package flight

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestHostileFiltersAreInvalidArgument sends filters built to exhaust the
// stack or the log (issue 15): each is refused with InvalidArgument and a
// message of a few hundred bytes, and the server keeps serving.
func TestHostileFiltersAreInvalidArgument(t *testing.T) {
	h := serve(t, 1000)
	big := strings.Repeat("x", 1<<20)
	notJSON := strings.Repeat(`{"type":"not","child":`, 600) + `{"type":"is-null","term":"id"}` + strings.Repeat("}", 600)
	cases := []struct {
		name string
		cmd  []byte
	}{
		{"1.6 million parentheses", cmdJSON(t, "samples.trips", strings.Repeat("(", 1_600_000))},
		{"600 NOTs in JSON", []byte(`{"table": "samples.trips", "filter": ` + notJSON + `}`)},
		{"JSON nested past the decoder's limit", []byte(`{"table": "samples.trips", "filter": ` + strings.Repeat("[", 1<<20) + `}`)},
		{"a megabyte string literal on a long column", cmdJSON(t, "samples.trips", "id = '"+big+"'")},
		{"a megabyte column name", cmdJSON(t, "samples.trips", `"`+big+`" = 1`)},
	}
	for _, tc := range cases {
		_, err := h.client.GetFlightInfo(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: tc.cmd})
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("%s: got %.300v, want InvalidArgument", tc.name, err)
		}
		if n := len(status.Convert(err).Message()); n > 600 {
			t.Fatalf("%s: message of %d bytes", tc.name, n)
		}
	}
	if _, err := h.client.GetFlightInfo(context.Background(), testutil.PathDesc("samples", "trips")); err != nil {
		t.Fatalf("after the hostile filters: %v", err)
	}
}

// TestLongOrReadsTheRowsItNames plans and reads samples.trips with an OR
// of 12,000 equalities, past the 10,500 terms that failed with Internal:
// every id the filter names that the table holds comes back, once.
func TestLongOrReadsTheRowsItNames(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	const n = 12_000
	want := 0
	for id := range h.ids(ctx, t, mustInfo(t, h, cmdJSON(t, "samples.trips", ""))) {
		if id%2 == 0 && id < 2*n {
			want++
		}
	}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(" OR ")
		}
		fmt.Fprintf(&b, "id = %d", 2*i)
	}
	got := h.ids(ctx, t, mustInfo(t, h, cmdJSON(t, "samples.trips", b.String())))
	for id := range got {
		if id%2 != 0 || id >= 2*n {
			t.Fatalf("row %d does not match the filter", id)
		}
	}
	if len(got) != want || want == 0 {
		t.Fatalf("read %d rows, want %d", len(got), want)
	}
}

// ids reads every endpoint and returns the ids of the rows, failing on a
// repeated id.
func (h *harness) ids(ctx context.Context, t *testing.T, info *flight.FlightInfo) map[int64]bool {
	t.Helper()
	out := map[int64]bool{}
	h.each(ctx, t, info, func(rec arrow.RecordBatch) {
		col := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		for i := range col.Len() {
			if out[col.Value(i)] {
				t.Fatalf("row %d read twice", col.Value(i))
			}
			out[col.Value(i)] = true
		}
	})
	return out
}

func cmdJSON(t *testing.T, table, filter string) []byte {
	cmd := map[string]any{"table": table}
	if filter != "" {
		cmd["filter"] = filter
	}
	return testutil.CmdDesc(t, cmd).Cmd
}

func mustInfo(t *testing.T, h *harness, cmd []byte) *flight.FlightInfo {
	t.Helper()
	info, err := h.client.GetFlightInfo(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	if err != nil {
		t.Fatalf("GetFlightInfo: %.300v", err)
	}
	return info
}
