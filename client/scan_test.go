package client

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// relocate gives every endpoint of p these locations instead.
func relocate(p *Plan, locs ...string) *Plan {
	q := *p
	q.Endpoints = nil
	for _, ep := range p.Endpoints {
		e := &flight.FlightEndpoint{Ticket: ep.Ticket, AppMetadata: ep.AppMetadata}
		for _, l := range locs {
			e.Location = append(e.Location, &flight.Location{Uri: l})
		}
		q.Endpoints = append(q.Endpoints, e)
	}
	return &q
}

func TestLocations(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	table := "samples.trips"
	cur := readIndex(t, table).Scans[0]
	schema := parseSchema(t, cur.Schema, nil)
	want := oracleRows(t, filepath.Join(expected, table, cur.File), schema)
	dead := deadAddr(t)
	tests := []struct {
		name  string
		locs  []string
		conns []string // locations the client dialed, in order
	}{
		{"a dead first location fails over to the next", []string{dead, srv.addr}, []string{srv.addr, dead}},
		{"reuse-connection means the planning connection", []string{ReuseConnection}, []string{srv.addr}},
		{"no location means the planning connection", nil, []string{srv.addr}},
		{"a dead location before reuse-connection", []string{dead, ReuseConnection}, []string{srv.addr, dead}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := dial(t, srv.addr, WithMaxWorkers(2))
			ctx := context.Background()
			plan, err := c.Plan(ctx, Command{Table: table})
			if err != nil {
				t.Fatal(err)
			}
			moved := relocate(plan, tt.locs...)
			for range 2 { // the second read reuses the connections of the first
				tbl, err := c.ReadPlan(ctx, moved)
				if err != nil {
					t.Fatal(err)
				}
				sameRows(t, tt.name, tableRows(t, tbl, schema), want)
				tbl.Release()
			}
			if got := c.conns.locations(); !slices.Equal(got, tt.conns) {
				t.Errorf("dialed %v, want one connection each to %v", got, tt.conns)
			}
		})
	}
}

func TestEveryLocationDeadIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	ctx := context.Background()
	plan, err := c.Plan(ctx, Command{Table: "samples.trips"})
	if err != nil {
		t.Fatal(err)
	}
	dead1, dead2 := deadAddr(t), deadAddr(t)
	tbl, err := c.ReadPlan(ctx, relocate(plan, dead1, dead2))
	if err == nil {
		tbl.Release()
		t.Fatal("read from dead locations succeeded")
	}
	if !errors.Is(err, ErrEndpointUnavailable) || status.Code(err) != codes.Unavailable {
		t.Errorf("got %v (code %v), want ErrEndpointUnavailable with code Unavailable", err, status.Code(err))
	}
	for _, s := range []string{"samples.trips", dead1, dead2} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}

func TestARefusedTicketDoesNotFailOver(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr)
	ctx := context.Background()
	plan, err := c.Plan(ctx, Command{Table: "samples.trips"})
	if err != nil {
		t.Fatal(err)
	}
	bad := relocate(plan, srv.addr, ReuseConnection)
	raw := slices.Clone(bad.Endpoints[0].Ticket.Ticket)
	raw[len(raw)/2] ^= 1
	bad.Endpoints = bad.Endpoints[:1]
	bad.Endpoints[0].Ticket = &flight.Ticket{Ticket: raw}
	before := srv.doGets.Load()
	_, err = c.ReadPlan(ctx, bad)
	if code := status.Code(err); code != codes.PermissionDenied && code != codes.Unauthenticated {
		t.Errorf("got %v, want PermissionDenied", err)
	}
	if n := srv.doGets.Load() - before; n != 1 {
		t.Errorf("%d DoGet calls, want 1: a refusal is an answer, not an outage", n)
	}
}

func TestEndpointsAreReadAtMostMaxWorkersAtOnce(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 3} {
		// Each DoGet waits 30 ms before streaming, so streams overlap.
		srv := serve(t, 1000, 30*time.Millisecond)
		c, _ := dial(t, srv.addr, WithMaxWorkers(workers))
		tbl, err := c.Read(context.Background(), Command{Table: "samples.eq_deletes_evolved"}) // 15 endpoints
		if err != nil {
			t.Fatal(err)
		}
		tbl.Release()
		if got := srv.maxActive.Load(); got != int64(workers) {
			t.Errorf("max workers %d: %d streams open at once", workers, got)
		}
	}
}

