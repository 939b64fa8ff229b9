package writer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
)

// setSampleProperty sets a table property in the current metadata file of
// a copied sample table, as if the table had been altered before.
func setSampleProperty(t *testing.T, metadataFile, key, value string) {
	t.Helper()
	b, err := os.ReadFile(metadataFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // snapshot ids do not fit a float64
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	props, _ := doc["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props[key] = value
	doc["properties"] = props
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(metadataFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func relNames(files []RemovedFile, dir string) []string {
	var out []string
	for _, f := range files {
		p := strings.TrimPrefix(f.Location, "file:")
		p = strings.TrimPrefix(p, "/work/main/testdata/warehouse/samples/history/")
		p = strings.TrimPrefix(p, filepath.ToSlash(dir)+"/")
		out = append(out, f.Kind+" "+p)
	}
	sort.Strings(out)
	return out
}

// The history sample (Iceberg Java): S1 appends history-1, S2 appends
// history-2, S3 overwrites history-1's rows with history-3; branch
// before-overwrite is at S2 and tag first at S1. With every ref but main
// past its max-ref-age, only S3 stays: history-1 is live in no snapshot
// that stays (its rows are not in the current scan), so it goes with S1's
// manifest and both snapshots' manifest lists, while history-2 and the
// manifest that carries it into S3 stay.
func TestExpireSnapshotsSample(t *testing.T) {
	t.Parallel()
	root := sampleWarehouse(t, "history")
	dir := filepath.Join(root, "samples", "history")
	setSampleProperty(t, filepath.Join(dir, "metadata", "v5.metadata.json"), propMaxRefAge, "1")
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	w := New(cat, WithClock(func() time.Time { return now }))
	before := filesBelow(t, dir)
	res, err := w.ExpireSnapshots(context.Background(), catalog.Identifier{"samples", "history"}, ExpireRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || len(res.ExpiredSnapshots) != 2 || res.ExpiredSnapshots[0] != 7822698739170536247 || res.ExpiredSnapshots[1] != 8729145408503909038 {
		t.Errorf("expired = %v, want S1 and S2", res.ExpiredSnapshots)
	}
	want := []string{
		"data data/history-1.parquet",
		"manifest metadata/3e38b508-7956-4294-ab45-c5af310fcc40-m0.avro",
		"manifest-list metadata/snap-7822698739170536247-1-3e38b508-7956-4294-ab45-c5af310fcc40.avro",
		"manifest-list metadata/snap-8729145408503909038-1-dc6543d5-5854-46e8-86fc-7e06c486e3a7.avro",
	}
	if got := relNames(res.Removed, dir); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("would remove:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Counts["refs"] != 2 || res.Counts["snapshots"] != 2 || res.Counts[kindData] != 1 {
		t.Errorf("counts = %v", res.Counts)
	}
	if after := filesBelow(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Error("a dry run changed the table's files")
	}

	// The real run commits through the directory catalog and removes
	// just those files; the table then reads as Iceberg Java wrote it.
	res, err = w.ExpireSnapshots(context.Background(), catalog.Identifier{"samples", "history"}, ExpireRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := relNames(res.Removed, dir); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("removed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range want {
		if _, err := os.Stat(filepath.Join(dir, strings.Fields(f)[1])); !os.IsNotExist(err) {
			t.Errorf("%s is still there", f)
		}
	}
	tb, err := cat.LoadTable(context.Background(), catalog.Identifier{"samples", "history"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Metadata.Snapshots) != 1 || len(tb.Metadata.Refs) != 1 || tb.Metadata.CurrentSnapshot().SnapshotID != 8162928666802183831 {
		t.Errorf("after expiry: %d snapshots, refs %v", len(tb.Metadata.Snapshots), tb.Metadata.Refs)
	}

	// With the refs kept, every snapshot is a ref's head and nothing goes.
	root2 := sampleWarehouse(t, "history")
	cat2, err := catalog.NewDirectory(root2)
	if err != nil {
		t.Fatal(err)
	}
	w2 := New(cat2, WithClock(func() time.Time { return now }))
	res, err = w2.ExpireSnapshots(context.Background(), catalog.Identifier{"samples", "history"}, ExpireRequest{DryRun: true, RetainLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ExpiredSnapshots) != 0 || len(res.Removed) != 0 {
		t.Errorf("expired %v, removed %v: every snapshot is a ref's head", res.ExpiredSnapshots, res.Removed)
	}
	if _, err := w2.ExpireSnapshots(context.Background(), catalog.Identifier{"samples", "history"}, ExpireRequest{OlderThan: now.Add(time.Minute)}); err == nil {
		t.Error("older_than in the future was accepted")
	}
}
