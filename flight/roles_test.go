package flight

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

func tasksFor(paths ...string) []*iceflightv1.Task {
	out := make([]*iceflightv1.Task, len(paths))
	for i, p := range paths {
		out[i] = &iceflightv1.Task{Path: p, FileSize: 100}
	}
	return out
}

func TestRendezvousKeepsFilesOnTheirWorker(t *testing.T) {
	t.Parallel()
	workers := []string{"w1:8815", "w2:8815", "w3:8815", "w4:8815"}
	first := map[string]int{}
	moved := 0
	const files = 2000
	for i := range files {
		tasks := tasksFor(fmt.Sprintf("s3://b/t/data/part-%05d.parquet", i))
		ranked := rendezvous(workers, tasks)
		if !slices.Equal(ranked, rendezvous(slices.Clone(workers), tasks)) {
			t.Fatalf("ranking of %s is not deterministic", tasks[0].Path)
		}
		if len(ranked) != len(workers) {
			t.Fatalf("ranked %v, want every worker once", ranked)
		}
		first[ranked[0]]++
		// Without w4, a file placed elsewhere stays where it was, and one
		// placed on w4 moves to its first fallback.
		without := rendezvous(workers[:3], tasks)
		want := ranked[0]
		if want == "w4:8815" {
			want = ranked[1]
		}
		if without[0] != want {
			moved++
		}
	}
	if moved != 0 {
		t.Errorf("removing one worker moved %d files that were not on it", moved)
	}
	for _, w := range workers {
		if share := float64(first[w]) / files; share < 0.2 || share > 0.3 {
			t.Errorf("worker %s is first for %.1f%% of files, want about 25%%", w, 100*share)
		}
	}
}

func TestRendezvousFollowsTheBytes(t *testing.T) {
	t.Parallel()
	workers := []string{"a:1", "b:1", "c:1"}
	big := &iceflightv1.Task{Path: "/t/big.parquet", FileSize: 1 << 30}
	alone := rendezvous(workers, []*iceflightv1.Task{big})[0]
	var small []*iceflightv1.Task
	for i := range 20 {
		small = append(small, &iceflightv1.Task{Path: fmt.Sprintf("/t/small-%d.parquet", i), FileSize: 1 << 10})
	}
	if got := rendezvous(workers, append(small, big))[0]; got != alone {
		t.Errorf("endpoint led by %s, want %s where its largest file lives", got, alone)
	}
}

// healthServer is a bare gRPC server answering health checks.
func healthServer(t *testing.T) (string, *health.Server) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String(), hs
}

