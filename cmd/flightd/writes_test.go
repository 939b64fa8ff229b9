package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/client"
)

// TestServeRefusesWrites checks the processes that must not write: one
// started --read-only, one reachable from other hosts without
// credentials, and a worker, which has no catalog to commit to.
func TestServeRefusesWrites(t *testing.T) {
	t.Parallel()
	keys := testKeys(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"read-only", []string{"--warehouse", sampleWarehouse, "--listen", "127.0.0.1:0", "--read-only"}, "--read-only"},
		{"open port without credentials", []string{"--warehouse", sampleWarehouse, "--listen", "0.0.0.0:0", "--insecure-listen"}, "rw: grants"},
		{"worker", []string{"--role", "worker", "--ticket-keys", keys, "--listen", "127.0.0.1:0"}, "coordinator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServe(t, tc.args...)
			addr := s.addr
			if strings.HasPrefix(addr, "[::]:") || strings.HasPrefix(addr, "0.0.0.0:") {
				addr = "127.0.0.1:" + addr[strings.LastIndexByte(addr, ':')+1:]
			}
			ctx := context.Background()
			c, err := client.Dial(ctx, "grpc://"+addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.Delete(ctx, "samples.trips", "true", client.DeleteOptions{})
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Delete = %v, want FailedPrecondition saying %q", err, tc.want)
			}
			schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
			rdr, err := array.NewRecordReader(schema, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Release()
			if _, err := c.Append(ctx, "samples.trips", rdr); status.Code(err) != codes.FailedPrecondition {
				t.Errorf("Append = %v, want FailedPrecondition", err)
			}
			if tc.name == "read-only" {
				if ns, err := c.ListNamespaces(ctx, ""); err != nil || len(ns) != 1 || ns[0] != "samples" {
					t.Errorf("a read-only server lists namespaces %v, %v; want [samples]", ns, err)
				}
			}
		})
	}
}

// TestServeWritesALoopbackWarehouse creates a table in a copy of nothing
// (an empty warehouse) and appends to it through flightd, when the
// directory catalog commits.
func TestServeWritesALoopbackWarehouse(t *testing.T) {
	t.Parallel()
	wh := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wh, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	// An hour of metadata cache: the read after the append sees it because
	// a commit refreshes the cached table (the directory catalog does on
	// its commit, and the service asks again after it).
	s := startServe(t, "--warehouse", wh, "--listen", "127.0.0.1:0", "--metadata-refresh", "1h")
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := client.Dial(ctx, "grpc://"+s.addr, client.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	_, err = c.CreateTable(ctx, "db.t", schema, client.CreateTableOptions{})
	if status.Code(err) == codes.FailedPrecondition && strings.Contains(err.Error(), "cannot commit") {
		t.Skip("the directory catalog does not commit yet")
	}
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	col.Release()
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	// Read the empty table first, so that it is cached.
	if empty, err := c.Read(ctx, client.Command{Table: "db.t"}); err != nil {
		t.Fatal(err)
	} else {
		empty.Release()
	}
	res, err := c.Append(ctx, "db.t", rdr)
	if err != nil || res.AddedRecords != 3 || res.SnapshotID == 0 {
		t.Fatalf("Append = %+v, %v", res, err)
	}
	tbl, err := c.Read(ctx, client.Command{Table: "db.t"})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 3 {
		t.Errorf("read %d rows after appending 3", tbl.NumRows())
	}
}

// TestServeConcurrentAppends appends from 8 clients at once to one table
// of a directory warehouse: every row lands once, one snapshot a commit.
func TestServeConcurrentAppends(t *testing.T) {
	t.Parallel()
	wh := t.TempDir()
	s := startServe(t, "--warehouse", wh, "--listen", "127.0.0.1:0")
	ctx := context.Background()
	c, err := client.Dial(ctx, "grpc://"+s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateNamespace(ctx, "db", nil); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	// Eight writers racing for one table outlast Iceberg's default of 4
	// retries (an Aborted append commits nothing, and a client may send it
	// again); a table written this hard raises the property, as with Java.
	props := map[string]string{"commit.retry.num-retries": "40", "commit.retry.min-wait-ms": "20"}
	if _, err := c.CreateTable(ctx, "db.t", schema, client.CreateTableOptions{Properties: props}); err != nil {
		t.Fatal(err)
	}
	const clients, appends, rows = 8, 4, 5
	errs := make(chan error, clients*appends)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range appends {
				b := array.NewInt64Builder(memory.DefaultAllocator)
				for k := range rows {
					b.Append(int64((i*appends+j)*rows + k))
				}
				col := b.NewArray()
				b.Release()
				rec := array.NewRecordBatch(schema, []arrow.Array{col}, rows)
				col.Release()
				rdr, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
				rec.Release()
				_, err := c.Append(ctx, "db.t", rdr)
				rdr.Release()
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	tbl, err := c.Read(ctx, client.Command{Table: "db.t", Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	seen := map[int64]int{}
	for _, chunk := range tbl.Column(0).Data().Chunks() {
		for _, v := range chunk.(*array.Int64).Int64Values() {
			seen[v]++
		}
	}
	if len(seen) != clients*appends*rows {
		t.Errorf("%d distinct ids, want %d", len(seen), clients*appends*rows)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("id %d read %d times", id, n)
		}
	}
	snaps, err := c.Snapshots(ctx, "db.t")
	if err != nil || len(snaps) != clients*appends {
		t.Errorf("%d snapshots (%v), want %d", len(snaps), err, clients*appends)
	}
}
