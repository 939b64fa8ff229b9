package writer

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestDelete(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		cases := []struct {
			name        string
			v           int
			cow         bool
			wantContent string // the delete files' format, "" for none
		}{
			{name: "v2 position deletes", v: 2, wantContent: "PARQUET"},
			{name: "v3 deletion vectors", v: 3, wantContent: "PUFFIN"},
			{name: "v2 copy-on-write", v: 2, cow: true},
			{name: "v1 always copies on write", v: 1},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				f := b.make(t, c.v, true, nil)
				f.write(Append, "", span(0, 12)...)
				res := f.delete(DeleteRequest{Filter: "id = 3 or id = 4", CopyOnWrite: c.cow})
				if res.DeletedRecords != 2 || res.AddedRecords != 0 || res.SnapshotID == 0 {
					t.Fatalf("result %+v, want 2 rows deleted and none added", res)
				}
				f.wantIDs(slices.DeleteFunc(span(0, 12), func(id int64) bool { return id == 3 || id == 4 }))
				// A second delete in a file that has deletes already.
				f.delete(DeleteRequest{Filter: "id = 6", CopyOnWrite: c.cow})
				f.wantIDs(slices.DeleteFunc(span(0, 12), func(id int64) bool { return id == 3 || id == 4 || id == 6 }))
				t2 := f.load()
				live, err := readLive(context.Background(), t2, t2.Metadata.CurrentSnapshot())
				if err != nil {
					t.Fatal(err)
				}
				perFile := map[string]int{}
				for _, e := range live.deletes {
					if e.DataFile.Format != c.wantContent {
						t.Fatalf("delete file of format %s, want %q", e.DataFile.Format, c.wantContent)
					}
					perFile[e.DataFile.ReferencedDataFile]++
				}
				if c.wantContent == "" && len(live.deletes) > 0 {
					t.Fatalf("%d delete files after a copy-on-write delete", len(live.deletes))
				}
				if c.v >= 3 {
					for ref, n := range perFile {
						if n != 1 {
							t.Fatalf("%d deletion vectors for %s, want them merged into 1", n, ref)
						}
					}
				}
				f.wantNoOrphans()
			})
		}
	})
}

func TestDeleteOfWholePartitionsRemovesFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		f.write(Append, "", span(0, 12)...)
		res := f.delete(DeleteRequest{Filter: "p = 0"})
		if res.DeletedDataFiles != 1 || res.AddedDeleteFiles != 0 || res.DeletedRecords != 4 || res.Operation != "delete" {
			t.Fatalf("result %+v, want one data file of 4 rows removed", res)
		}
		f.wantIDs(withoutMod(span(0, 12), 0))
		sum := f.current().Summary.Map()
		if sum["deleted-data-files"] != "1" || sum["deleted-records"] != "4" || sum["total-records"] != "8" {
			t.Fatalf("summary %v", sum)
		}
	})
}

func TestDeleteDryRunAndNoMatch(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		f.write(Append, "", span(0, 12)...)
		before := f.current().SnapshotID
		res := f.delete(DeleteRequest{Filter: "id >= 10 or p = 0", DryRun: true})
		if !res.DryRun || res.DeletedRecords != 6 || res.DeletedDataFiles != 1 || res.SnapshotID != 0 {
			t.Fatalf("dry run %+v, want 6 rows (a whole file of 4, 2 more) counted", res)
		}
		if res := f.delete(DeleteRequest{Filter: "id > 1000"}); res.SnapshotID != 0 {
			t.Fatalf("a delete that matches nothing committed %+v", res)
		}
		if f.current().SnapshotID != before {
			t.Fatal("the table changed")
		}
		if _, err := f.w.Delete(context.Background(), f.id, DeleteRequest{}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("delete without a filter: %v, want ErrInvalidArgument", err)
		}
		f.wantNoOrphans()
	})
}
