//go:build linux

package hostile_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/client"
	"github.com/iceflight/iceflight/tests/cluster"
)

// Issue 15 item 8: DoAction snapshots of a table with 200,000 snapshots
// answers in messages a default gRPC client accepts (4 MiB), each a JSON
// array of snapshots, together all of them; the table still plans and
// reads.
func TestSnapshotsOfAHugeHistoryComeInPages(t *testing.T) {
	const extra = 200_000
	wh := newWarehouse(t)
	tb := copySample(t, wh, "trips", "a.huge_history")
	m := tb.metadata()
	snaps := m["snapshots"].([]any)
	cur := snaps[len(snaps)-1].(map[string]any)
	ts, err := cur["timestamp-ms"].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	list, _ := json.Marshal(cur["manifest-list"])
	orig, err := json.Marshal(snaps)
	if err != nil {
		t.Fatal(err)
	}
	delete(m, "snapshots")
	rest, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// Written as text and spliced in: 200,000 snapshots through
	// encoding/json take long under the race detector. The older
	// snapshots of the same files come first; the current one stays last,
	// where the table's helpers look for it.
	b := append(rest[:len(rest)-1], `,"snapshots":[`...)
	for i := range extra {
		b = fmt.Appendf(b, `{"snapshot-id":%d,"sequence-number":%s,"timestamp-ms":%d,"manifest-list":%s,"schema-id":0,"summary":{"operation":"append"}},`,
			i+1, cur["sequence-number"], ts-int64(extra-i), list)
	}
	tb.write(tb.metadataFile(), append(append(b, orig[1:]...), '}'))
	s := startServer(t, wh)
	fc, ctx := s.flightClient(t, tokenA)
	stream, err := fc.DoAction(ctx, &flight.Action{Type: "snapshots", Body: []byte(`{"table":"a.huge_history"}`)})
	var got, pages int
	for err == nil {
		var res *flight.Result
		if res, err = stream.Recv(); err != nil {
			break
		}
		var page []json.RawMessage
		if err := json.Unmarshal(res.GetBody(), &page); err != nil {
			t.Fatalf("page %d is not a JSON array of snapshots: %v", pages, err)
		}
		got += len(page)
		pages++
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("snapshots after %d pages: %v", pages, truncateErr(err))
	}
	t.Logf("%d snapshots in %d pages", got, pages)
	if got != extra+1 {
		t.Errorf("%d snapshots; want %d", got, extra+1)
	}
	if rows, err := scan(s.dial(t, tokenA), client.Command{Table: "a.huge_history"}); err != nil || rows != healthyRows {
		t.Errorf("read of a.huge_history: %d rows, %v; want %d rows", rows, truncateErr(err), healthyRows)
	}
	s.checkHealthy(t)
}

// Issue 15 item 9: a client that cancels in the middle of its streams
// gets Canceled, and the server logs those streams as Canceled at INFO,
// not as Internal at WARN.
func TestClientCancelIsCanceledNotInternal(t *testing.T) {
	wh := newWarehouse(t)
	copySample(t, wh, "trips", "a.cancelled")
	s := startServer(t, wh)
	// One stream at a time, one buffered batch and fixed 64 KiB windows:
	// the server cannot run ahead, so the cancel lands mid-stream.
	c := s.dial(t, tokenA, client.WithMaxWorkers(1), client.WithBufferedBatches(1),
		client.WithDialOptions(grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10)))
	const cancels = 20
	for n := range cancels {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		err := c.Scan(ctx, client.Command{Table: "a.cancelled"}, func(arrow.RecordBatch) error {
			cancel()
			return nil
		})
		cancel()
		if !errors.Is(err, context.Canceled) && status.Code(err) != codes.Canceled {
			t.Errorf("cancel %d: %v; want Canceled", n, truncateErr(err))
		}
	}
	// Every cancelled scan began at least one DoGet, whose line the
	// server writes when it has seen the cancel.
	var lines []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if lines = s.callLines("DoGet", "a.cancelled"); len(lines) >= cancels {
			break
		}
	}
	canceled := 0
	for _, line := range lines {
		switch {
		case strings.Contains(line, "code=Canceled") && strings.Contains(line, "level=INFO"):
			canceled++
		case strings.Contains(line, "code=OK"):
		default:
			t.Errorf("a cancelled stream logged as: %s", truncate(line, 400))
		}
	}
	t.Logf("%d DoGet lines, %d of them Canceled", len(lines), canceled)
	if canceled == 0 {
		t.Errorf("no DoGet logged as Canceled at INFO among %d", len(lines))
	}
	s.checkHealthy(t)
}

