// Package restfixture starts the Iceberg REST catalog fixture (the
// `restserver` command of tools/javaref: Iceberg Java's RESTCatalogAdapter
// over a JdbcCatalog, behind Jetty) on loopback for a test, with sample
// tables written through the REST API by Iceberg Java.
package restfixture

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/testkit/servers"
)

// Env names the launcher of the fixture; `make servers-rest` installs it.
const Env = "REST_BIN"

// startTimeout bounds the fixture's start: a JVM, Jetty and the sample
// commits, on a machine shared with other test processes.
const startTimeout = 3 * time.Minute

// Options configure a fixture.
type Options struct {
	// Warehouse is the warehouse location (default: a file: URI of a
	// folder of t.TempDir()). With Props naming another FileIO
	// ("io-impl", "s3.endpoint" ...) it may be s3://bucket/wh.
	Warehouse string
	// Props are catalog properties for the backing catalog and the sample
	// writer alike; "uri" (the backing JdbcCatalog's JDBC URL) defaults to
	// a SQLite file in the test's temporary folder.
	Props map[string]string
	// Samples has the fixture write its sample tables (namespace demo:
	// trips; demo.nested: events) and their rows as Iceberg Java reads
	// them.
	Samples bool
}

// Server is a running fixture.
type Server struct {
	// URI is the catalog's base URI, "http://127.0.0.1:PORT".
	URI string
	// Warehouse is the warehouse location tables are written under.
	Warehouse string
	// Samples is the folder of the rows of each sample table,
	// "<namespace>.<table>.jsonl", when Options.Samples was set.
	Samples string
}

// Start starts the fixture and stops it when t ends. Without the launcher
// the test is skipped (or fails under servers.RequireEnv).
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	bin := servers.Program(t, Env, "servers-rest")
	dir := t.TempDir()
	s := &Server{Warehouse: opts.Warehouse}
	if s.Warehouse == "" {
		wh := filepath.Join(dir, "warehouse")
		if err := os.MkdirAll(wh, 0o755); err != nil {
			t.Fatal(err)
		}
		s.Warehouse = "file:" + wh
	}
	port := servers.FreePort(t)
	args := []string{"--port", strconv.Itoa(port), "--warehouse", s.Warehouse}
	if opts.Samples {
		s.Samples = filepath.Join(dir, "samples")
		args = append(args, "--samples", s.Samples)
	}
	props := maps.Clone(opts.Props)
	if props == nil {
		props = make(map[string]string)
	}
	if _, ok := props["uri"]; !ok {
		// The backing JdbcCatalog's SQLite file, in the test's folder: the
		// fixture is killed, so it cannot clean up after itself.
		props["uri"] = "jdbc:sqlite:" + filepath.Join(dir, "catalog.db")
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		args = append(args, "--prop", k+"="+props[k])
	}
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start REST fixture %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "ready" {
				close(ready)
				break
			}
		}
		// Drain the rest so the server never blocks on a full pipe.
		for sc.Scan() {
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	select {
	case <-ready:
	case err := <-exited:
		exited <- err
		t.Fatalf("REST fixture exited before it was ready (%v): %s", err, stderr.String())
	case <-time.After(startTimeout):
		t.Fatalf("REST fixture not ready after %s: %s", startTimeout, stderr.String())
	}
	s.URI = fmt.Sprintf("http://127.0.0.1:%d", port)
	return s
}

// tail keeps the last few KiB a process writes, for failure messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 8 << 10

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > tailBytes {
		w.buf = w.buf[len(w.buf)-tailBytes:]
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}
