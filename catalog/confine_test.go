package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/iceflight/iceflight/fileio"
)

// confineWarehouse builds a warehouse with tables a.t and b.t, a folder
// outside it and an extra root, with symlinks that lead from b.t's folder
// out of the warehouse and into a.t's folder.
func confineWarehouse(t *testing.T) (root, outside, extra string) {
	t.Helper()
	base := t.TempDir()
	root, outside, extra = filepath.Join(base, "wh"), filepath.Join(base, "outside"), filepath.Join(base, "extra")
	writeFiles(t, root, map[string]string{
		"a/t/metadata/v1.metadata.json": metadataJSON("/old/a/t", "a"),
		"a/t/data/rows.parquet":         "A rows",
		"b/t/metadata/v1.metadata.json": metadataJSON("/old/b/t", "b"),
		"b/t/data/rows.parquet":         "B rows",
		"shared/rows.parquet":           "shared",
	})
	writeFiles(t, outside, map[string]string{"passwd": "root:x:0:0"})
	writeFiles(t, extra, map[string]string{"t_data/rows.parquet": "extra rows"})
	for link, target := range map[string]string{
		"b/t/data/out.parquet":   filepath.Join(outside, "passwd"),
		"b/t/data/a.parquet":     filepath.Join(root, "a", "t", "data", "rows.parquet"),
		"b/t/data/adir":          filepath.Join(root, "a", "t", "data"),
		"b/t/data/dangling":      filepath.Join(outside, "nothing"),
		"b/t/data/extra.parquet": filepath.Join(extra, "t_data", "rows.parquet"),
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside, extra
}

// loadOne opens the warehouse root with opts and loads the table id.
func loadOne(t testing.TB, root string, id Identifier, opts ...Option) *Table {
	t.Helper()
	d, err := NewDirectory(root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := d.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestTableFilesAreConfined(t *testing.T) {
	t.Parallel()
	root, outside, extra := confineWarehouse(t)
	ctx := context.Background()
	tbl := loadOne(t, root, Identifier{"b", "t"}, WithAllowedRoots(extra))
	onlyB := tbl.ForCaller(func(id Identifier) bool { return id.Namespace()[0] == "b" })
	everyone := tbl.ForCaller(nil)
	passwd := filepath.Join(outside, "passwd")
	cases := []struct {
		name, location string
		table          *Table
		want           error
	}{
		{"own data file", "/old/b/t/data/rows.parquet", onlyB, nil},
		{"relative own data file", "data/rows.parquet", onlyB, nil},
		{"file outside any table folder", filepath.Join(root, "shared", "rows.parquet"), onlyB, nil},
		{"file below an allowed root", filepath.Join(extra, "t_data", "rows.parquet"), onlyB, nil},
		{"symlink into an allowed root", "data/extra.parquet", onlyB, nil},
		{"absolute path outside", passwd, onlyB, ErrOutsideWarehouse},
		{"file URI outside", "file://" + passwd, onlyB, ErrOutsideWarehouse},
		{"recorded location climbing out", "/old/b/t/../../../../" + passwd, onlyB, ErrOutsideWarehouse},
		{"relative location climbing out", "../../../outside/passwd", onlyB, ErrOutsideWarehouse},
		{"symlink leading outside", "data/out.parquet", onlyB, ErrOutsideWarehouse},
		{"dangling symlink", "data/dangling", onlyB, ErrOutsideWarehouse},
		{"other scheme", "s3://bucket/x.parquet", onlyB, ErrOutsideWarehouse},
		{"other table's file", filepath.Join(root, "a", "t", "data", "rows.parquet"), onlyB, ErrOtherTable},
		{"other table's file by relative path", "../../a/t/data/rows.parquet", onlyB, ErrOtherTable},
		{"symlink to the other table's file", "data/a.parquet", onlyB, ErrOtherTable},
		{"symlinked folder of the other table", "data/adir/rows.parquet", onlyB, ErrOtherTable},
		{"other table's metadata", filepath.Join(root, "a", "t", "metadata", "v1.metadata.json"), onlyB, ErrOtherTable},
		{"other table's file, caller may read it", "data/a.parquet", everyone, nil},
		{"other table's file, no caller", "data/a.parquet", tbl, nil},
		{"outside, whoever asks", passwd, everyone, ErrOutsideWarehouse},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mapped := tc.table.IO.(interface{ Map(string) string }).Map(tc.location)
			err := tc.table.CheckFile(mapped)
			if !errors.Is(err, tc.want) {
				t.Fatalf("CheckFile(%q) = %v, want %v", tc.location, err, tc.want)
			}
			f, err := tc.table.IO.Open(ctx, tc.location)
			if err == nil {
				f.Close()
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Open(%q): %v", tc.location, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open(%q) = %v, want %v", tc.location, err, tc.want)
			}
			if strings.Contains(err.Error(), "root:x") || strings.Contains(err.Error(), root) && !strings.Contains(tc.location, root) {
				t.Errorf("error %q shows the file or a server path", err)
			}
		})
	}
}

