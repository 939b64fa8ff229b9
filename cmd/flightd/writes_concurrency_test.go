package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// TestWritesConcurrentAppendsLandExactlyOnce has 8 clients append 50
// batches each at once to one table: Iceberg Java reads every row exactly
// once, the table has 400 snapshots (create_table makes none) and no file
// below it is unreachable (retried commits left nothing). Then two
// expire_snapshots run at once and nothing still referenced is deleted.
func TestWritesConcurrentAppendsLandExactlyOnce(t *testing.T) {
	t.Parallel()
	const clients, batches, perBatch = 8, 50, 3
	ctx := context.Background()
	tg := directoryTarget(t, "busy")
	tg.createWith(ctx, t, createTable{Properties: map[string]string{
		// Eight writers on one table conflict all the time; every append
		// must land, so retry long enough.
		"commit.retry.num-retries":      "1000",
		"commit.retry.min-wait-ms":      "1",
		"commit.retry.max-wait-ms":      "100",
		"commit.retry.total-timeout-ms": "600000",
	}})
	m := model{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, clients*batches)
	attempts := make([]int, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			for b := 0; b < batches; b++ {
				first := int64((c*batches + b) * perBatch)
				rec := itemBatch(mem, ids(first, perBatch)...)
				res, err := put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "append"}, rec)
				rec.Release()
				if err != nil {
					errs <- fmt.Errorf("client %d batch %d: %w", c, b, err)
					continue
				}
				attempts[c] += res.Attempts
				mu.Lock()
				m.add(ids(first, perBatch)...)
				mu.Unlock()
			}
			if n := mem.CurrentAlloc(); n != 0 {
				errs <- fmt.Errorf("client %d allocator holds %d bytes", c, n)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for _, a := range attempts {
		total += a
	}
	t.Logf("%d appends took %d commit attempts", clients*batches, total)

	r := writecheck.Java(t, tg.java)
	r.Clean(t)
	if len(r.Snapshots) != clients*batches {
		t.Errorf("%d snapshots, want %d", len(r.Snapshots), clients*batches)
	}
	want := rowsOf(t, r, m.list())
	if d := testutil.DiffRows(r.Current(t), want); d != "" {
		t.Errorf("Iceberg Java's rows: %s", d)
	}
	if len(want) != clients*batches*perBatch {
		t.Errorf("%d appends acknowledged of %d", len(want)/perBatch, clients*batches)
	}
	// Metadata files older than the metadata log's reach
	// (write.metadata.previous-versions-max, 100) are unreachable by design,
	// not debris: only data files, manifests and manifest lists count here.
	var left []string
	for _, f := range writecheck.Unreachable(t, tg.folder(t), r.Files) {
		if !strings.HasSuffix(f, ".metadata.json") {
			left = append(left, f)
		}
	}
	if len(left) > 0 {
		t.Errorf("%d files no snapshot reaches (debris of retried commits), e.g. %v", len(left), left[:min(3, len(left))])
	}

	// Two expiries at once, each keeping the last 10 snapshots: whichever
	// wins, the table still reads whole and every file it reaches exists.
	older := time.Now().UTC().Format(time.RFC3339Nano)
	var ewg sync.WaitGroup
	results := make([]error, 2)
	for k := range results {
		ewg.Add(1)
		go func() {
			defer ewg.Done()
			var mr actions.MaintenanceResult
			results[k] = action(ctx, tg.fc, "expire_snapshots", map[string]any{"table": tg.table, "older_than": older, "retain_last": 10 + k}, &mr)
		}()
	}
	ewg.Wait()
	ok := 0
	for _, err := range results {
		if err == nil {
			ok++
		} else {
			t.Logf("an expiry lost the race: %v", err)
		}
	}
	if ok == 0 {
		t.Fatal("both expiries failed")
	}
	r = tg.check(ctx, t, "two expiries at once", m, 0)
	if len(r.Snapshots) > 11 {
		t.Errorf("%d snapshots after expiry keeping 10 or 11", len(r.Snapshots))
	}
}

// createWith creates tg's table from body (table, schema and format are
// filled in).
func (tg *writeTarget) createWith(ctx context.Context, t *testing.T, body createTable) {
	t.Helper()
	base := newTable(tg.table, itemsSchema, body.FormatVersion)
	body.Table, body.Schema = base.Table, base.Schema
	if err := action(ctx, tg.fc, "create_namespace", map[string]any{"namespace": tg.ns}, nil); err != nil {
		t.Logf("create_namespace %s: %v", tg.ns, err)
	}
	if err := action(ctx, tg.fc, "create_table", body, nil); err != nil {
		t.Fatalf("create_table %s: %v", tg.table, err)
	}
	if tg.java == (writecheck.Table{}) {
		tg.java = writecheck.Table{Dir: tg.folder(t)}
	}
}
