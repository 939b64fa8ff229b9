// Command loadtest puts a coordinator and two workers under load on
// loopback: many concurrent Go clients plan and read the sample tables for
// a bounded time. It prints calls, errors, throughput, plan and read
// latency percentiles and each server's peak memory, and exits 1 if any
// read failed or a server's peak RSS passed the bound (make loadtest).
//
//	go run ./bench/loadtest --duration 20s --clients 64
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/iceflight/iceflight/tests/cluster"
)

// config holds the flags.
type config struct {
	repo     string
	flightd  string
	duration time.Duration
	clients  int
	streams  int
	maxRSS   int64 // MiB
	logLevel string
	out      string
}

func main() {
	var cfg config
	flag.StringVar(&cfg.repo, "repo", ".", "root of the iceflight module (testdata/ and cmd/flightd)")
	flag.StringVar(&cfg.flightd, "flightd", "", "flightd binary to run (default: build ./cmd/flightd into a temporary folder)")
	flag.DurationVar(&cfg.duration, "duration", 20*time.Second, "how long the clients read")
	flag.IntVar(&cfg.clients, "clients", 64, "concurrent clients, each with its own connections")
	flag.IntVar(&cfg.streams, "streams-per-client", 1, "endpoints each client reads at once")
	flag.Int64Var(&cfg.maxRSS, "max-rss-mib", 512, "bound on each server's peak resident memory, in MiB")
	flag.StringVar(&cfg.logLevel, "log-level", "warn", "flightd --log-level (per-call lines at info cost CPU the servers share with the clients)")
	flag.StringVar(&cfg.out, "out", "", "also write the report to this file")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// run starts the servers, loads them and reports; it returns false if the
// run failed its bounds.
func run(ctx context.Context, cfg config, stdout io.Writer) (bool, error) {
	tables, err := sampleTables(filepath.Join(cfg.repo, "testdata", "expected"))
	if err != nil {
		return false, err
	}
	dir, err := os.MkdirTemp("", "iceflight-loadtest-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	bin := cfg.flightd
	if bin == "" {
		if bin, err = cluster.BuildFlightd(ctx, cfg.repo, dir); err != nil {
			return false, err
		}
	}
	keys, err := cluster.WriteTicketKeys(dir)
	if err != nil {
		return false, err
	}
	servers, err := startServers(ctx, cfg, bin, dir, keys)
	defer func() {
		for _, p := range servers {
			if err := p.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "loadtest:", err)
			}
		}
	}()
	if err != nil {
		return false, err
	}
	coordinator := servers[0]

	lctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	start := time.Now()
	total, err := load(lctx, coordinator.Addr, cfg.clients, cfg.streams, tables)
	if err != nil {
		return false, err
	}
	elapsed := time.Since(start)

	rep := report{cfg: cfg, tables: len(tables), elapsed: elapsed, total: total}
	for _, p := range servers {
		if exited, err := p.Exited(); exited {
			return false, fmt.Errorf("%s exited during the run: %v: %s", p.Name, err, p.Tail(10))
		}
		rss, err := p.PeakRSS()
		if err != nil {
			return false, fmt.Errorf("%s: %w", p.Name, err)
		}
		rep.rss = append(rep.rss, serverRSS{p.Name, rss})
	}
	text := rep.String()
	fmt.Fprint(stdout, text)
	if cfg.out != "" {
		if err := os.WriteFile(cfg.out, []byte(text), 0o644); err != nil {
			return false, err
		}
	}
	return rep.pass(), nil
}

// startServers starts two workers and a coordinator that places endpoints
// on them; the coordinator comes first in the result. On error the
// servers started so far are returned for the caller to stop.
func startServers(ctx context.Context, cfg config, bin, dir, keys string) ([]*cluster.Process, error) {
	var servers []*cluster.Process
	var workers []string
	for _, name := range []string{"worker-1", "worker-2"} {
		w, err := cluster.StartFlightd(ctx, bin, name, dir, "--role", "worker",
			"--listen", "127.0.0.1:0", "--ticket-keys", keys, "--log-level", cfg.logLevel)
		if err != nil {
			return servers, err
		}
		servers = append(servers, w)
		workers = append(workers, w.Addr)
	}
	c, err := cluster.StartFlightd(ctx, bin, "coordinator", dir, "--role", "coordinator",
		"--warehouse", filepath.Join(cfg.repo, "testdata", "warehouse"),
		"--listen", "127.0.0.1:0", "--workers", strings.Join(workers, ","),
		"--ticket-keys", keys, "--log-level", cfg.logLevel)
	if err != nil {
		return servers, err
	}
	return append([]*cluster.Process{c}, servers...), nil
}

// sampleTables lists the sample tables with the row count of their
// current snapshot as the Java oracle recorded it.
func sampleTables(expectedDir string) ([]table, error) {
	entries, err := os.ReadDir(expectedDir)
	if err != nil {
		return nil, fmt.Errorf("sample tables: %w", err)
	}
	var tables []table
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(expectedDir, e.Name(), "index.json")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("sample tables: %w", err)
		}
		var idx struct {
			Table string `json:"table"`
			Scans []struct {
				Name string `json:"name"`
				Rows int64  `json:"rows"`
			} `json:"scans"`
		}
		if err := json.Unmarshal(data, &idx); err != nil {
			return nil, fmt.Errorf("sample tables: %s: %w", path, err)
		}
		for _, s := range idx.Scans {
			if s.Name == "current" {
				tables = append(tables, table{name: idx.Table, rows: s.Rows})
			}
		}
	}
	if len(tables) == 0 {
		return nil, errors.New("sample tables: none under " + expectedDir)
	}
	return tables, nil
}

// revision names the commit measured, for the saved report.
func revision(repo string) string {
	out, err := exec.Command("git", "-C", repo, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// cpus is the machine's CPU count as the servers and clients share it.
func cpus() int { return runtime.NumCPU() }
