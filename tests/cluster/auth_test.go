package cluster_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/client"
	"github.com/iceflight/iceflight/tests/cluster"
)

// TestWorkersPlanGroupsForTheCaller runs a coordinator and two workers
// that all check bearer tokens, the coordinator planning every scan's
// manifest groups on the workers: a caller who may read samples reads
// samples.trips equal to the oracle (each worker checked the credentials
// the coordinator forwarded), and a caller who may read another namespace
// only is refused.
func TestWorkersPlanGroupsForTheCaller(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bin := flightd(t)
	keys := writeTicketKeys(t, dir)
	tokens := filepath.Join(dir, "tokens")
	const reader, outsider = "samples-reader-0123456789", "other-reader-0123456789ab"
	if err := os.WriteFile(tokens, []byte(reader+" samples\n"+outsider+" other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, name := range []string{"worker-a", "worker-b"} {
		w, err := cluster.StartFlightd(ctx, bin, name, dir,
			"--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys, "--tokens", tokens)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Stop() })
		addrs = append(addrs, w.Addr)
	}
	coord, err := cluster.StartFlightd(ctx, bin, "coordinator", dir, append([]string{
		"--role", "coordinator", "--warehouse", filepath.Join(repo, "testdata", "warehouse"),
		"--listen", "127.0.0.1:0", "--workers", addrs[0] + "," + addrs[1], "--ticket-keys", keys, "--tokens", tokens},
		filesInParallel...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = coord.Stop() })

	scans, err := oracleScans(filepath.Join(repo, "testdata", "expected"))
	if err != nil {
		t.Fatal(err)
	}
	var trips oracleScan
	for _, sc := range scans {
		if sc.Table == "samples.trips" && sc.Name == "current" {
			trips = sc
		}
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, "grpc://"+coord.Addr, client.WithAllocator(mem), client.WithToken(reader))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d := readScan(ctx, c, trips); d != "" {
		t.Errorf("samples.trips with a token for samples: %s", d)
	}
	other, err := client.Dial(ctx, "grpc://"+coord.Addr, client.WithAllocator(mem), client.WithToken(outsider))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	err = other.Scan(ctx, client.Command{Table: "samples.trips"}, func(arrow.RecordBatch) error { return nil })
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("samples.trips with a token for another namespace: %v, want PermissionDenied", err)
	}
}
