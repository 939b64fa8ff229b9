package main

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// crashCommitsEnv sets how many commits the crash test attempts (default
// 200); crashSeedEnv its random seed.
const (
	crashCommitsEnv = "ICEFLIGHT_CRASH_COMMITS"
	crashSeedEnv    = "ICEFLIGHT_CRASH_SEED"
	// crashPointEnv, when flightd honours it, kills flightd at that point of
	// a commit (writer.CrashHook); the test sets it on some rounds and
	// kills at random moments on every round, so it works either way.
	crashPointEnv = "ICEFLIGHT_TEST_CRASH_POINT"
)

var crashPoints = []string{"data-written", "manifests-written", "metadata-written", "committed"}

// buildFlightd builds this package's binary once per test.
func buildFlightd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "flightd")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build flightd: %v\n%s", err, b)
	}
	return bin
}

// flightdChild is a flightd process the test can SIGKILL.
type flightdChild struct {
	cmd    *exec.Cmd
	fc     flight.Client
	exited chan struct{}
}

func startChild(t *testing.T, bin, warehouse string, env ...string) *flightdChild {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0", "--log-level", "error")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &flightdChild{cmd: cmd, exited: make(chan struct{})}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		c.kill()
		t.Fatal("flightd child printed no address within 30s")
	}
	m := regexp.MustCompile(`grpc://(\S+)`).FindStringSubmatch(line)
	if m == nil {
		c.kill()
		t.Fatalf("flightd child printed %q, want its address", line)
	}
	if c.fc, err = flight.NewClientWithMiddleware(m[1], nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
		c.kill()
		t.Fatal(err)
	}
	t.Cleanup(c.kill)
	return c
}

// kill SIGKILLs the child (if it still runs) and waits for it.
func (c *flightdChild) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
	if c.fc != nil {
		c.fc.Close()
	}
}

// TestWritesSurviveSIGKILL appends through a flightd child that is killed
// with SIGKILL at random moments (and, where flightd honours
// ICEFLIGHT_TEST_CRASH_POINT, at the commit's named points), restarting it
// each time, for 200 commits. After every kill Iceberg Java reads the table
// as a committed snapshot holding exactly the acknowledged appends (plus
// the one in flight, whole or not at all). Finally remove_orphan_files
// older than now reclaims every file no snapshot reaches.
func TestWritesSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	commits := 200
	if v, err := strconv.Atoi(os.Getenv(crashCommitsEnv)); err == nil && v > 0 {
		commits = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64); err == nil {
		seed = v
	}
	t.Logf("%s=%d", crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	bin := buildFlightd(t)
	wh := t.TempDir()
	ctx := context.Background()

	c := startChild(t, bin, wh)
	tg := &writeTarget{fc: c.fc, table: "db.crashy", ns: "db"}
	tg.folder = func(t *testing.T) string { return tableDir(t, wh, "db", "crashy") }
	tg.python = func(r *writecheck.Report) writecheck.Table {
		return writecheck.Table{MetadataLocation: r.MetadataLocation}
	}
	tg.create(ctx, t, 2, writePartition("id", "bucket[2]"))
	c.kill()

	acked := model{}
	attempted, rounds, inFlightLanded := 0, 0, 0
	for attempted < commits {
		rounds++
		var env []string
		if rng.IntN(2) == 0 {
			env = append(env, crashPointEnv+"="+crashPoints[rng.IntN(len(crashPoints))])
		}
		c := startChild(t, bin, wh, env...)
		delay := time.Duration(50+rng.IntN(600)) * time.Millisecond
		timer := time.AfterFunc(delay, func() { _ = c.cmd.Process.Signal(syscall.SIGKILL) })
		var pending []int64
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		for attempted < commits {
			batch := ids(int64(attempted)*10, 10)
			attempted++
			rec := itemBatch(mem, batch...)
			_, err := put(ctx, c.fc, putCommand{Table: "db.crashy", Mode: "append"}, rec)
			rec.Release()
			if err != nil {
				pending = batch
				break
			}
			acked.add(batch...)
		}
		timer.Stop()
		c.kill()
		mem.AssertSize(t, 0)

		r := writecheck.Java(t, tg.java)
		r.Clean(t)
		got := r.Current(t)
		if testutil.DiffRows(got, rowsOf(t, r, acked.list())) == "" {
			continue
		}
		with := model{}
		for k, v := range acked {
			with[k] = v
		}
		with.add(pending...)
		if d := testutil.DiffRows(got, rowsOf(t, r, with.list())); d != "" {
			t.Fatalf("round %d (%v): the table holds neither the acknowledged appends nor them and the one in flight: %s", rounds, env, d)
		}
		acked, inFlightLanded = with, inFlightLanded+1
	}
	t.Logf("%d commits over %d kills; %d appends landed though their answer was lost", attempted, rounds, inFlightLanded)
	if rounds < 3 {
		t.Errorf("only %d kills in %d commits: the crash points were not exercised", rounds, attempted)
	}

	c = startChild(t, bin, wh)
	tg.fc = c.fc
	before := writecheck.Java(t, tg.java)
	debris := writecheck.Unreachable(t, tg.folder(t), before.Files)
	var mr struct {
		Removed []struct {
			Location string `json:"location"`
		} `json:"removed"`
	}
	if err := action(ctx, c.fc, "remove_orphan_files", map[string]any{"table": tg.table, "older_than": time.Now().UTC().Format(time.RFC3339Nano)}, &mr); err != nil {
		t.Fatalf("remove_orphan_files: %v", err)
	}
	t.Logf("%d files no snapshot reached after the crashes; remove_orphan_files removed %d", len(debris), len(mr.Removed))
	r := tg.check(ctx, t, "remove_orphan_files after the crashes", acked, 0)
	if left := writecheck.Unreachable(t, tg.folder(t), r.Files); len(left) > 0 {
		t.Errorf("remove_orphan_files left %d unreachable files, e.g. %v", len(left), left[:min(3, len(left))])
	}
}
