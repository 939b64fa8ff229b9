package cluster_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/client"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/tests/cluster"
)

// repo is the module root, from this package's folder.
var repo = filepath.Join("..", "..")

const (
	doGet    = "/arrow.flight.protocol.FlightService/DoGet"
	doAction = "/arrow.flight.protocol.FlightService/DoAction"
)

// pythonTables are read again with the Python client: the ones its own
// tests compare with the oracle (clients/python/tests/test_client_read.py).
var pythonTables = []string{
	"samples.trips",                 // 20,000 rows over several endpoints
	"samples.all_types",             // every primitive and nested type
	"samples.eq_deletes_evolved",    // equality deletes, 15 endpoints
	"samples.pos_deletes_rowgroups", // position deletes across row groups
	"samples.dv_many_files",         // deletion vectors
	"samples.v3_lineage",            // v3 row lineage columns
}

// testCluster is a coordinator planning for two workers that sit behind
// nginx: every endpoint's location is nginx, which hands each DoGet to the
// next worker.
type testCluster struct {
	coordinator *cluster.Process
	workers     []*cluster.Process
	nginx       *cluster.Nginx
}

// manifestLevel are the coordinator flags that plan every scan without a
// row limit at the manifest level: the workers then plan the tickets'
// manifest groups themselves.
var manifestLevel = []string{"--manifest-tickets-above", "0"}

// filesInParallel are the coordinator flags that plan every scan without a
// row limit file by file, its manifest groups planned by the workers.
var filesInParallel = []string{"--manifest-tickets-above", "0", "--large-plan-tickets", "files"}

// startCluster starts two workers behind nginx and a coordinator, given
// coordinatorArgs besides its own.
func startCluster(t *testing.T, coordinatorArgs ...string) *testCluster {
	t.Helper()
	nginxBin, err := cluster.NginxBinary()
	if errors.Is(err, cluster.ErrNoNginx) {
		if os.Getenv("ICEFLIGHT_REQUIRE_NGINX") != "" {
			t.Fatalf("ICEFLIGHT_REQUIRE_NGINX is set (CI) but %v", err)
		}
		t.Skipf("skipping the nginx cluster test: %v", err)
	}
	deployConf, err := os.ReadFile(filepath.Join(repo, "deploy", "nginx", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	bin := flightd(t)
	keys := writeTicketKeys(t, dir)

	tc := &testCluster{}
	stop := func(p *cluster.Process) {
		t.Cleanup(func() {
			if err := p.Stop(); err != nil {
				t.Errorf("%s: %v", p.Name, err)
			}
		})
	}
	// Workers need no warehouse and no coordinator: a ticket names its
	// files and is signed with the shared keys.
	for _, name := range []string{"worker-1", "worker-2"} {
		w, err := cluster.StartFlightd(ctx, bin, name, dir,
			"--role", "worker", "--listen", "127.0.0.1:0", "--ticket-keys", keys)
		if err != nil {
			t.Fatal(err)
		}
		stop(w)
		tc.workers = append(tc.workers, w)
	}
	ngDir := filepath.Join(dir, "nginx")
	if err := os.Mkdir(ngDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tc.nginx, err = cluster.StartNginx(ctx, nginxBin, string(deployConf), ngDir,
		[]string{tc.workers[0].Addr, tc.workers[1].Addr})
	if err != nil {
		t.Fatal(err)
	}
	stop(tc.nginx.Process)
	tc.coordinator, err = cluster.StartFlightd(ctx, bin, "coordinator", dir, append([]string{
		"--role", "coordinator", "--warehouse", filepath.Join(repo, "testdata", "warehouse"),
		"--listen", "127.0.0.1:0", "--workers", tc.nginx.Addr, "--ticket-keys", keys}, coordinatorArgs...)...)
	if err != nil {
		t.Fatal(err)
	}
	stop(tc.coordinator)
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range []*cluster.Process{tc.coordinator, tc.workers[0], tc.workers[1], tc.nginx.Process} {
				t.Logf("%s log (last lines):\n%s", p.Name, p.Tail(15))
			}
		}
	})
	return tc
}

// build is the flightd of every test of the package.
var build cluster.SharedBuild

// flightd returns $FLIGHTD, or flightd built from this module once for
// all tests of the package.
func flightd(t *testing.T) string { return build.Binary(t, repo) }

func TestMain(m *testing.M) { os.Exit(build.Main(m)) }

