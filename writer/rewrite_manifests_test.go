package writer

import (
	"context"
	"fmt"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// entryFacts are what a manifest rewrite must keep of each live file.
func entryFacts(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	tb := f.load()
	live, err := readLive(context.Background(), tb, tb.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for loc, e := range live.data {
		row := "nil"
		if e.DataFile.FirstRowID != nil {
			row = fmt.Sprint(*e.DataFile.FirstRowID)
		}
		out[loc] = fmt.Sprintf("snapshot=%d seq=%d fileseq=%d first-row=%s records=%d", e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber, row, e.DataFile.RecordCount)
	}
	for _, e := range live.deletes {
		out[fileKey(e.DataFile)] = fmt.Sprintf("delete snapshot=%d seq=%d", e.SnapshotID, e.SequenceNumber)
	}
	return out
}

func dataManifests(t *testing.T, f *fixture) (data []iceberg.ManifestFile, deletes int) {
	t.Helper()
	tb := f.load()
	p := &producer{t: tb, md: tb.Metadata}
	mfs, err := p.readList(context.Background(), tb.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.Content == iceberg.ManifestContentData {
			data = append(data, mf)
		} else {
			deletes++
		}
	}
	return data, deletes
}

func TestRewriteManifests(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, v := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
				t.Parallel()
				f := b.make(t, v, true, nil)
				var want []int64
				for i := int64(0); i < 6; i++ {
					f.write(Append, "", span(i*10, i*10+6)...)
					want = append(want, span(i*10, i*10+6)...)
				}
				if v >= 2 {
					f.delete(DeleteRequest{Filter: "id = 4"})
					want = append(want[:4], want[5:]...)
				}
				before := entryFacts(t, f)
				mfs, deletes := dataManifests(t, f)
				if len(mfs) != 6 {
					t.Fatalf("%d data manifests before, want 6", len(mfs))
				}
				var bytes int64
				for _, mf := range mfs {
					bytes += mf.Length
				}
				target := bytes/2 + 1
				head := f.current().SnapshotID

				dry, err := f.w.RewriteManifests(context.Background(), f.id, RewriteManifestsRequest{TargetManifestSize: target, DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if f.current().SnapshotID != head || dry.RewrittenFiles != 6 || dry.AddedFiles != 2 {
					t.Fatalf("dry run: %+v", dry)
				}
				res, err := f.w.RewriteManifests(context.Background(), f.id, RewriteManifestsRequest{TargetManifestSize: target})
				if err != nil {
					t.Fatal(err)
				}
				if res.RewrittenFiles != 6 || res.AddedFiles != 2 || res.SnapshotID == 0 {
					t.Fatalf("result %+v", res)
				}
				s := f.current()
				if s.Operation() != "replace" || *s.ParentSnapshotID != head {
					t.Errorf("snapshot %q parent %v", s.Operation(), s.ParentSnapshotID)
				}
				sum := s.Summary.Map()
				if sum["manifests-replaced"] != "6" || sum["manifests-created"] != "2" || sum["entries-processed"] != "18" {
					t.Errorf("summary %v", sum)
				}
				after, afterDeletes := dataManifests(t, f)
				if len(after) != 2 || afterDeletes != deletes {
					t.Fatalf("%d data and %d delete manifests after, want 2 and %d", len(after), afterDeletes, deletes)
				}
				for _, mf := range after {
					if mf.AddedFilesCount != 0 || mf.ExistingFilesCount != 9 {
						t.Errorf("manifest %s: %d added %d existing, want 0 and 9", mf.Path, mf.AddedFilesCount, mf.ExistingFilesCount)
					}
				}
				got := entryFacts(t, f)
				if len(got) != len(before) {
					t.Fatalf("%d live files after, %d before", len(got), len(before))
				}
				for k, v := range before {
					if got[k] != v {
						t.Errorf("%s: %s, was %s", k, got[k], v)
					}
				}
				f.wantIDs(want)
				f.wantNoOrphans()

				// The two manifests share one Avro header's overhead when
				// merged, so a second run may merge them; a third has
				// nothing left to lower.
				if _, err := f.w.RewriteManifests(context.Background(), f.id, RewriteManifestsRequest{TargetManifestSize: target}); err != nil {
					t.Fatal(err)
				}
				again, err := f.w.RewriteManifests(context.Background(), f.id, RewriteManifestsRequest{TargetManifestSize: target})
				if err != nil || again.SnapshotID != 0 {
					t.Fatalf("nothing left to rewrite: %v %+v", err, again)
				}
				if m, _ := dataManifests(t, f); len(m) > 2 {
					t.Errorf("%d data manifests", len(m))
				}
				got = entryFacts(t, f)
				for k, v := range before {
					if got[k] != v {
						t.Errorf("after the second run %s: %s, was %s", k, got[k], v)
					}
				}
				f.wantIDs(want)
			})
		}
	})
}
