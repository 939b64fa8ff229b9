package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// memWarehouse stores files (path below the warehouse → content) under
// mem://bucket/wh, as an object store holds them: keys, no folders.
func memWarehouse(files map[string]string) *fileio.Mem {
	mem := fileio.NewMem()
	for name, content := range files {
		mem.Put("mem://bucket/wh/"+name, []byte(content))
	}
	return mem
}

func TestObjectStoreDirectoryListsTablesAsOnDisk(t *testing.T) {
	t.Parallel()
	mem := memWarehouse(warehouseFiles(t))
	// A sibling prefix that shares the warehouse's name is no part of it.
	mem.Put("mem://bucket/wh2/evil/metadata/v1.metadata.json", []byte(metadataJSON("/evil", "evil")))
	d, err := NewDirectoryAt("mem://bucket/wh/", mem)
	if err != nil {
		t.Fatal(err)
	}
	if d.Root() != "mem://bucket/wh" {
		t.Errorf("Root = %s, want the cleaned URI", d.Root())
	}
	ctx := context.Background()
	ids, err := d.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range ids {
		got = append(got, id.String())
	}
	if want := []string{"broken", "ns.inner.t", "plain", "sales.customers", "sales.orders", "x.t"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ListTables = %v, want %v", got, want)
	}
	// TestDirectoryLoadTable loads each of these tables from here too.
	_, err = d.LoadTable(ctx, Identifier{"broken"})
	if err == nil || !strings.Contains(err.Error(), "metadata/v1.metadata.json") || strings.Contains(err.Error(), "mem://") {
		t.Errorf("broken metadata: %v, want the file named by its place in the table", err)
	}
}

