package catalog

import (
	"context"
	"testing"
	"time"
)

func TestMetadataCacheRefresh(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		interval time.Duration
		refresh  bool
		wantTag  string
	}{
		{"within the interval the cached metadata is served", time.Hour, false, "one"},
		{"Refresh drops the cache at once", time.Hour, true, "two"},
		{"an interval of zero looks the metadata file up on every load", 0, false, "two"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeFiles(t, root, map[string]string{
				"db/t/metadata/v1.metadata.json":  metadataJSON("/old/db/t", "one"),
				"db/t/metadata/version-hint.text": "1",
			})
			d, err := NewDirectory(root, WithRefreshInterval(tc.interval))
			if err != nil {
				t.Fatal(err)
			}
			id := Identifier{"db", "t"}
			first, err := d.LoadTable(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			// A writer commits a new version.
			writeFiles(t, root, map[string]string{
				"db/t/metadata/v2.metadata.json":  metadataJSON("/old/db/t", "two"),
				"db/t/metadata/version-hint.text": "2",
			})
			if tc.refresh {
				d.Refresh(id)
			}
			again, err := d.LoadTable(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if got := again.Metadata.Properties["tag"]; got != tc.wantTag {
				t.Fatalf("loaded metadata %q, want %q", got, tc.wantTag)
			}
			if tc.wantTag == "one" && again != first {
				t.Fatal("a cached table was parsed again")
			}
		})
	}
}

func TestUnchangedMetadataIsNotParsedAgain(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "one"),
	})
	d, err := NewDirectory(root, WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := d.LoadTable(context.Background(), Identifier{"db", "t"})
	b, _ := d.LoadTable(context.Background(), Identifier{"db", "t"})
	if a == nil || a != b {
		t.Fatal("the same metadata file was parsed twice")
	}
}

func TestMetadataCacheIsBoundedByBytes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{}
	names := []string{"a", "b", "c"}
	for _, n := range names {
		files["db/"+n+"/metadata/v1.metadata.json"] = metadataJSON("/old/db/"+n, n)
	}
	writeFiles(t, root, files)
	one := int64(len(metadataJSON("/old/db/a", "a")))
	// Room for two tables' metadata, not three.
	d, err := NewDirectory(root, WithMetadataCacheBytes(2*one+1))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	load := func(n string) *Table {
		t.Helper()
		tb, err := d.LoadTable(ctx, Identifier{"db", n})
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	a := load("a")
	load("b")
	if again := load("a"); again != a { // a is now the most recently used
		t.Fatal("a table within the bound was parsed again")
	}
	load("c") // evicts b, the least recently used
	if n, bytes := d.cache.size(); n != 2 || bytes > 2*one+1 {
		t.Fatalf("cache holds %d tables in %d bytes, want 2 within %d", n, bytes, 2*one+1)
	}
	if d.cache.get("db.b") != nil {
		t.Error("the least recently used table was kept")
	}
	if d.cache.get("db.a") == nil || d.cache.get("db.c") == nil {
		t.Error("recently used tables were dropped")
	}

	small, err := NewDirectory(root, WithMetadataCacheBytes(one-1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.LoadTable(ctx, Identifier{"db", "a"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := small.cache.size(); n != 0 {
		t.Errorf("a table larger than the whole bound was cached")
	}
}

// A metadata file rewritten in place (or a table folder replaced by another
// table's) keeps its name but is another file: it is parsed again.
func TestRewrittenMetadataFileIsParsedAgain(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "one")})
	d, err := NewDirectory(root, WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	id := Identifier{"db", "t"}
	if _, err := d.LoadTable(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "rewritten")})
	tbl, err := d.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := tbl.Metadata.Properties["tag"]; got != "rewritten" {
		t.Errorf("loaded metadata %q, want the rewritten file's", got)
	}
}
