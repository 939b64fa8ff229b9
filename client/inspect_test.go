package client

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestInspectReadsMetadataTables reads metadata tables of a sample table
// and checks them against the snapshot summary Iceberg Java wrote: four
// data files of 20,000 rows in one snapshot. The server's and the
// client's allocators end empty (serve and dial check).
func TestInspectReadsMetadataTables(t *testing.T) {
	t.Parallel()
	srv := serve(t, 2, 0) // batches of two rows: several per endpoint
	c, _ := dial(t, srv.addr)
	ctx := context.Background()
	files, err := c.Inspect(ctx, "files", Command{Table: "samples.trips", Columns: []string{"record_count", "file_path"}})
	if err != nil {
		t.Fatal(err)
	}
	defer files.Release()
	if files.NumRows() != 4 || files.Schema().Field(0).Name != "record_count" {
		t.Fatalf("files of samples.trips: %d rows of %v, want 4 of record_count, file_path", files.NumRows(), files.Schema())
	}
	var total int64
	tr := array.NewTableReader(files, -1)
	defer tr.Release()
	for tr.Next() {
		counts := tr.RecordBatch().Column(0).(*array.Int64)
		for i := range counts.Len() {
			total += counts.Value(i)
		}
	}
	if total != 20000 {
		t.Errorf("the files' record counts add up to %d, want the summary's total-records 20000", total)
	}
	snaps, err := c.Inspect(ctx, "snapshots", Command{Table: "samples.trips", Filter: "operation = 'append'"})
	if err != nil {
		t.Fatal(err)
	}
	defer snaps.Release()
	if snaps.NumRows() != 1 {
		t.Errorf("snapshots of samples.trips whose operation is append: %d, want 1", snaps.NumRows())
	}
	if _, err := c.Inspect(ctx, "filez", Command{Table: "samples.trips"}); err == nil {
		t.Error("an unknown metadata table was read")
	}
}