// The warehouse's own FileIO refuses escapes even for a table whose
// confinement was skipped: a caller given only the FileIO cannot step out.
func TestDirectoryFileIOIsConfined(t *testing.T) {
	t.Parallel()
	root, outside, _ := confineWarehouse(t)
	d, err := NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{filepath.Join(outside, "passwd"), filepath.Join(root, "b", "t", "data", "out.parquet")} {
		f, err := d.io.Open(context.Background(), loc)
		if err == nil {
			f.Close()
			t.Errorf("Open(%q) succeeded", loc)
		}
	}
	if _, err := NewDirectory(root, WithAllowedRoots(filepath.Join(outside, "passwd"))); err == nil {
		t.Error("a file as allowed root was accepted")
	}
}

func TestRecordedNamesFilesAsTheMetadataDoes(t *testing.T) {
	t.Parallel()
	root, outside, _ := confineWarehouse(t)
	tbl := loadOne(t, root, Identifier{"b", "t"})
	cases := []struct{ in, want string }{
		{filepath.Join(tbl.Location, "data", "rows.parquet"), "/old/b/t/data/rows.parquet"},
		{tbl.Location, "/old/b/t"},
		{filepath.Join(outside, "passwd"), filepath.Join(outside, "passwd")},
		{tbl.Location + "2/x", tbl.Location + "2/x"},
	}
	for _, tc := range cases {
		if got := tbl.Recorded(tc.in); got != tc.want {
			t.Errorf("Recorded(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A metadata file that is not JSON is named by its place in the table and
// the position of the fault, never by a byte of what it holds.
func TestMetadataParseErrorsShowNoContent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"db/t/metadata/v1.metadata.json": "root:x:0:0:root:/root:/bin/bash\n"})
	d, err := NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.LoadTable(context.Background(), Identifier{"db", "t"})
	if err == nil {
		t.Fatal("a metadata file that is not JSON was loaded")
	}
	msg := err.Error()
	for _, leak := range []string{"root", "'r'", d.Root()} {
		if strings.Contains(msg, leak) {
			t.Errorf("error %q shows %q", msg, leak)
		}
	}
	if !strings.Contains(msg, "metadata/v1.metadata.json") || !strings.Contains(msg, "byte 1") {
		t.Errorf("error %q does not name the file and the position", msg)
	}
}

// BenchmarkCheckFile measures the plan-time check of one data file of a
// table of 10,000 files in 100 partition folders.
func BenchmarkCheckFile(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "t")}
	var paths []string
	for i := range 10000 {
		name := fmt.Sprintf("db/t/data/p=%d/f%d.parquet", i%100, i)
		files[name] = "x"
		paths = append(paths, filepath.Join(root, filepath.FromSlash(name)))
	}
	writeFiles(b, root, files)
	tbl := loadOne(b, root, Identifier{"db", "t"})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%len(paths) == 0 {
			tbl = tbl.ForCaller(func(Identifier) bool { return true }) // a new plan: cold caches
		}
		if err := tbl.CheckFile(paths[i%len(paths)]); err != nil {
			b.Fatal(err)
		}
	}
}

