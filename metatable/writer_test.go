package metatable

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/writer"
)

// writtenSchema is the schema of the tables iceflight writes for the
// comparison: a timestamp to partition by day, an id to bucket, a name to
// truncate later, a double and a list (a column without readable metrics).
var writtenSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
}, nil)

// writtenRows is a batch of ids [from, to): three days of timestamps,
// scores with NaN and nulls, names with nulls.
func writtenRows(mem memory.Allocator, from, to int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, writtenSchema)
	defer b.Release()
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for id := from; id < to; id++ {
		b.Field(0).(*array.Int64Builder).Append(id)
		if id%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%02d", id%17))
		}
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(day + (id%3)*86_400_000_000 + id*1_000_000))
		switch {
		case id%11 == 0:
			b.Field(3).AppendNull()
		case id%13 == 0:
			b.Field(3).(*array.Float64Builder).Append(nan())
		default:
			b.Field(3).(*array.Float64Builder).Append(float64(id) * 1.5)
		}
		lb := b.Field(4).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d", id%4))
	}
	return b.NewRecordBatch()
}

func nan() float64 { var z float64; return z / z }

// writeTable writes a table of format version v through iceflight's
// writer into a directory warehouse under root: appends, a delete (position
// deletes, or deletion vectors in v3), a partition spec change, another
// append, an overwrite, a tag and a branch. It returns the table's folder
// and its current metadata file.
func writeTable(t *testing.T, root string, v int) (dir, metadataFile string) {
	t.Helper()
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(root, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	w := writer.New(cat, writer.WithAllocator(mem))
	id := catalog.Identifier{"db", fmt.Sprintf("written_v%d", v)}
	_, err = w.CreateTable(ctx, id, writer.CreateTable{Schema: writtenSchema, FormatVersion: v,
		PartitionBy: []writer.PartitionField{{Source: "ts", Transform: "day"}, {Source: "id", Transform: "bucket[4]"}}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(req writer.WriteRequest, from, to int64) {
		t.Helper()
		rec := writtenRows(mem, from, to)
		defer rec.Release()
		rr, err := array.NewRecordReader(writtenSchema, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		if _, err := w.Write(ctx, id, req, rr); err != nil {
			t.Fatalf("write %d-%d: %v", from, to, err)
		}
	}
	write(writer.WriteRequest{}, 0, 40)
	write(writer.WriteRequest{}, 40, 90)
	if _, err := w.Delete(ctx, id, writer.DeleteRequest{Filter: "id < 10 or id = 55"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Alter(ctx, id, writer.AlterRequest{
		PartitionSpec: []writer.SpecChange{{Op: "add_field", Source: "name", Transform: "truncate[6]"}},
		Refs:          []writer.RefChange{{Op: "create_tag", Name: "before-overwrite"}},
	}); err != nil {
		t.Fatal(err)
	}
	write(writer.WriteRequest{}, 90, 120)
	write(writer.WriteRequest{Mode: writer.Overwrite, Filter: "id >= 100 and id < 110"}, 100, 110)
	if _, err := w.Alter(ctx, id, writer.AlterRequest{Refs: []writer.RefChange{{Op: "create_branch", Name: "audit"}}}); err != nil {
		t.Fatal(err)
	}
	cat.Refresh(id)
	tb, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(tb.Location, "file:"), strings.TrimPrefix(tb.MetadataLocation, "file:")
}

// Tables written through iceflight's writer read back from their metadata
// tables as Iceberg Java reads them.
func TestWrittenTablesMatchJava(t *testing.T) {
	var checks []check
	for _, v := range []int{2, 3} {
		dir, mf := writeTable(t, t.TempDir(), v)
		name := fmt.Sprintf("written_v%d", v)
		checks = append(checks, tableChecks(t, name, localTable(t, name, dir, mf), dir)...)
	}
	tl := compareChecks(t, checks)
	fmt.Printf("metadata tables of tables iceflight wrote: %s\n", tl)
}
