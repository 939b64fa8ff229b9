package changelog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/writer"
)

var propertySchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// propertySeed is the seed of the property test's random writes.
const propertySeed = 20261207

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// written is a table iceflight's writer wrote with random writes, and its
// snapshots in commit order.
type written struct {
	table     Table
	snapshots []int64
	ops       []string
}

// writeRandom writes a table of format version v with n random writes:
// appends, overwrites, merge-on-read deletes (position deletes in v2,
// deletion vectors in v3) and copy-on-write deletes. Ids repeat and
// values are few, so rows recur and copy-on-write makes carry-overs.
func writeRandom(t *testing.T, rng *rand.Rand, v, n int, mem memory.Allocator) written {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	w := writer.New(cat, writer.WithAllocator(mem))
	id := catalog.Identifier{"db", "t"}
	create := writer.CreateTable{Schema: propertySchema, FormatVersion: v}
	if rng.IntN(2) == 0 {
		create.PartitionBy = []writer.PartitionField{{Source: "id", Transform: "bucket[2]"}}
	}
	if _, err := w.CreateTable(ctx, id, create); err != nil {
		t.Fatal(err)
	}
	var out written
	rows := func() array.RecordReader {
		b := array.NewRecordBuilder(mem, propertySchema)
		defer b.Release()
		for range 1 + rng.IntN(12) {
			b.Field(0).(*array.Int64Builder).Append(int64(rng.IntN(20)))
			if rng.IntN(6) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("v%d", rng.IntN(3)))
			}
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		rr, err := array.NewRecordReader(propertySchema, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		return rr
	}
	for len(out.snapshots) < n {
		lo := rng.IntN(20)
		filter := fmt.Sprintf("id >= %d and id < %d", lo, lo+1+rng.IntN(6))
		var res *writer.Result
		var op string
		switch k := rng.IntN(10); {
		case k < 4 || len(out.snapshots) == 0:
			op = "append"
			rr := rows()
			res, err = w.Write(ctx, id, writer.WriteRequest{}, rr)
			rr.Release()
		case k < 6:
			op = "overwrite " + filter
			rr := rows()
			res, err = w.Write(ctx, id, writer.WriteRequest{Mode: writer.Overwrite, Filter: filter}, rr)
			rr.Release()
		case k < 8:
			op = "delete " + filter
			res, err = w.Delete(ctx, id, writer.DeleteRequest{Filter: filter})
		default:
			op = "copy-on-write delete " + filter
			res, err = w.Delete(ctx, id, writer.DeleteRequest{Filter: filter, CopyOnWrite: true})
		}
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if res.SnapshotID == 0 {
			continue // nothing matched
		}
		out.snapshots = append(out.snapshots, res.SnapshotID)
		out.ops = append(out.ops, op)
	}
	cat.Refresh(id)
	tb, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	out.table = Table{Name: "db.t", MetadataLocation: tb.MetadataLocation, Metadata: tb.Metadata, IO: tb.IO}
	return out
}

// Applying the change stream from A to B to the rows at A gives the rows
// at B, for random writes through iceflight's writer and random A < B,
// and the changes of each snapshot alone take its parent's rows to its
// own.
func TestChangesTakeRowsFromAToB(t *testing.T) {
	t.Parallel()
	rng := newRand(propertySeed)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sequences, ranges := 0, 0
	for seq := range 16 {
		v := 2 + seq%2
		wt := writeRandom(t, rng, v, 6+rng.IntN(5), mem)
		sequences++
		rowsAt := map[int64]multiset{}
		for _, s := range wt.snapshots {
			rowsAt[s] = snapshotRows(t, wt.table, s, mem)
		}
		check := func(from *int64, to int64) {
			t.Helper()
			ranges++
			changes, err := readChanges(t, wt.table, Request{FromSnapshotID: from, ToSnapshotID: to})
			if err != nil {
				t.Fatalf("seed %d sequence %d (v%d, %q): changes to %d: %v", propertySeed, seq, v, wt.ops, to, err)
			}
			start := multiset{}
			if from != nil {
				start = rowsAt[*from]
			}
			got, err := apply(start, changes)
			if err != nil {
				t.Fatalf("seed %d sequence %d (v%d, %q): %v", propertySeed, seq, v, wt.ops, err)
			}
			if d := diffSets(got, rowsAt[to]); d != "" {
				t.Fatalf("seed %d sequence %d (v%d, %q): rows at the start plus changes to %d differ from its rows:\n%s", propertySeed, seq, v, wt.ops, to, d)
			}
		}
		for i, s := range wt.snapshots {
			if i == 0 {
				check(nil, s)
			} else {
				check(&wt.snapshots[i-1], s)
			}
		}
		for range 4 {
			a := rng.IntN(len(wt.snapshots))
			b := a + rng.IntN(len(wt.snapshots)-a)
			if a == b {
				continue
			}
			check(&wt.snapshots[a], wt.snapshots[b])
		}
	}
	t.Logf("property: seed %d, %d sequences of writes, %d ranges equal", propertySeed, sequences, ranges)
	fmt.Printf("changelog property: seed %d, %d sequences of writes, %d ranges equal\n", propertySeed, sequences, ranges)
}
