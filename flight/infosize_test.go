package flight

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// defaultClientLimit is the largest message a gRPC client receives unless
// told otherwise; the harness's arrow-go client keeps it.
const defaultClientLimit = 4 << 20

// readIDs reads every endpoint of info and returns the sorted ids and the
// distinct vendors of its rows.
func (h *harness) readIDs(ctx context.Context, t *testing.T, info *flight.FlightInfo) ([]int64, []string) {
	t.Helper()
	var ids []int64
	var vendors []string
	h.each(ctx, t, info, func(rec arrow.RecordBatch) {
		idCol := rec.Column(0).(*array.Int64)
		vendor := rec.Column(1).(*array.String)
		for i := range idCol.Len() {
			ids = append(ids, idCol.Value(i))
			if vendor.IsValid(i) && !slices.Contains(vendors, vendor.Value(i)) {
				vendors = append(vendors, vendor.Value(i))
			}
		}
	})
	slices.Sort(ids)
	slices.Sort(vendors)
	return ids, vendors
}

// TestFlightInfoFitsADefaultClient sends filters of megabytes through the
// service and a client with gRPC's default 4 MiB receive limit: each plan
// either fits that limit, with the rows a small equivalent filter reads, or
// is refused with InvalidArgument naming the table and the sizes, never
// with a message the client cannot receive.
func TestFlightInfoFitsADefaultClient(t *testing.T) {
	h := serve(t, 50)
	ctx := context.Background()
	columns := []string{"id", "vendor"}
	all, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "columns": columns}))
	if err != nil {
		t.Fatal(err)
	}
	_, vendors := h.readIDs(ctx, t, all)
	if len(vendors) < 2 {
		t.Fatalf("samples.trips has vendors %q, want at least two", vendors)
	}
	// An IN of 100,000 strings (1.3 MB) that matches the rows of two
	// vendors, and the same two vendors in a filter of a few bytes.
	picked := vendors[:2]
	var in strings.Builder
	in.WriteString("vendor IN (")
	for i := range 100_000 {
		fmt.Fprintf(&in, "'nv-%06d', ", i)
	}
	fmt.Fprintf(&in, "'%s', '%s')", picked[0], picked[1])
	small := fmt.Sprintf("vendor IN ('%s', '%s')", picked[0], picked[1])
	literal := "note = '" + strings.Repeat("x", 3<<20) + "'"

	cases := []struct {
		name   string
		filter string
		// same is a small filter that selects the same rows; "" means the
		// plan must be refused.
		same string
	}{
		{"an IN of 100k strings fits and reads the rows of its two matches", in.String(), small},
		{"a 3 MB literal, repeated in the command and a ticket, is refused", literal, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			desc := testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "columns": columns, "filter": tc.filter})
			info, err := h.client.GetFlightInfo(ctx, desc)
			if tc.same == "" {
				if status.Code(err) != codes.InvalidArgument {
					t.Fatalf("got %v, want InvalidArgument", err)
				}
				msg := status.Convert(err).Message()
				if !strings.Contains(msg, "samples.trips") || !strings.Contains(msg, "bytes") || len(msg) > 2*engine.MaxStatusMessageBytes {
					t.Fatalf("the refusal does not name the table and sizes briefly: %.300s", msg)
				}
				if _, err := h.client.PollFlightInfo(ctx, desc); status.Code(err) != codes.InvalidArgument {
					t.Fatalf("PollFlightInfo: got %v, want InvalidArgument", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := proto.Size(info); n > engine.DefaultMaxFlightInfoBytes {
				t.Fatalf("FlightInfo of %d bytes, over the %d budget", n, engine.DefaultMaxFlightInfoBytes)
			}
			poll, err := h.client.PollFlightInfo(ctx, desc)
			if err != nil {
				t.Fatal(err)
			}
			if n := proto.Size(poll); n > defaultClientLimit {
				t.Fatalf("PollInfo of %d bytes, over the client's %d", n, defaultClientLimit)
			}
			// Evaluating an IN of 100k values costs seconds a batch (issue 15
			// item 8), so the rows are compared on the first ones of one
			// stream: a limited scan is one endpoint, in the same file order
			// for both filters.
			limited := func(filter string) []int64 {
				info, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "columns": columns, "filter": filter, "limit": 20}))
				if err != nil {
					t.Fatal(err)
				}
				ids, _ := h.readIDs(ctx, t, info)
				return ids
			}
			got, wantIDs := limited(tc.filter), limited(tc.same)
			if len(wantIDs) == 0 {
				t.Fatal("the small filter reads no rows; the test needs it to select some")
			}
			if !slices.Equal(got, wantIDs) {
				t.Fatalf("read %d rows, the small filter %d", len(got), len(wantIDs))
			}
		})
	}
}

// TestABudgetGroupsTasksIntoFewerEndpoints gives the service a budget that
// the plan's four endpoints pass and two endpoints meet: it answers with
// fewer endpoints within the budget and every row, and refuses a budget
// that not even one endpoint meets.
func TestABudgetGroupsTasksIntoFewerEndpoints(t *testing.T) {
	ctx := context.Background()
	filter := "note != '" + strings.Repeat("z", 32<<10) + "'"
	cmd := func(maxEndpoints int) *flight.FlightDescriptor {
		return testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "filter": filter, "max_endpoints": maxEndpoints})
	}
	h := serve(t, 1000)
	four, err := h.client.GetFlightInfo(ctx, cmd(4))
	if err != nil {
		t.Fatal(err)
	}
	two, err := h.client.GetFlightInfo(ctx, cmd(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(four.Endpoint) != 4 || len(two.Endpoint) != 2 {
		t.Fatalf("%d and %d endpoints, want 4 and 2", len(four.Endpoint), len(two.Endpoint))
	}
	rows := h.readAll(ctx, t, four)
	// The descriptors differ in one digit, so the two-endpoint plan's size
	// is what the four-endpoint plan takes grouped in two.
	budget := proto.Size(two)
	cases := []struct {
		name   string
		budget int
		want   codes.Code
	}{
		{"a budget two endpoints meet groups the tasks in two", budget, codes.OK},
		{"a budget below one endpoint's filter is InvalidArgument", len(filter), codes.InvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := serve(t, 1000, engine.WithMaxFlightInfoBytes(tc.budget))
			info, err := h.client.GetFlightInfo(ctx, cmd(4))
			if status.Code(err) != tc.want {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if err != nil {
				return
			}
			if n := proto.Size(info); n > tc.budget || len(info.Endpoint) > 2 {
				t.Fatalf("%d endpoints in %d bytes, want at most 2 in %d", len(info.Endpoint), n, tc.budget)
			}
			if got := h.readAll(ctx, t, info); got != rows {
				t.Fatalf("read %d rows, want %d", got, rows)
			}
		})
	}
}