// A FIFO where a hint file, a metadata folder or a _siblings folder should
// be would block open(2) until a writer comes; listing and loading tables
// must go on without it.
func TestFIFOsInTableFoldersDoNotBlock(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "t"),
		"db/u/data/x.parquet":            "x",
	})
	for _, fifo := range []string{"db/t/metadata/version-hint.text", "db/t/_siblings", "db/u/metadata"} {
		if err := syscall.Mkfifo(filepath.Join(root, filepath.FromSlash(fifo)), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	d, err := NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	err = unblocked(t, "listing or loading", func() error {
		ids, err := d.ListTables(context.Background())
		if err == nil && (len(ids) != 1 || ids[0].String() != "db.t") {
			err = fmt.Errorf("tables %v, want [db.t]", ids)
		}
		if err == nil {
			_, err = d.LoadTable(context.Background(), Identifier{"db", "t"})
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// unblocked runs fn and returns its error, failing the test if fn has not
// returned within 30 seconds: the FIFO tests' guard against a blocked open.
func unblocked(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("%s blocked on a FIFO", what)
		return nil
	}
}

// A FIFO (or any file that is not a regular one) where the newest metadata
// file belongs is that table's newest version, found with or without a
// hint: loading fails naming it, rather than the version before it being
// served as current.
func TestANewestMetadataFileThatIsNoRegularFileFailsTheTable(t *testing.T) {
	t.Parallel()
	for _, hint := range []bool{false, true} {
		t.Run(fmt.Sprintf("hint=%v", hint), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			files := map[string]string{"db/t/metadata/v1.metadata.json": metadataJSON("/old/db/t", "t")}
			if hint {
				files["db/t/metadata/version-hint.text"] = "1"
			}
			writeFiles(t, root, files)
			if err := syscall.Mkfifo(filepath.Join(root, "db", "t", "metadata", "v2.metadata.json"), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			d, err := NewDirectory(root)
			if err != nil {
				t.Fatal(err)
			}
			err = unblocked(t, "loading", func() error {
				_, err := d.LoadTable(context.Background(), Identifier{"db", "t"})
				return err
			})
			if !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), "v2.metadata.json") {
				t.Fatalf("LoadTable = %v, want ErrNotRegular naming v2.metadata.json", err)
			}
		})
	}
}

// A folder whose files are many is listed once rather than lstat'd file by
// file; a symlink among them, checked after the listing, is still followed
// and refused when it leads into a table the caller may not read, and so is
// one the listing missed because it came later.
func TestSymlinksInALargeFolderAreFollowed(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"a/t/metadata/v1.metadata.json": metadataJSON("/old/a/t", "t"),
		"a/t/data/secret.parquet":       "s",
		"b/t/metadata/v1.metadata.json": metadataJSON("/old/b/t", "t"),
	}
	const n = 3 * listAfter
	for i := range n {
		files[fmt.Sprintf("b/t/data/f%02d.parquet", i)] = "x"
	}
	writeFiles(t, root, files)
	data := filepath.Join(root, "b", "t", "data")
	secret := filepath.Join(root, "a", "t", "data", "secret.parquet")
	if err := os.Symlink(secret, filepath.Join(data, "link.parquet")); err != nil {
		t.Fatal(err)
	}
	onlyB := loadOne(t, root, Identifier{"b", "t"}).ForCaller(func(id Identifier) bool { return id.Namespace()[0] == "b" })
	for i := range n {
		if err := onlyB.CheckFile(filepath.Join(data, fmt.Sprintf("f%02d.parquet", i))); err != nil {
			t.Fatalf("file %d of b.t refused: %v", i, err)
		}
	}
	if err := onlyB.CheckFile(filepath.Join(data, "link.parquet")); !errors.Is(err, ErrOtherTable) {
		t.Errorf("a symlink into a.t, checked after the folder was listed: %v, want ErrOtherTable", err)
	}
	if err := os.Symlink(secret, filepath.Join(data, "late.parquet")); err != nil {
		t.Fatal(err)
	}
	if err := onlyB.CheckFile(filepath.Join(data, "late.parquet")); !errors.Is(err, ErrOtherTable) {
		t.Errorf("a symlink made after the listing: %v, want ErrOtherTable", err)
	}
}
