//go:build linux

package hostile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/client"
	"github.com/iceflight/iceflight/tests/cluster"
)

// repo is the module root, from this package's folder.
var repo = filepath.Join("..", "..")

// Bearer tokens of every test server (--tokens): one per namespace, one
// for both.
const (
	tokenA  = "hostile-token-namespace-a"
	tokenB  = "hostile-token-namespace-b"
	tokenAB = "hostile-token-namespaces-a-b"
)

const (
	// peakRSSBound is the most resident memory a server may ever have
	// used (VmHWM), whatever it was sent.
	peakRSSBound = 512 << 20
	// addressSpaceCap is the virtual memory a server may map (RLIMIT_AS,
	// about 1.3 GB at start): a server that tries to hold a 64 GiB file
	// fails its allocation instead of taking the shared machine's memory.
	addressSpaceCap = 8 << 30
	// hangGuard bounds every call: only a call that hangs trips it.
	hangGuard = 60 * time.Second
	// messageBound is the longest error message a hostile request may
	// earn (issue 15 item 9: errors truncate what they echo).
	messageBound = 2048
	// healthyRows is the row count of samples.trips, copied as a.trips
	// into every warehouse.
	healthyRows = 20000
)

// build is the flightd of every test of the package (make test-hostile
// passes bin/flightd as $FLIGHTD).
var build cluster.SharedBuild

// flightd returns the flightd binary the tests run.
func flightd(t *testing.T) string { return build.Binary(t, repo) }

func TestMain(m *testing.M) { os.Exit(build.Main(m)) }

// server is one flightd serving a hostile warehouse.
type server struct {
	*cluster.Process
	// warehouse is the folder served: no error may name a path in it,
	warehouse string
	// but for recorded, paths in it that tables record: an error may
	// name a file as its table's metadata records it.
	recorded []string
}

// startServer serves warehouse with the package's tokens and the extra
// flags, caps its address space and registers its stop, and on failure
// the tail of its log, with t.
func startServer(t *testing.T, warehouse string, args ...string) *server {
	t.Helper()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	lines := fmt.Sprintf("%s a\n%s b\n%s a,b\n", tokenA, tokenB, tokenAB)
	if err := os.WriteFile(tokens, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--warehouse", warehouse, "--listen", "127.0.0.1:0", "--tokens", tokens}, args...)
	// make test-hostile runs the suite a second time with every scan
	// planned at the manifest level.
	args = append(args, strings.Fields(os.Getenv("HOSTILE_FLIGHTD_ARGS"))...)
	p, err := cluster.StartFlightd(context.Background(), flightd(t), "flightd", dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{Process: p, warehouse: warehouse}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("flightd log, but for its INFO lines:\n%s", truncate(s.noteworthy(), 8192))
		}
		_ = p.Stop()
	})
	if err := capAddressSpace(p.Pid(), addressSpaceCap); err != nil {
		t.Fatalf("cap the address space of flightd: %v", err)
	}
	return s
}

// servers starts servers of one warehouse for a test's cases, a fresh one
// whenever a case killed the last, so each case is judged on its own.
type servers struct {
	t         *testing.T
	warehouse string
	last      *server
}

// get returns the running server, starting one if there is none.
func (ss *servers) get() *server {
	ss.t.Helper()
	if ss.last != nil {
		if done, _ := ss.last.Exited(); !done {
			return ss.last
		}
	}
	ss.last = startServer(ss.t, ss.warehouse)
	return ss.last
}

