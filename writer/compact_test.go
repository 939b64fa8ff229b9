package writer

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// liveCounts returns the current snapshot's live data files per
// partition value of p and its live delete files.
func liveCounts(t *testing.T, f *fixture) (data map[string]int, deletes int) {
	t.Helper()
	tb := f.load()
	live, err := readLive(context.Background(), tb, tb.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	data = map[string]int{}
	for _, e := range live.data {
		data[fmt.Sprint(e.DataFile.Partition)]++
	}
	return data, len(live.deletes)
}

func TestRewriteDataFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, v := range []int{2, 3} {
			t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
				t.Parallel()
				f := b.make(t, v, true, nil)
				for i := int64(0); i < 6; i++ {
					f.write(Append, "", span(i*10, i*10+6)...)
				}
				f.delete(DeleteRequest{Filter: "id = 4 or id = 13"})
				want := slices.DeleteFunc(f.ids(), func(id int64) bool { return id == 4 || id == 13 })
				f.wantIDs(want)
				data, deletes := liveCounts(t, f)
				if len(data) != 3 || data["[0]"] != 6 || deletes == 0 {
					t.Fatalf("before: %v data files by partition, %d delete files", data, deletes)
				}
				head := f.current().SnapshotID

				// Too few files in each partition for the default of 5?
				// No: 6 each, and partitions 1 and 0 have deletes.
				dry, err := f.w.RewriteDataFiles(context.Background(), f.id, CompactRequest{DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if f.current().SnapshotID != head || dry.RewrittenFiles != 18 || dry.AddedFiles != 0 {
					t.Fatalf("dry run: head moved or %d inputs %d outputs", dry.RewrittenFiles, dry.AddedFiles)
				}
				res, err := f.w.RewriteDataFiles(context.Background(), f.id, CompactRequest{})
				if err != nil {
					t.Fatal(err)
				}
				if res.SnapshotID == 0 || res.RewrittenFiles != 18 || res.AddedFiles != 3 {
					t.Fatalf("rewrote %d files into %d (snapshot %d)", res.RewrittenFiles, res.AddedFiles, res.SnapshotID)
				}
				s := f.current()
				if s.Operation() != "replace" || *s.ParentSnapshotID != head {
					t.Errorf("snapshot operation %q parent %v", s.Operation(), s.ParentSnapshotID)
				}
				data, deletes = liveCounts(t, f)
				if len(data) != 3 || data["[0]"] != 1 || data["[1]"] != 1 || data["[2]"] != 1 || deletes != 0 {
					t.Errorf("after: %v data files by partition, %d delete files (want one each, no deletes)", data, deletes)
				}
				if res.Counts[kindData] != 18 || res.Counts[kindPositionDeletes] == 0 {
					t.Errorf("counts %v", res.Counts)
				}
				f.wantIDs(want)
				f.wantNoOrphans()

				// Nothing left to do: one file per partition.
				again, err := f.w.RewriteDataFiles(context.Background(), f.id, CompactRequest{MinInputFiles: 1})
				if err != nil || again.SnapshotID != 0 || again.RewrittenFiles != 0 {
					t.Fatalf("second compaction: %v %+v", err, again)
				}
			})
		}
	})
}

func TestRewriteDataFilesFilterAndThreshold(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		for i := int64(0); i < 3; i++ {
			f.write(Append, "", span(i*10, i*10+6)...)
		}
		res, err := f.w.RewriteDataFiles(context.Background(), f.id, CompactRequest{})
		if err != nil || res.SnapshotID != 0 {
			t.Fatalf("3 files per partition, fewer than 5: %v %+v", err, res)
		}
		res, err = f.w.RewriteDataFiles(context.Background(), f.id, CompactRequest{Filter: "p = 1", MinInputFiles: 2})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := liveCounts(t, f)
		if res.RewrittenFiles != 3 || data["[1]"] != 1 || data["[0]"] != 3 || data["[2]"] != 3 {
			t.Fatalf("rewrote %d; live %v: want only partition 1 compacted", res.RewrittenFiles, data)
		}
		var want []int64
		for i := int64(0); i < 3; i++ {
			want = append(want, span(i*10, i*10+6)...)
		}
		f.wantIDs(want)
		if _, err := f.w.RewriteDataFiles(context.Background(), f.id, CompactRequest{Filter: "p ="}); err == nil {
			t.Fatal("a bad filter was accepted")
		}
	})
}
