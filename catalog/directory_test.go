package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// metadataJSON is a minimal valid v2 metadata file; tag lets a test tell
// which file was read.
func metadataJSON(location, tag string) string {
	return fmt.Sprintf(`{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1",
"location":%q,"last-sequence-number":0,"last-updated-ms":1,"last-column-id":1,
"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"x","required":false,"type":"int"}]}],
"current-schema-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"default-spec-id":0,
"last-partition-id":999,"properties":{"tag":%q},"sort-orders":[{"order-id":0,"fields":[]}],"default-sort-order-id":0}`, location, tag)
}

// writeFiles writes files (path relative to root → content) below root.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// warehouse builds a warehouse with Hive-style and plain namespaces.
func warehouse(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, warehouseFiles(t))
	return root
}

// warehouseFiles are the files of warehouse, path below it → content.
func warehouseFiles(t *testing.T) map[string]string {
	return map[string]string{
		"sales.db/orders/metadata/v1.metadata.json":    metadataJSON("/wh/sales.db/orders", "orders-v1"),
		"sales.db/orders/metadata/v2.metadata.json":    metadataJSON("/wh/sales.db/orders", "orders-v2"),
		"sales.db/orders/metadata/version-hint.text":   "1",
		"sales.db/customers/metadata/v1.metadata.json": metadataJSON("/wh/sales.db/customers", "customers"),
		"plain/metadata/00001-a.metadata.json":         metadataJSON("s3://bucket/plain", "plain"),
		"plain/sub/metadata/v1.metadata.json":          metadataJSON("/x", "inside a table"),
		"ns/inner/t/metadata/v1.gz.metadata.json":      gzipped(t, metadataJSON("/wh/ns/inner/t", "gzip")),
		"x/t/metadata/v1.metadata.json":                metadataJSON("/wh/x/t", "x-t"),
		".hidden/t/metadata/v1.metadata.json":          metadataJSON("/h", "hidden"),
		"nometa/data/f.parquet":                        "",
		"emptymeta/metadata/version-hint.text":         "1",
		"broken/metadata/v1.metadata.json":             `{"format-version": 2, "location": `,
	}
}

func TestDirectoryListTables(t *testing.T) {
	t.Parallel()
	d, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := d.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range ids {
		got = append(got, id.String())
	}
	want := []string{"broken", "ns.inner.t", "plain", "sales.customers", "sales.orders", "x.t"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListTables = %v, want %v", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.ListTables(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled ListTables: %v", err)
	}
}

