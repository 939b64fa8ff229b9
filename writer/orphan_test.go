package writer

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// sampleWarehouse copies sample tables written by Iceberg Java into a
// fresh warehouse and returns its root; the copies record their old
// location, so the directory catalog relocates them.
func sampleWarehouse(t *testing.T, tables ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range tables {
		testutil.CopyTree(t, filepath.Join("..", "testdata", "warehouse", "samples", name), filepath.Join(root, "samples", name))
	}
	return root
}

// filesBelow lists every file below dir, relative to it.
func filesBelow(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func writeFile(t *testing.T, p string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("debris"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveOrphanFilesSamples(t *testing.T) {
	t.Parallel()
	// Tables Iceberg Java wrote: every file in them is referenced, by the
	// metadata log, a snapshot, a manifest or the version hint.
	for _, table := range []string{"history", "trips", "dv_many_files", "evolved", "eq_deletes_evolved"} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			root := sampleWarehouse(t, table)
			dir := filepath.Join(root, "samples", table)
			original := filesBelow(t, dir)
			now := time.Now().Add(30 * 24 * time.Hour)
			old := now.Add(-10 * 24 * time.Hour)
			writeFile(t, filepath.Join(dir, "data", "orphan-1.parquet"), old)
			writeFile(t, filepath.Join(dir, "data", "x=1", "deep", "orphan-2.parquet"), old)
			writeFile(t, filepath.Join(dir, "metadata", "snap-1-1-lost.avro"), old)
			writeFile(t, filepath.Join(dir, "metadata", "lost-m0.avro"), old)
			writeFile(t, filepath.Join(dir, "metadata", "v99.metadata.json"), old)
			writeFile(t, filepath.Join(dir, "data", "young.parquet"), now.Add(-time.Hour))

			cat, err := catalog.NewDirectory(root)
			if err != nil {
				t.Fatal(err)
			}
			w := New(cat, WithClock(func() time.Time { return now }))
			id := catalog.Identifier{"samples", table}
			want := map[string]string{
				"data/orphan-1.parquet":          kindData,
				"data/x=1/deep/orphan-2.parquet": kindData,
				"metadata/snap-1-1-lost.avro":    kindManifestList,
				"metadata/lost-m0.avro":          kindManifest,
				"metadata/v99.metadata.json":     kindMetadata,
			}
			check := func(res *MaintenanceResult) {
				t.Helper()
				got := map[string]string{}
				for _, f := range res.Removed {
					rel := strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(f.Location, "file:")), filepath.ToSlash(dir)+"/")
					got[rel] = f.Kind
				}
				if len(got) != len(want) {
					t.Errorf("removed %v, want %v", got, want)
				}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("removed[%s] = %q, want %q (all: %v)", k, got[k], v, got)
					}
				}
			}
			dry, err := w.RemoveOrphanFiles(context.Background(), id, OrphanRequest{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			check(dry)
			if !dry.DryRun || len(filesBelow(t, dir)) != len(original)+6 {
				t.Fatal("a dry run removed files")
			}
			res, err := w.RemoveOrphanFiles(context.Background(), id, OrphanRequest{})
			if err != nil {
				t.Fatal(err)
			}
			check(res)
			if res.Counts[kindData] != 2 || res.Counts[kindManifest] != 1 {
				t.Errorf("counts = %v", res.Counts)
			}
			left := filesBelow(t, dir)
			wantLeft := append(append([]string{}, original...), "data/young.parquet")
			sort.Strings(wantLeft)
			if strings.Join(left, "\n") != strings.Join(wantLeft, "\n") {
				t.Errorf("left:\n%s\nwant:\n%s", strings.Join(left, "\n"), strings.Join(wantLeft, "\n"))
			}
			// The table still loads.
			if _, err := cat.LoadTable(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRemoveOrphanFilesRefusals(t *testing.T) {
	t.Parallel()
	root := sampleWarehouse(t, "history")
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{"samples", "history"}
	now := time.Now()
	w := New(cat, WithClock(func() time.Time { return now }))
	if _, err := w.RemoveOrphanFiles(context.Background(), id, OrphanRequest{OlderThan: now.Add(time.Hour)}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("older_than in the future: err = %v", err)
	}
	if _, err := w.RemoveOrphanFiles(context.Background(), id, OrphanRequest{Location: t.TempDir()}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a location outside the table: err = %v", err)
	}
	noList := New(unlistable{cat}, WithClock(func() time.Time { return now }))
	_, err = noList.RemoveOrphanFiles(context.Background(), id, OrphanRequest{})
	if !errors.Is(err, fileio.ErrUnsupportedScheme) || !strings.Contains(err.Error(), "cannot list") {
		t.Errorf("a store that cannot list: err = %v", err)
	}
}

// unlistable serves tables whose storage cannot list folders.
type unlistable struct{ *catalog.Directory }

func (u unlistable) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	t, err := u.Directory.LoadTable(ctx, id)
	if err != nil {
		return nil, err
	}
	c := *t
	c.IO = openOnly{t.IO}
	return &c, nil
}

type openOnly struct{ fio fileio.FileIO }

func (o openOnly) Open(ctx context.Context, loc string) (fileio.File, error) {
	return o.fio.Open(ctx, loc)
}

func TestNormalizeLocation(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"s3://b/wh/t/data/f.parquet", "s3a://b/wh/t/data/f.parquet", "s3n://b/wh/t//data/./f.parquet", "S3A://b/wh/t/data/x/../f.parquet"},
		{"/wh/t/f", "file:/wh/t/f", "file:///wh/t/f", "file://localhost/wh/t/f", "/wh/t/f/"},
		{"gs://b/t/f", "gs://b/t/f/"},
	}
	for _, group := range same {
		for _, loc := range group[1:] {
			if a, b := normalizeLocation(group[0]), normalizeLocation(loc); a != b {
				t.Errorf("%s -> %s, %s -> %s: want one spelling", group[0], a, loc, b)
			}
		}
	}
	differ := [][2]string{
		{"s3://a/t/f", "s3://b/t/f"},
		{"s3://b/t/f", "gs://b/t/f"},
		{"/wh/t/f", "hdfs://nn/wh/t/f"},
	}
	for _, d := range differ {
		if normalizeLocation(d[0]) == normalizeLocation(d[1]) {
			t.Errorf("%s and %s normalise alike", d[0], d[1])
		}
	}
}
