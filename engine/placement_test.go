package engine

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/iceflight/iceflight/iceberg/scantask"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/status"
)

func tasksFor(paths ...string) []*scantask.Task {
	out := make([]*scantask.Task, len(paths))
	for i, p := range paths {
		out[i] = &scantask.Task{Path: p, FileSize: 100}
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
	big := &scantask.Task{Path: "/t/big.parquet", FileSize: 1 << 30}
	alone := rendezvous(workers, []*scantask.Task{big})[0]
	var small []*scantask.Task
	for i := range 20 {
		small = append(small, &scantask.Task{Path: fmt.Sprintf("/t/small-%d.parquet", i), FileSize: 1 << 10})
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
	defer w.Close()
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
	if _, err := w.Locations(tasksFor("/t/x.parquet")); status.Code(Status(err)) != codes.Unavailable {
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
	defer w.Close()
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