func TestDirectoryLoadTable(t *testing.T) {
	t.Parallel()
	d, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	// The same warehouse on an object store, where folders are prefixes.
	objects, err := NewDirectoryAt("mem://bucket/wh/", memWarehouse(warehouseFiles(t)))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		id     Identifier
		tag    string
		folder string
		want   error
	}{
		{"hive namespace by short name, stale hint", Identifier{"sales", "orders"}, "orders-v2", "sales.db/orders", nil},
		{"hive namespace by folder name", Identifier{"sales.db", "orders"}, "orders-v2", "sales.db/orders", nil},
		{"dotted string in one part", Identifier{"sales.orders"}, "orders-v2", "sales.db/orders", nil},
		{"plain namespace", Identifier{"x", "t"}, "x-t", "x/t", nil},
		{"nested namespaces, gzip metadata", Identifier{"ns", "inner", "t"}, "gzip", "ns/inner/t", nil},
		{"uuid-named metadata", Identifier{"plain"}, "plain", "plain", nil},
		{"unknown table", Identifier{"sales", "missing"}, "", "", ErrTableNotFound},
		{"unknown namespace", Identifier{"hr", "orders"}, "", "", ErrTableNotFound},
		{"no descent into a table", Identifier{"plain", "sub"}, "", "", ErrTableNotFound},
		{"folder without metadata", Identifier{"nometa"}, "", "", ErrTableNotFound},
		{"metadata folder without metadata files", Identifier{"emptymeta"}, "", "", ErrTableNotFound},
		{"namespace is not a table", Identifier{"sales"}, "", "", ErrTableNotFound},
		{"unparsable metadata", Identifier{"broken"}, "", "", iceberg.ErrInvalidMetadata},
		{"dot-dot part", Identifier{"..", "etc"}, "", "", ErrInvalidIdentifier},
		{"absolute part", Identifier{"/etc"}, "", "", ErrInvalidIdentifier},
		{"slash in part", Identifier{"sales.db/orders"}, "", "", ErrInvalidIdentifier},
		{"empty identifier", Identifier{}, "", "", ErrInvalidIdentifier},
	}
	for _, tc := range cases {
		for where, d := range map[string]*Directory{"local": d, "object store": objects} {
			t.Run(where+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				tbl, err := d.LoadTable(context.Background(), tc.id)
				if tc.want != nil {
					if !errors.Is(err, tc.want) {
						t.Fatalf("LoadTable(%v) = %v, want %v", tc.id, err, tc.want)
					}
					if tc.want != ErrInvalidIdentifier && !strings.Contains(err.Error(), tc.id.String()) {
						t.Errorf("error %q does not name the table", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("LoadTable(%v): %v", tc.id, err)
				}
				if got := tbl.Metadata.Properties["tag"]; got != tc.tag {
					t.Errorf("read metadata %q (%s), want %q", got, tbl.MetadataLocation, tc.tag)
				}
				want, meta := filepath.Join(d.Root(), filepath.FromSlash(tc.folder)), filepath.Join(tbl.Location, "metadata")
				if !d.local {
					want, meta = d.Root()+"/"+tc.folder, tbl.Location+"/metadata/"
				}
				if tbl.Location != want {
					t.Errorf("Location = %s, want %s", tbl.Location, want)
				}
				if !strings.HasPrefix(tbl.MetadataLocation, meta) {
					t.Errorf("MetadataLocation %s is not in the table", tbl.MetadataLocation)
				}
			})
		}
	}
}

func TestDirectoryLoadTableNamesBrokenMetadataFile(t *testing.T) {
	t.Parallel()
	d, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.LoadTable(context.Background(), Identifier{"broken"})
	if err == nil || !strings.Contains(err.Error(), "v1.metadata.json") {
		t.Errorf("error %v does not name the metadata file", err)
	}
}