// callLines returns the server's call log lines of method on table.
func (s *server) callLines(method, table string) []string {
	var out []string
	for _, line := range strings.Split(s.Log(), "\n") {
		if strings.Contains(line, "msg=call") && strings.Contains(line, "FlightService/"+method+" ") &&
			strings.Contains(line, "table="+table+" ") {
			out = append(out, line)
		}
	}
	return out
}

// Issue 15 item 4: on SIGTERM with --drain-timeout 2s the process exits
// soon after the deadline, whatever its calls are doing: here a DoGet
// whose data files are FIFOs and one whose client stopped reading.
func TestDrainEndsStuckCallsAtTheDeadline(t *testing.T) {
	const drain = 2 * time.Second
	wh := newWarehouse(t)
	stuck := copySample(t, wh, "trips", "a.stuck")
	paths := stuck.dataFiles()
	for _, p := range paths {
		fifo(t, p)
	}
	s := startServer(t, wh, "--drain-timeout", drain.String())
	t.Cleanup(func() {
		for _, p := range paths {
			unblock(p)
		}
	})

	// A stream on a FIFO, unless the server refuses FIFOs outright.
	c := s.dial(t, tokenA)
	fifoDone := make(chan struct{})
	go func() {
		defer close(fifoDone)
		_, _ = scan(c, client.Command{Table: "a.stuck"})
	}()
	// A stream whose client reads its first message and no more: with
	// 64 KiB windows the server's sends block on flow control.
	fc, err := flight.NewClientWithMiddleware(s.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tokenA), hangGuard)
	defer cancel()
	info, err := fc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"table":"a.trips","max_endpoints":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	get, err := fc.DoGet(ctx, info.GetEndpoint()[0].GetTicket())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := get.Recv(); err != nil {
		t.Fatal(err)
	}
	// Not an assertion: time for the FIFO stream to reach its open.
	time.Sleep(time.Second)

	start := time.Now()
	if err := syscall.Kill(s.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// A hang guard, generous for a shared machine: the exit should come
	// about drain after the signal.
	exited := s.exits(drain + 20*time.Second)
	t.Logf("flightd exited %v after SIGTERM with --drain-timeout %v (exited: %v)", time.Since(start).Round(time.Millisecond), drain, exited)
	if !exited {
		t.Errorf("flightd still running %v after SIGTERM with --drain-timeout %v", time.Since(start).Round(time.Second), drain)
		s.Kill()
	}
	<-fifoDone
}

// Issue 15 item 10: Go's profiles on an open address are refused at start,
// as an open gRPC listener without credentials is; on loopback they are
// served.
func TestPprofOnAnOpenAddressIsRefused(t *testing.T) {
	wh := newWarehouse(t)
	dir := t.TempDir()
	start := func(name, metrics string) (*cluster.Process, error) {
		return cluster.StartFlightd(context.Background(), flightd(t), name, dir,
			"--warehouse", wh, "--listen", "127.0.0.1:0", "--metrics-listen", metrics, "--pprof")
	}
	p, err := start("open-pprof", "0.0.0.0:0")
	if err == nil {
		_ = p.Stop()
		t.Errorf("flightd started with --pprof on --metrics-listen 0.0.0.0:0; want it refused")
	} else if !strings.Contains(err.Error(), "pprof") {
		t.Errorf("the refusal does not name --pprof: %s", truncate(err.Error(), 600))
	}
	p, err = start("loopback-pprof", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("flightd with --pprof on loopback: %v", err)
	}
	_ = p.Stop()
}