func TestWorkersFollowHealth(t *testing.T) {
	a, ha := healthServer(t)
	b, hb := healthServer(t)
	w, err := NewWorkers(a + "," + b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	defer w.close()
	if got := w.Healthy(); len(got) != 2 {
		t.Fatalf("unchecked workers %v, want both offered", got)
	}
	hb.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	w.Refresh(ctx)
	if got := w.Healthy(); !slices.Equal(got, []string{a}) {
		t.Errorf("after b went NOT_SERVING: %v, want [%s]", got, a)
	}
	locs, err := w.Locations(tasksFor("/t/x.parquet"))
	if err != nil || len(locs) != 1 || locs[0].Uri != "grpc://"+a {
		t.Errorf("locations %v, %v; want only grpc://%s", locs, err, a)
	}
	ha.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	w.Refresh(ctx)
	if _, err := w.Locations(tasksFor("/t/x.parquet")); status.Code(statusError(err)) != codes.Unavailable {
		t.Errorf("no healthy worker: %v, want Unavailable", err)
	}
	hb.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	w.Refresh(ctx)
	if got := w.Healthy(); !slices.Equal(got, []string{b}) {
		t.Errorf("after b came back: %v, want [%s]", got, b)
	}
}

func TestWorkersFromDNS(t *testing.T) {
	a, _ := healthServer(t)
	host, port, _ := net.SplitHostPort(a)
	w, err := NewWorkers("dns:///workers.iceflight.svc:" + port)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	answers := [][]string{{host}, {host, "127.0.0.2"}, nil}
	lookups := 0
	w.lookup = func(_ context.Context, name string) ([]string, error) {
		if name != "workers.iceflight.svc" {
			t.Errorf("looked up %q", name)
		}
		ans := answers[lookups]
		lookups++
		if ans == nil {
			return nil, &net.DNSError{Err: "no such host", Name: name, IsTemporary: true}
		}
		return ans, nil
	}
	ctx := context.Background()
	w.updateMembers(ctx)
	if got := w.Healthy(); !slices.Equal(got, []string{a}) {
		t.Errorf("members %v, want [%s]", got, a)
	}
	w.updateMembers(ctx)
	if got := w.Healthy(); len(got) != 2 {
		t.Errorf("members %v after the service grew, want 2", got)
	}
	w.updateMembers(ctx) // a failed lookup keeps the last members
	if got := w.Healthy(); len(got) != 2 {
		t.Errorf("members %v after a failed lookup, want the last 2 kept", got)
	}
	for _, bad := range []string{"dns:///nohost", "dns:///:1", "", "a:1,b"} {
		if _, err := NewWorkers(bad); err == nil {
			t.Errorf("NewWorkers(%q) accepted", bad)
		}
	}
}

// TestCoordinatorAndWorker plans on a coordinator that places endpoints on a
// worker sharing its ticket keys, and redeems them there; each refuses the
// other's calls.
func TestCoordinatorAndWorker(t *testing.T) {
	worker := serve(t, 1000, WithRole(RoleWorker))
	ws, err := NewWorkers(worker.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	coord := serve(t, 1000, WithRole(RoleCoordinator), WithWorkers(ws))
	ctx := context.Background()

	info, err := coord.client.GetFlightInfo(ctx, pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range info.Endpoint {
		if len(ep.Location) != 1 || ep.Location[0].Uri != "grpc://"+worker.addr {
			t.Fatalf("endpoint locations %v, want the worker", ep.Location)
		}
		if ep.ExpirationTime == nil || time.Until(ep.ExpirationTime.AsTime()) <= 0 {
			t.Errorf("endpoint expiration %v, want the ticket's expiry", ep.ExpirationTime)
		}
	}
	if rows := worker.readAll(ctx, t, info); rows != info.TotalRecords {
		t.Errorf("worker served %d rows, plan has %d", rows, info.TotalRecords)
	}
	if _, err := coord.client.DoGet(ctx, info.Endpoint[0].Ticket); err == nil {
		stream, _ := coord.client.DoGet(ctx, info.Endpoint[0].Ticket)
		_, err = stream.Recv()
		if status.Code(err) != codes.Unimplemented {
			t.Errorf("coordinator DoGet: %v, want Unimplemented", err)
		}
	}
	_, err = worker.client.GetFlightInfo(ctx, pathDesc("samples", "trips"))
	if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "coordinator") {
		t.Errorf("worker GetFlightInfo: %v, want Unimplemented naming the coordinator", err)
	}
}

func TestAdvertisedLocation(t *testing.T) {
	h := serve(t, 1000, WithAdvertise("grpc://flight.example:8815"))
	info, err := h.client.GetFlightInfo(context.Background(), pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Endpoint[0].Location; len(got) != 1 || got[0].Uri != "grpc://flight.example:8815" {
		t.Errorf("locations %v, want the advertised address", got)
	}
}

func TestLimitRefusesWithRetryHint(t *testing.T) {
	h := serve(t, 1000, WithLimits(1, 1))
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	// Hold the only stream slot with a stream the client does not read:
	// 10-row batches would never fit the flow-control window.
	slow := serve(t, 10, WithLimits(1, 1))
	slowInfo, err := slow.client.GetFlightInfo(ctx, cmdDesc(t, map[string]any{"table": "samples.trips", "max_endpoints": 1}))
	if err != nil {
		t.Fatal(err)
	}
	hold, cancel := context.WithCancel(ctx)
	defer cancel()
	held, err := slow.client.DoGet(hold, slowInfo.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := held.Recv(); err != nil {
		t.Fatal(err)
	}
	var trailer metadata.MD
	stream, err := slow.client.DoGet(ctx, slowInfo.Endpoint[0].Ticket, grpc.Trailer(&trailer))
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "retry in") {
		t.Fatalf("second stream over a limit of 1: %v, want ResourceExhausted with a retry hint", err)
	}
	if got := trailer.Get("grpc-retry-pushback-ms"); len(got) != 1 {
		t.Errorf("trailer %v, want grpc-retry-pushback-ms", trailer)
	}
	cancel()
	// The slot comes back once the held stream ends.
	deadline := time.Now().Add(5 * time.Second)
	for {
		stream, err := slow.client.DoGet(ctx, slowInfo.Endpoint[0].Ticket)
		if err == nil {
			_, err = stream.Recv()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not released after the held stream was cancelled: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rows := h.readAll(ctx, t, info); rows != info.TotalRecords {
		t.Errorf("read %d rows under the limit, want %d", rows, info.TotalRecords)
	}
}

func TestRenewAndCancelFlightInfo(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	ep := info.Endpoint[0]
	time.Sleep(5 * time.Millisecond) // the renewed expiry must be later
	renewed, err := h.client.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if !renewed.ExpirationTime.AsTime().After(ep.ExpirationTime.AsTime()) {
		t.Errorf("renewed expiry %v not after %v", renewed.ExpirationTime.AsTime(), ep.ExpirationTime.AsTime())
	}
	one := &flight.FlightInfo{Schema: info.Schema, Endpoint: []*flight.FlightEndpoint{renewed}, TotalRecords: -1}
	if rows := h.readAll(ctx, t, one); rows == 0 {
		t.Error("renewed ticket served no rows")
	}
	forged := &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: []byte("not a ticket")}}
	if _, err := h.client.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: forged}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("renewing a forged ticket: %v, want PermissionDenied", err)
	}
	res, err := h.client.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	if err != nil || res.Status != flight.CancelStatusCancelled {
		t.Errorf("cancel: %v, %v", res, err)
	}
}

func TestPollFlightInfoIsCompleteAtOnce(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	poll, err := h.client.PollFlightInfo(ctx, pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	if poll.FlightDescriptor != nil || poll.GetProgress() != 1 {
		t.Errorf("poll: descriptor %v, progress %v; want none and 1 (complete)", poll.FlightDescriptor, poll.GetProgress())
	}
	if rows := h.readAll(ctx, t, poll.Info); rows != poll.Info.TotalRecords || rows == 0 {
		t.Errorf("read %d rows, poll promised %d", rows, poll.Info.TotalRecords)
	}
}