func TestASlowConsumerBoundsWhatIsBuffered(t *testing.T) {
	t.Parallel()
	srv := serve(t, 100, 0) // samples.pos_deletes_rowgroups: ~30 batches in its first endpoint
	c, _ := dial(t, srv.addr, WithMaxWorkers(1), WithBufferedBatches(1))
	var received atomic.Int64
	c.onRecord = func() { received.Add(1) }
	var seen []int64
	var rows int64
	err := c.Scan(context.Background(), Command{Table: "samples.pos_deletes_rowgroups"}, func(rec arrow.RecordBatch) error {
		if len(seen) == 0 {
			time.Sleep(200 * time.Millisecond)
		}
		seen = append(seen, received.Load())
		rows += rec.NumRows()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// While the consumer held the first batch: one more queued and one in the
	// worker's hands.
	if seen[0] > 3 {
		t.Errorf("%d batches received while the consumer held the first, want at most 3", seen[0])
	}
	if len(seen) < 10 {
		t.Errorf("only %d batches: the test needs many", len(seen))
	}
	if want := int64(readIndex(t, "samples.pos_deletes_rowgroups").Scans[0].Rows); rows != want {
		t.Errorf("%d rows, the Java oracle has %d", rows, want)
	}
}

func TestCancellationStopsEveryStream(t *testing.T) {
	t.Parallel()
	srv := serve(t, 10, 0)
	c, _ := dial(t, srv.addr, WithMaxWorkers(4), WithBufferedBatches(1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	start := time.Now()
	err := c.Scan(ctx, Command{Table: "samples.trips"}, func(arrow.RecordBatch) error {
		calls++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled scan took %v", d)
	}
	if calls != 1 {
		t.Errorf("fn called %d times after the cancel", calls-1)
	}
	// goleak (TestMain) and the checked allocators (cleanup) verify that
	// every stream goroutine and batch is gone.
}

func TestCallbackErrorStopsTheScan(t *testing.T) {
	t.Parallel()
	srv := serve(t, 10, 0)
	c, _ := dial(t, srv.addr, WithMaxWorkers(4))
	stop := errors.New("enough")
	err := c.Scan(context.Background(), Command{Table: "samples.trips"}, func(arrow.RecordBatch) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("got %v, want the callback's error", err)
	}
	tbl, err := c.Read(context.Background(), Command{Table: "samples.trips", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 5 {
		t.Errorf("limit 5 read %d rows", tbl.NumRows())
	}
}

func TestTokenAndHeadersGoWithEveryCall(t *testing.T) {
	t.Parallel()
	srv := serve(t, 1000, 0)
	c, _ := dial(t, srv.addr, WithToken("s3cret"), WithHeader("x-tenant", "blue"))
	tbl, err := c.Read(context.Background(), Command{Table: "samples.trips"})
	if err != nil {
		t.Fatal(err)
	}
	tbl.Release()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.headers) == 0 {
		t.Fatal("no DoGet seen")
	}
	for _, md := range srv.headers {
		if got := md.Get("authorization"); !slices.Equal(got, []string{"Bearer s3cret"}) {
			t.Errorf("authorization %v", got)
		}
		if got := md.Get("x-tenant"); !slices.Equal(got, []string{"blue"}) {
			t.Errorf("x-tenant %v", got)
		}
	}
}

func TestParseLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		loc  string
		want target
		err  bool
	}{
		{"grpc://127.0.0.1:8815", target{addr: "127.0.0.1:8815"}, false},
		{"grpc+tcp://host:1", target{addr: "host:1"}, false},
		{"grpc+tls://host:443", target{addr: "host:443", secure: true}, false},
		{"grpc+unix:///run/flight.sock", target{addr: "unix:/run/flight.sock"}, false},
		{"localhost:8815", target{addr: "localhost:8815"}, false},
		{"http://host:1", target{}, true},
	}
	for _, tt := range tests {
		got, err := parseLocation(tt.loc)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseLocation(%q) = %+v, %v", tt.loc, got, err)
		}
	}
}