func TestDirectoryEscapes(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{
		"secret/metadata/v1.metadata.json": metadataJSON("/secret", "secret"),
		"v9.metadata.json":                 metadataJSON("/secret", "secret file"),
		"hint":                             "9",
	})
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"real/metadata/v1.metadata.json":   metadataJSON("/wh/real", "real"),
		"evil/metadata/v1.metadata.json":   metadataJSON("/wh/evil", "evil"),
		"hinted/metadata/v1.metadata.json": metadataJSON("/wh/hinted", "hinted"),
		"ns/placeholder":                   "",
	})
	links := map[string]string{
		"escape":                            filepath.Join(outside, "secret"),
		"ns/escape":                         filepath.Join(outside, "secret"),
		"nsout":                             outside,
		"alias":                             filepath.Join(root, "real"),
		"evil/metadata/v2.metadata.json":    filepath.Join(outside, "v9.metadata.json"),
		"hinted/metadata/version-hint.text": filepath.Join(outside, "hint"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	d, err := NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	if err := os.MkdirAll(filepath.Join(root, "metaout"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret", "metadata"), filepath.Join(root, "metaout", "metadata")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []Identifier{{"escape"}, {"ns", "escape"}, {"nsout", "secret"}, {"metaout"}} {
		if _, err := d.LoadTable(ctx, id); !errors.Is(err, ErrTableNotFound) {
			t.Errorf("LoadTable(%v) through a symlink out of the root = %v, want ErrTableNotFound", id, err)
		}
	}
	if _, err := d.LoadTable(ctx, Identifier{"evil"}); !errors.Is(err, ErrOutsideWarehouse) || strings.Contains(err.Error(), outside) {
		t.Errorf("metadata file linked out of the root: %v", err)
	}
	tbl, err := d.LoadTable(ctx, Identifier{"hinted"})
	if err != nil || tbl.Metadata.Properties["tag"] != "hinted" {
		t.Errorf("hint linked out of the root must be ignored: %v", err)
	}
	tbl, err = d.LoadTable(ctx, Identifier{"alias"})
	if err != nil {
		t.Fatalf("symlink within the root: %v", err)
	}
	if tbl.Location != filepath.Join(d.Root(), "real") {
		t.Errorf("alias Location = %s", tbl.Location)
	}
	ids, err := d.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if s := id.String(); s != "real" && s != "evil" && s != "hinted" {
			t.Errorf("ListTables lists %s", s)
		}
	}
}

func TestDirectoryRemapping(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	loc := "hdfs://nn:8020/wh/db/t"
	writeFiles(t, root, map[string]string{
		"db.db/t/metadata/v1.metadata.json":    metadataJSON(loc, "t"),
		"db.db/t/data/a.parquet":               "A",
		"db.db/t/_siblings/t_data/b.parquet":   "B",
		"db.db/t/_siblings/t_data01/c.parquet": "C",
	})
	d, err := NewDirectory(root, WithRules(fileio.Rule{From: "s3://archive/old", To: "/mnt/old"}))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := d.LoadTable(context.Background(), Identifier{"db", "t"})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := tbl.IO.(*fileio.Remapper)
	if !ok {
		t.Fatalf("Table.IO is %T, want *fileio.Remapper", tbl.IO)
	}
	dir := tbl.Location
	cases := []struct{ in, want string }{
		{loc + "/data/a.parquet", filepath.Join(dir, "data", "a.parquet")},
		{"/wh/db/t/data/a.parquet", filepath.Join(dir, "data", "a.parquet")},
		{"file:///wh/db/t/data/a.parquet", filepath.Join(dir, "data", "a.parquet")},
		{"hdfs://nn:8020/wh/db/t_data/b.parquet", filepath.Join(dir, "_siblings", "t_data", "b.parquet")},
		{"/wh/db/t_data01/c.parquet", filepath.Join(dir, "_siblings", "t_data01", "c.parquet")},
		{"data/a.parquet", filepath.Join(dir, "data", "a.parquet")},
		{"hdfs://nn:8020/wh/db/t2/x", "hdfs://nn:8020/wh/db/t2/x"},
		{"s3://archive/old/f", filepath.FromSlash("/mnt/old/f")},
	}
	for _, tc := range cases {
		if got := r.Map(tc.in); got != tc.want {
			t.Errorf("Map(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, in := range []string{loc + "/data/a.parquet", "hdfs://nn:8020/wh/db/t_data/b.parquet", "data/a.parquet"} {
		f, err := tbl.IO.Open(context.Background(), in)
		if err != nil {
			t.Errorf("Open(%q): %v", in, err)
			continue
		}
		f.Close()
	}
}

func TestParentLocation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"/wh/db/t", "/wh/db", true},
		{"/wh/db/t/", "/wh/db", true},
		{"/t", "/", true},
		{"hdfs://nn:8020/wh/t", "hdfs://nn:8020/wh", true},
		{"s3://bucket/t", "s3://bucket/", true},
		{"file:/wh/t", "file:/wh", true},
		{"s3://bucket", "", false},
		{"/", "", false},
		{"wh/db/t", "wh/db", true},
		{"./wh/t/", "wh", true},
		{"t", ".", true},
		{"../wh/t", "../wh", true},
		{"wh/..", "", false},
		{"..", "", false},
		{".", "", false},
		{`C:\wh\db\t`, "C:/wh/db", true},
		{"C:/wh/t", "C:/wh", true},
		{`C:\`, "", false},
	}
	for _, tc := range cases {
		got, ok := parentLocation(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parentLocation(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNewDirectoryErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"file": ""})
	for _, p := range []string{filepath.Join(root, "missing"), filepath.Join(root, "file")} {
		if _, err := NewDirectory(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("NewDirectory(%s) = %v", p, err)
		}
	}
}