// capAddressSpace sets RLIMIT_AS of process pid with prlimit(2), which
// the syscall package does not wrap.
func capAddressSpace(pid int, bytes uint64) error {
	lim := syscall.Rlimit{Cur: bytes, Max: bytes}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_AS,
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// dial returns a client of s that sends token, with a checked allocator
// whose balance is asserted zero when the test ends.
func (s *server) dial(t *testing.T, token string, opts ...client.Option) *client.Client {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	// Two streams at once: servers with small limits see no more.
	opts = append([]client.Option{client.WithToken(token), client.WithAllocator(mem), client.WithMaxWorkers(2)}, opts...)
	c, err := client.Dial(context.Background(), "grpc://"+s.Addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// scan plans and reads cmd within the hang guard and returns the rows
// delivered, also those before an error.
func scan(c *client.Client, cmd client.Command) (int64, error) {
	return scanWithin(c, cmd, hangGuard)
}

// scanWithin is scan with a client that gives up after d.
func scanWithin(c *client.Client, cmd client.Command, d time.Duration) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var rows int64
	err := c.Scan(ctx, cmd, func(rec arrow.RecordBatch) error {
		rows += rec.NumRows()
		return nil
	})
	return rows, err
}

// checkHealthy asserts that s is still running, serves a full read of
// a.trips and has stayed under peakRSSBound.
func (s *server) checkHealthy(t *testing.T) {
	t.Helper()
	if done, err := s.Exited(); done {
		t.Fatalf("flightd died (%v): %s", err, s.death())
	}
	rows, err := scan(s.dial(t, tokenA), client.Command{Table: "a.trips"})
	if status.Code(err) == codes.Unavailable && s.exits(5*time.Second) {
		t.Fatalf("flightd died: %s", s.death())
	}
	if err != nil || rows != healthyRows {
		t.Errorf("normal read of a.trips afterwards: %d rows, %v; want %d rows", rows, err, healthyRows)
	}
	peak, err := s.PeakRSS()
	if err != nil {
		t.Fatalf("flightd gone before its peak RSS was read: %v", err)
	}
	t.Logf("flightd peak RSS %d MiB", peak>>20)
	if peak > peakRSSBound {
		t.Errorf("flightd peak RSS %d MiB, over the %d MiB bound", peak>>20, peakRSSBound>>20)
	}
}

// exits reports whether the server ends within d: one that refuses
// connections may be writing its dying stack.
func (s *server) exits(d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if done, _ := s.Exited(); done {
			return true
		}
	}
	return false
}

// death returns the lines of a dead server's log that say why it died:
// the runtime's fatal error or panic and the frame below it.
func (s *server) death() string {
	lines := strings.Split(s.Log(), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "fatal error:") || strings.HasPrefix(line, "panic:") {
			return strings.Join(lines[i:min(len(lines), i+8)], "\n")
		}
	}
	return truncate(s.Tail(5), 2000)
}

// noteworthy returns the last lines of the server's log that are not
// INFO call lines: warnings, errors, panics and stacks.
func (s *server) noteworthy() string {
	var out []string
	for _, line := range strings.Split(s.Log(), "\n") {
		if !strings.Contains(line, "level=INFO") {
			out = append(out, truncate(line, 600))
		}
	}
	return strings.Join(out[max(0, len(out)-12):], "\n")
}

// truncate shortens s to n bytes for a test message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

// leaks reports what in an error message it must not hold: file bytes
// (the "root:" of a passwd file, or its first four bytes quoted) or a path in the server's warehouse
// (issue 15 item 9: files are named as the table's metadata records them).
func (s *server) leaks(msg string) string {
	named := msg
	for _, r := range s.recorded {
		named = strings.ReplaceAll(named, r, "")
	}
	switch {
	case len(msg) > messageBound:
		return fmt.Sprintf("is %d bytes, over %d", len(msg), messageBound)
	case strings.Contains(msg, "root:"), strings.Contains(msg, `"root"`):
		return `echoes bytes of /etc/passwd ("root")`
	case strings.Contains(named, s.warehouse+string(filepath.Separator)):
		return "names a server path in " + s.warehouse
	}
	return ""
}

// expectRefused asserts that a hostile call delivered no row and failed
// with code want and a message that names one of names (when given) and
// leaks nothing.
func (s *server) expectRefused(t *testing.T, rows int64, err error, want codes.Code, names ...string) {
	t.Helper()
	if rows != 0 {
		t.Errorf("%d rows delivered; want none", rows)
	}
	if err == nil {
		t.Errorf("no error; want %v", want)
		return
	}
	msg := status.Convert(err).Message()
	if got := status.Code(err); got != want {
		t.Errorf("code %v (%s); want %v", got, truncate(msg, 400), want)
	}
	if len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(msg, n) }) {
		t.Errorf("message names none of %s: %s", strings.Join(names, ", "), truncate(msg, 400))
	}
	if l := s.leaks(msg); l != "" {
		t.Errorf("message %s: %s", l, truncate(msg, 400))
	}
}
