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