func TestObjectStoreTableFilesAreConfinedToTheWarehousePrefix(t *testing.T) {
	t.Parallel()
	mem := memWarehouse(map[string]string{
		"a/t/metadata/v1.metadata.json": metadataJSON("s3://old/a/t", "a"),
		"a/t/data/rows.parquet":         "A rows",
		"b/t/metadata/v1.metadata.json": metadataJSON("s3://old/b/t", "b"),
		"b/t/data/rows.parquet":         "B rows",
		"shared/rows.parquet":           "shared",
	})
	for _, loc := range []string{"mem://bucket/wh2/secret", "mem://other/wh/b/t/data/rows.parquet", "mem://bucket/extra/t_data/rows.parquet", "mem://bucket/secret",
		"mem://bucket/wh2/../wh/b/t/data/rows.parquet"} {
		mem.Put(loc, []byte("not the table's"))
	}
	d, err := NewDirectoryAt("mem://bucket/wh", mem, WithAllowedRoots("mem://bucket/extra/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl, err := d.LoadTable(ctx, Identifier{"b", "t"})
	if err != nil {
		t.Fatal(err)
	}
	onlyB := tbl.ForCaller(func(id Identifier) bool { return id.Namespace()[0] == "b" })
	cases := []struct {
		name, location string
		table          *Table
		want           error
	}{
		{"own data file by recorded location", "s3://old/b/t/data/rows.parquet", onlyB, nil},
		{"relative own data file", "data/rows.parquet", onlyB, nil},
		{"file outside any table folder", "mem://bucket/wh/shared/rows.parquet", onlyB, nil},
		{"file below an allowed root", "mem://bucket/extra/t_data/rows.parquet", onlyB, nil},
		{"a sibling prefix sharing the warehouse's name", "mem://bucket/wh2/secret", onlyB, ErrOutsideWarehouse},
		{"the same path in another bucket", "mem://other/wh/b/t/data/rows.parquet", onlyB, ErrOutsideWarehouse},
		{"dot-dot out of the warehouse", "mem://bucket/wh/b/t/../../../secret", onlyB, ErrOutsideWarehouse},
		{"recorded location climbing out", "s3://old/b/t/../../../bucket/secret", onlyB, ErrOutsideWarehouse},
		{"relative location climbing out", "../../../secret", onlyB, ErrOutsideWarehouse},
		{"a local path", "/etc/passwd", onlyB, ErrOutsideWarehouse},
		{"other table's file", "mem://bucket/wh/a/t/data/rows.parquet", onlyB, ErrOtherTable},
		{"other table's file by relative path", "../../a/t/data/rows.parquet", onlyB, ErrOtherTable},
		{"other table's metadata", "mem://bucket/wh/a/t/metadata/v1.metadata.json", onlyB, ErrOtherTable},
		{"other table's file, no caller", "mem://bucket/wh/a/t/data/rows.parquet", tbl, nil},
		{"a key outside whose cleaned path is inside", "mem://bucket/wh2/../wh/b/t/data/rows.parquet", tbl, ErrOutsideWarehouse},
	}
	for _, tc := range cases {
		mapped := tc.table.IO.(interface{ Map(string) string }).Map(tc.location)
		if err := tc.table.CheckFile(mapped); !errors.Is(err, tc.want) {
			t.Errorf("%s: CheckFile(%q) = %v, want %v", tc.name, mapped, err, tc.want)
		}
		f, err := tc.table.IO.Open(ctx, tc.location)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Open(%q) = %v, want %v", tc.name, tc.location, err, tc.want)
		}
	}
	if got := tbl.Recorded("mem://bucket/wh/b/t/data/rows.parquet"); got != "s3://old/b/t/data/rows.parquet" {
		t.Errorf("Recorded = %s, want the location the metadata records", got)
	}
}

func TestNewDirectoryAtErrors(t *testing.T) {
	t.Parallel()
	mem := fileio.NewMem()
	cases := []struct {
		name     string
		location string
		fio      fileio.FileIO
		opts     []Option
	}{
		{"no FileIO for a remote warehouse", "s3://bucket/wh", nil, nil},
		{"a relative allowed root", "mem://bucket/wh", mem, []Option{WithAllowedRoots("extra")}},
		{"a URI without a path", "mem:bucket", mem, nil},
	}
	for _, tc := range cases {
		if _, err := NewDirectoryAt(tc.location, tc.fio, tc.opts...); err == nil {
			t.Errorf("%s: NewDirectoryAt(%s) succeeded", tc.name, tc.location)
		}
	}
}

func TestDirectoryOptionsFromProperties(t *testing.T) {
	t.Parallel()
	opts, err := DirectoryOptions(map[string]string{
		"metadata-location.sales.orders": "metadata/v3.metadata.json",
		"table-uuid":                     "ABC",
		"metadata-selection":             "last-updated",
		"s3.endpoint":                    "http://127.0.0.1:9000",
		"metadata-locations":             "not ours",
	})
	if err != nil {
		t.Fatal(err)
	}
	var d Directory
	for _, o := range opts {
		o(&d)
	}
	want := selection{by: SelectByLastUpdated, files: map[string]string{"sales.orders": "metadata/v3.metadata.json"}, uuids: map[string]string{"": "abc"}}
	if !reflect.DeepEqual(d.pick, want) {
		t.Errorf("selection = %+v, want %+v", d.pick, want)
	}
	for _, bad := range []map[string]string{
		{"metadata-selection": "newest"},
		{"table-uuid..x": "abc"},
	} {
		if _, err := DirectoryOptions(bad); err == nil {
			t.Errorf("DirectoryOptions(%v) succeeded", bad)
		}
	}
}

func TestMetadataSelectionRefusals(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"db/t/metadata/v1.metadata.json": metadataJSON("/wh/db/t", "t"),
		"db/u/metadata/v1.metadata.json": metadataJSON("/wh/db/u", "u"),
	}
	open := map[string]func(t *testing.T, opts ...Option) (*Directory, string){
		"local": func(t *testing.T, opts ...Option) (*Directory, string) {
			base := t.TempDir()
			writeFiles(t, base, map[string]string{"outside/v9.metadata.json": metadataJSON("/x", "outside")})
			root := filepath.Join(base, "wh")
			writeFiles(t, root, files)
			d, err := NewDirectoryAt(root, nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return d, filepath.Join(base, "outside", "v9.metadata.json")
		},
		"object store": func(t *testing.T, opts ...Option) (*Directory, string) {
			mem := memWarehouse(files)
			mem.Put("mem://bucket/outside/v9.metadata.json", []byte(metadataJSON("/x", "outside")))
			d, err := NewDirectoryAt("mem://bucket/wh", mem, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return d, "mem://bucket/outside/v9.metadata.json"
		},
	}
	id := Identifier{"db", "t"}
	for where, open := range open {
		_, outside := open(t)
		cases := []struct {
			name string
			opts []Option
			want error
		}{
			{"a pinned file outside the warehouse", []Option{WithMetadataFile(id, outside)}, ErrOutsideWarehouse},
			{"a pinned file climbing out", []Option{WithMetadataFile(id, "../../../outside/v9.metadata.json")}, ErrOutsideWarehouse},
			{"a pinned file that is missing", []Option{WithMetadataFile(id, "metadata/v7.metadata.json")}, fileio.ErrNotFound},
			{"a table-uuid no file has", []Option{WithTableUUID(nil, "00000000-0000-0000-0000-000000000000")}, ErrTableNotFound},
			{"another table's pin leaves this one alone", []Option{WithMetadataFile(Identifier{"db", "u"}, outside)}, nil},
			{"another table's file pinned by its place", []Option{WithMetadataFile(id, "../u/metadata/v1.metadata.json")}, nil},
		}
		for _, tc := range cases {
			d, _ := open(t, tc.opts...)
			tbl, err := d.LoadTable(context.Background(), id)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: %s: LoadTable = %v, want %v", where, tc.name, err, tc.want)
				continue
			}
			if err != nil && (strings.Contains(err.Error(), "root:") || strings.Contains(err.Error(), "outside\",")) {
				t.Errorf("%s: %s: error shows the file: %v", where, tc.name, err)
			}
			if err == nil && tc.name == "another table's file pinned by its place" && tbl.Metadata.Properties["tag"] != "u" {
				t.Errorf("%s: %s: read %q", where, tc.name, tbl.Metadata.Properties["tag"])
			}
		}
	}
}

// failingStore is an object store that fails every call with err.
type failingStore struct{ err error }

func (f failingStore) Open(context.Context, string) (fileio.File, error) { return nil, f.err }

func (f failingStore) ReadDir(_ context.Context, dir string) ([]fileio.Entry, error) {
	return nil, fmt.Errorf("list %s: %w", dir, f.err)
}

func TestFailingStorageIsNoMissingTable(t *testing.T) {
	t.Parallel()
	for _, want := range []error{fileio.ErrUnavailable, fileio.ErrPermissionDenied, fileio.ErrNotFound} {
		t.Run(want.Error(), func(t *testing.T) {
			t.Parallel()
			d, err := NewDirectoryAt("mem://bucket/wh", failingStore{err: want})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.LoadTable(context.Background(), Identifier{"sales", "orders"})
			if !errors.Is(err, want) || errors.Is(err, ErrTableNotFound) || !strings.Contains(err.Error(), "mem://bucket/wh") {
				t.Errorf("LoadTable with storage failing: %v, want %v naming the warehouse", err, want)
			}
		})
	}
}
