package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
	s := startServe(t, "--warehouse", wh, "--listen", "127.0.0.1:0")
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