// writeTicketKeys writes the cluster's shared --ticket-keys file.
func writeTicketKeys(t *testing.T, dir string) string {
	t.Helper()
	path, err := cluster.WriteTicketKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// waitForPlacement plans until the coordinator places endpoints on nginx:
// it finds its workers by health-checking them, which may take a moment
// after it starts.
func waitForPlacement(t *testing.T, c *client.Client, lb string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		p, err := c.Plan(ctx, client.Command{Table: "samples.trips"})
		if err == nil {
			locs := p.Endpoints[0].GetLocation()
			if len(locs) > 0 && locs[0].GetUri() == "grpc://"+lb {
				return
			}
			last = p.Endpoints[0].String()
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the coordinator never placed an endpoint on nginx at %s; last: %s", lb, last)
}

func TestEveryTableReadsThroughNginxEqualToJavaOracle(t *testing.T) {
	t.Run("file-level", func(t *testing.T) { readsThroughNginx(t) })
	t.Run("manifest-level", func(t *testing.T) { readsThroughNginx(t, manifestLevel...) })
	t.Run("groups planned by the workers", func(t *testing.T) { readsThroughNginx(t, filesInParallel...) })
}

// readsThroughNginx reads every oracle scan through a cluster whose
// coordinator has coordinatorArgs, with the Go and Python clients, and
// checks that both workers served tickets.
func readsThroughNginx(t *testing.T, coordinatorArgs ...string) {
	tc := startCluster(t, coordinatorArgs...)
	scans, err := oracleScans(filepath.Join(repo, "testdata", "expected"))
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	ctx := context.Background()
	c, err := client.Dial(ctx, "grpc://"+tc.coordinator.Addr, client.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitForPlacement(t, c, tc.nginx.Addr)

	t.Run("go client", func(t *testing.T) {
		// Fewer scans at once than the coordinator's --max-plans (16), so
		// none is turned away as ResourceExhausted.
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for _, sc := range scans {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if d := readScan(ctx, c, sc); d != "" {
					t.Errorf("%s %s: %s", sc.Table, sc.Name, d)
				}
			})
		}
		wg.Wait()
		mem.AssertSize(t, 0)
		if !t.Failed() {
			t.Logf("%d scans of %d tables equal to the oracle", len(scans), countTables(scans))
		}
	})

	t.Run("python client", func(t *testing.T) {
		python := filepath.Join(repo, ".venv", "bin", "python")
		if _, err := os.Stat(python); err != nil {
			t.Skipf("no Python client: %s is missing (make test-cluster builds it)", python)
		}
		cmd := exec.Command(python, append([]string{"read_tables.py", "grpc://" + tc.coordinator.Addr}, pythonTables...)...)
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Errorf("python client: %v", err)
		}
	})

	// nginx's access log names the worker that answered each call. It is
	// the proxy's own record, so it shows placement without relying on
	// flightd's log format or metrics; a DoGet with grpc-status 0 is a
	// ticket that worker redeemed.
	t.Run("both workers served tickets", func(t *testing.T) {
		calls, err := tc.nginx.Calls()
		if err != nil {
			t.Fatal(err)
		}
		served, planned := map[string]int{}, map[string]int{}
		for _, call := range calls {
			if call.Method == doAction && call.GRPCStatus == "0" {
				planned[call.Upstream]++ // a manifest group planned for the coordinator
			}
			if call.Method != doGet {
				continue
			}
			if call.GRPCStatus != "0" {
				t.Errorf("DoGet at %s ended with grpc-status %q", call.Upstream, call.GRPCStatus)
				continue
			}
			served[call.Upstream]++
		}
		for _, w := range tc.workers {
			if served[w.Addr] == 0 {
				t.Errorf("%s (%s) served no DoGet; nginx saw %v", w.Name, w.Addr, served)
			}
		}
		t.Logf("DoGet calls served per worker: %v", served)
		if slices.Contains(coordinatorArgs, "files") {
			for _, w := range tc.workers {
				if planned[w.Addr] == 0 {
					t.Errorf("%s (%s) planned no manifest group; nginx saw %v", w.Name, w.Addr, planned)
				}
			}
			t.Logf("manifest groups planned per worker: %v", planned)
		}
	})

	for _, p := range append([]*cluster.Process{tc.coordinator, tc.nginx.Process}, tc.workers...) {
		if exited, err := p.Exited(); exited {
			t.Errorf("%s exited during the test: %v", p.Name, err)
		}
	}
}

// readScan reads one oracle scan through the coordinator and returns how
// its rows differ from the oracle's ("" if equal).
func readScan(ctx context.Context, c *client.Client, sc oracleScan) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var got []string
	err := c.Scan(ctx, client.Command{Table: sc.Table, SnapshotID: sc.SnapshotID}, func(rec arrow.RecordBatch) error {
		rows, err := testutil.ArrowRows(sc.Schema, rec)
		got = append(got, rows...)
		return err
	})
	if err != nil {
		return err.Error()
	}
	want, err := sc.rows()
	if err != nil {
		return err.Error()
	}
	return testutil.DiffRows(got, want)
}

func countTables(scans []oracleScan) int {
	seen := map[string]bool{}
	for _, s := range scans {
		seen[s.Table] = true
	}
	return len(seen)
}

func TestLocalNginxConfigRewritesEveryDeployDirective(t *testing.T) {
	t.Parallel()
	deployConf, err := os.ReadFile(filepath.Join(repo, "deploy", "nginx", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	conf, err := cluster.LocalNginxConfig(string(deployConf), "/tmp/x", "127.0.0.1:9", []string{"127.0.0.1:1", "127.0.0.1:2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"listen 127.0.0.1:9 http2;",
		"server 127.0.0.1:1 max_fails=1 fail_timeout=10s;",
		"server 127.0.0.1:2 max_fails=1 fail_timeout=10s;",
		"pid /tmp/x/nginx.pid;",
		"access_log /tmp/x/access.log grpc;",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("local nginx.conf lacks %q", want)
		}
	}
	if strings.Contains(conf, "svc.cluster.local") {
		t.Error("local nginx.conf still names the Kubernetes service")
	}
}
