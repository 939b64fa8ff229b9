package cluster_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"

	"github.com/iceflight/iceflight/client"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/tests/cluster"
)

// TestWorkerKilledMidStream kills the worker serving a stream after its
// first batch: the Go client resumes the ticket at the next location, and
// the table still reads completely and exactly once.
func TestWorkerKilledMidStream(t *testing.T) {
	t.Run("file-level", func(t *testing.T) { killMidStream(t) })
	t.Run("manifest-level", func(t *testing.T) { killMidStream(t, manifestLevel...) })
}

// killMidStream is TestWorkerKilledMidStream with a coordinator given
// coordinatorArgs.
func killMidStream(t *testing.T, coordinatorArgs ...string) {
	ctx := context.Background()
	dir := t.TempDir()
	bin := flightd(t)
	keys := writeTicketKeys(t, dir)
	workers := map[string]*cluster.Process{}
	var addrs []string
	for _, name := range []string{"worker-a", "worker-b"} {
		w, err := cluster.StartFlightd(ctx, bin, name, dir,
			"--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys, "--log-level", "info")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Stop() })
		workers["grpc://"+w.Addr] = w
		addrs = append(addrs, w.Addr)
	}
	coord, err := cluster.StartFlightd(ctx, bin, "coordinator", dir, append([]string{
		"--role", "coordinator", "--warehouse", filepath.Join(repo, "testdata", "warehouse"),
		"--listen", "127.0.0.1:0", "--workers", strings.Join(addrs, ","), "--ticket-keys", keys}, coordinatorArgs...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = coord.Stop() })

	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	// Fixed 64 KiB flow-control windows (no BDP growth) and one buffered
	// batch: the worker cannot run ahead of the reader, so the kill lands
	// in the middle of the stream rather than after it was all received.
	c, err := client.Dial(ctx, "grpc://"+coord.Addr, client.WithAllocator(mem),
		client.WithMaxWorkers(1), client.WithBufferedBatches(1),
		client.WithDialOptions(grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	plan, err := c.Plan(ctx, client.Command{Table: "samples.trips", MaxEndpoints: 1})
	if err != nil {
		t.Fatal(err)
	}
	locs := plan.Endpoints[0].GetLocation()
	if len(locs) != 2 {
		t.Fatalf("endpoint locations %v, want both workers", locs)
	}
	first, second := workers[locs[0].GetUri()], workers[locs[1].GetUri()]
	if first == nil || second == nil {
		t.Fatalf("locations %v are not the workers %v", locs, addrs)
	}

	scans, err := oracleScans(filepath.Join(repo, "testdata", "expected"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var oracle oracleScan
	for _, sc := range scans {
		if sc.Table == "samples.trips" && sc.Name == "current" {
			oracle = sc
			if want, err = sc.rows(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no oracle rows for samples.trips")
	}

	var got []string
	batches := 0
	err = c.ScanPlan(ctx, plan, func(_ int, rec arrow.RecordBatch) error {
		batches++
		if batches == 1 {
			first.Kill()
		}
		rows, err := testutil.ArrowRows(oracle.Schema, rec)
		got = append(got, rows...)
		return err
	})
	if err != nil {
		t.Fatalf("read after killing %s: %v", first.Name, err)
	}
	if d := testutil.DiffRows(got, want); d != "" {
		t.Fatalf("after the kill: %s", d)
	}
	// The rest came from the second worker, which served a DoGet.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(second.Log(), "DoGet") {
		if time.Now().After(deadline) {
			t.Fatalf("%s logged no DoGet: the read did not fail over to it\n%s", second.Name, second.Tail(10))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d rows in %d batches equal the oracle's; %s killed after the first batch, %s served the rest",
		len(got), batches, first.Name, second.Name)
}
