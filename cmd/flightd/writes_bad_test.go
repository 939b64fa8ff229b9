package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// unchanged fails t unless Iceberg Java finds the table as before (same
// current snapshot, same rows, files listed as before) and nothing but
// the table's files below its folder.
func (tg *writeTarget) unchanged(ctx context.Context, t *testing.T, step string, before *writecheck.Report, m model) {
	t.Helper()
	// A failed write removes its files after answering; give it a moment.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := tg.check(ctx, t, step, m, *before.CurrentSnapshotID)
		left := writecheck.Unreachable(t, tg.folder(t), r.Files)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s left files no snapshot reaches: %v", step, left)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestWritesBadInputChangesNothing sends what a write must refuse and
// checks the gRPC code and that the table is as it was.
func TestWritesBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := directoryTarget(t, "guarded")
	tg.create(ctx, t, 2, writePartition("day", "identity"))
	m := model{}
	res := tg.append(ctx, t, m, ids(0, 30)...)
	before := tg.check(ctx, t, "the first append", m, res.SnapshotID)

	t.Run("a stream whose schema does not match is InvalidArgument", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		defer mem.AssertSize(t, 0)
		schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "nope", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
		b := array.NewRecordBuilder(mem, schema)
		b.Field(0).(*array.StringBuilder).Append("x")
		b.Field(1).(*array.Int32Builder).Append(1)
		rec := b.NewRecordBatch()
		b.Release()
		_, err := put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "append"}, rec)
		rec.Release()
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("mismatched schema: %v, want InvalidArgument", err)
		}
		tg.unchanged(ctx, t, "a mismatched stream", before, m)
	})

	t.Run("a stream the client cancels midway commits nothing", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		defer mem.AssertSize(t, 0)
		cctx, cancel := context.WithCancel(ctx)
		stream, err := tg.fc.DoPut(cctx)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(putCommand{Table: tg.table, Mode: "append"})
		w := flight.NewRecordWriter(stream, ipc.WithSchema(itemsSchema))
		w.SetFlightDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body})
		for k := int64(0); k < 20; k++ {
			rec := itemBatch(mem, ids(5000+k*100, 100)...)
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		w.Close()
		if _, err := stream.Recv(); status.Code(err) != codes.Canceled {
			t.Errorf("cancelled DoPut answered %v, want Canceled", err)
		}
		tg.unchanged(ctx, t, "a cancelled stream", before, m)
	})

	t.Run("a filter that does not parse is InvalidArgument", func(t *testing.T) {
		err := action(ctx, tg.fc, "delete", map[string]any{"table": tg.table, "filter": "id <<< 3 and"}, nil)
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("bad filter: %v, want InvalidArgument", err)
		}
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		rec := itemBatch(mem, 9000)
		_, err = put(ctx, tg.fc, putCommand{Table: tg.table, Mode: "overwrite", Filter: "nope ="}, rec)
		rec.Release()
		mem.AssertSize(t, 0)
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("overwrite with a bad filter: %v, want InvalidArgument", err)
		}
		tg.unchanged(ctx, t, "bad filters", before, m)
	})

	t.Run("older_than in the future is InvalidArgument", func(t *testing.T) {
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		for _, a := range []string{"expire_snapshots", "remove_orphan_files"} {
			err := action(ctx, tg.fc, a, map[string]any{"table": tg.table, "older_than": future}, nil)
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("%s older than %s: %v, want InvalidArgument", a, future, err)
			}
		}
		tg.unchanged(ctx, t, "maintenance in the future", before, m)
	})
}

func writePartition(source, transform string) actions.PartitionField {
	return actions.PartitionField{Source: source, Transform: transform}
}

// TestWritesNeedAWriteGrant serves with a tokens file: a read-only token
// reads but its DoPut and delete are PermissionDenied; a rw: token writes.
func TestWritesNeedAWriteGrant(t *testing.T) {
	t.Parallel()
	const ro, rw = "read-only-token-verify-01", "read-write-token-verify-1"
	wh := t.TempDir()
	tokens := writeFile(t, "tokens", ro+" db\n"+rw+" rw:db\n")
	fc := serveWrites(t, "--warehouse", wh, "--tokens", tokens)
	as := func(tok string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
	}
	tg := &writeTarget{fc: fc, table: "db.granted", ns: "db"}
	tg.folder = func(t *testing.T) string { return tableDir(t, wh, "db", "granted") }
	tg.python = func(r *writecheck.Report) writecheck.Table {
		return writecheck.Table{MetadataLocation: r.MetadataLocation}
	}
	tg.create(as(rw), t, 2)
	m := model{}
	res := tg.append(as(rw), t, m, ids(0, 10)...)

	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	rec := itemBatch(mem, ids(100, 5)...)
	_, err := put(as(ro), fc, putCommand{Table: tg.table, Mode: "append"}, rec)
	rec.Release()
	mem.AssertSize(t, 0)
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("DoPut with a read-only token: %v, want PermissionDenied", err)
	}
	if err := action(as(ro), fc, "delete", map[string]any{"table": tg.table, "filter": "true"}, nil); status.Code(err) != codes.PermissionDenied {
		t.Errorf("delete with a read-only token: %v, want PermissionDenied", err)
	}
	r := writecheck.Java(t, tg.java)
	r.Clean(t)
	if r.CurrentSnapshotID == nil || *r.CurrentSnapshotID != res.SnapshotID {
		t.Errorf("current snapshot %v after refused writes, want %d", r.CurrentSnapshotID, res.SnapshotID)
	}
	cmd, _ := json.Marshal(map[string]any{"table": tg.table})
	rows, err := scanRows(as(ro), fc, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}, &r.Schema)
	if err != nil {
		t.Fatalf("read with the read-only token: %v", err)
	}
	writecheck.Same(t, "after refused writes", rowsOf(t, r, m.list()), map[string][]string{"iceflight (read-only token)": rows, "Iceberg Java": r.Current(t)})
}
