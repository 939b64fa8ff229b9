//go:build linux

package hostile_test

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/iceflight/iceflight/client"
)

// outsideCase is a table in namespace a whose metadata reaches files
// outside the warehouse: a token for a may read the table, never those
// files.
type outsideCase struct {
	name string
	// build turns tb, a copy of samples.trips, hostile; outside holds
	// copies of its data files in a folder outside the warehouse.
	build func(tb *table, outside []string)
}

var outsideCases = []outsideCase{
	{"data files at absolute paths outside the warehouse", func(tb *table, outside []string) {
		tb.setDataPaths(func(i int, _ string) string { return outside[i] })
	}},
	{"data files as file URIs outside the warehouse", func(tb *table, outside []string) {
		tb.setDataPaths(func(i int, _ string) string { return "file://" + outside[i] })
	}},
	{"data files at /etc/passwd", func(tb *table, _ []string) {
		tb.setDataPaths(func(int, string) string { return "/etc/passwd" })
	}},
	{"data files at location/../.. outside the warehouse", func(tb *table, outside []string) {
		tb.setDataPaths(func(i int, _ string) string { return tb.location + "/" + upAndOver(outside[i]) })
	}},
	{"data files at relative ../.. paths outside the warehouse", func(tb *table, outside []string) {
		tb.setDataPaths(func(i int, _ string) string { return upAndOver(outside[i]) })
	}},
	{"data files at relative-location/../.. outside the warehouse", func(tb *table, outside []string) {
		tb.relocate("./warehouse/a/trips")
		tb.setDataPaths(func(i int, _ string) string { return tb.location + "/" + upAndOver(outside[i]) })
	}},
	{"manifest list at relative-location/../.. outside the warehouse", func(tb *table, _ []string) {
		tb.relocate("warehouse/a/trips")
		dst := filepath.Join(tb.t.TempDir(), filepath.Base(tb.manifestList()))
		copyFile(tb.t, tb.manifestList(), dst)
		tb.setManifestList(tb.location + "/" + upAndOver(dst))
	}},
	{"manifest outside the warehouse", func(tb *table, _ []string) {
		dir := tb.t.TempDir()
		tb.editManifestList(func(rec map[string]any) {
			src := tb.local(rec["manifest_path"].(string))
			dst := filepath.Join(dir, filepath.Base(src))
			copyFile(tb.t, src, dst)
			rec["manifest_path"] = dst
		})
	}},
	{"manifest at location/../etc/passwd", func(tb *table, _ []string) {
		tb.editManifestList(func(rec map[string]any) {
			rec["manifest_path"] = tb.location + "/" + upAndOver("/etc/passwd")
		})
	}},
	{"manifest list outside the warehouse", func(tb *table, _ []string) {
		dst := filepath.Join(tb.t.TempDir(), filepath.Base(tb.manifestList()))
		copyFile(tb.t, tb.manifestList(), dst)
		tb.setManifestList(dst)
	}},
	{"manifest list at /etc/passwd", func(tb *table, _ []string) {
		tb.setManifestList("/etc/passwd")
	}},
	{"manifest list at a relative ../.. path outside", func(tb *table, _ []string) {
		dst := filepath.Join(tb.t.TempDir(), filepath.Base(tb.manifestList()))
		copyFile(tb.t, tb.manifestList(), dst)
		tb.setManifestList(upAndOver(dst))
	}},
	{"data file symlinked to a file outside the warehouse", func(tb *table, outside []string) {
		for i, f := range tb.dataFiles() {
			symlink(tb.t, outside[i], f)
		}
	}},
	{"data folder symlinked to a folder outside the warehouse", func(tb *table, outside []string) {
		data := filepath.Join(tb.dir, "data")
		symlink(tb.t, filepath.Dir(outside[0]), data)
	}},
	{"metadata file symlinked to a file outside the warehouse", func(tb *table, _ []string) {
		meta := tb.metadataFile()
		dst := filepath.Join(tb.t.TempDir(), filepath.Base(meta))
		copyFile(tb.t, meta, dst)
		symlink(tb.t, dst, meta)
	}},
}

// symlink replaces path (a file or a folder) with a symbolic link to
// target.
func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// Issue 15 item 6: every file a table reads is confined to the warehouse
// after remapping and symlink resolution; the rest is PermissionDenied,
// with no row and no byte of the file in the answer.
func TestFilesOutsideTheWarehouseAreRefused(t *testing.T) {
	wh := newWarehouse(t)
	names := map[string]string{}
	for i, tc := range outsideCases {
		ident := "a.outside_" + string(rune('a'+i))
		names[tc.name] = ident
		tb := copySample(t, wh, "trips", ident)
		tc.build(tb, outsideCopies(tb))
	}
	s := startServer(t, wh)
	c := s.dial(t, tokenA)
	for _, tc := range outsideCases {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := scan(c, client.Command{Table: names[tc.name]})
			s.expectRefused(t, rows, err, codes.PermissionDenied, names[tc.name])
			s.checkHealthy(t)
		})
	}
}

// Issue 15 item 6: a table in namespace b whose manifests name a.trips's
// data files gives a token for b alone nothing, while a caller who may
// read a.trips may read them through it.
func TestAnotherNamespacesFilesNeedItsPermission(t *testing.T) {
	wh := newWarehouse(t)
	victim := filepath.Join(wh, "a", "trips", "data")
	steal := map[string]func(string) string{
		"b.by_absolute_path": func(f string) string { return "file:" + f },
		"b.by_relative_path": upAndOver,
	}
	var recorded []string
	for ident, path := range steal {
		tb := copySample(t, wh, "trips", ident)
		tb.setDataPaths(func(_ int, old string) string {
			p := path(filepath.Join(victim, filepath.Base(old)))
			recorded = append(recorded, p)
			return p
		})
	}
	s := startServer(t, wh)
	// The absolute paths are server paths, but as the table records them
	// an error may name them.
	s.recorded = recorded
	onlyB, both := s.dial(t, tokenB), s.dial(t, tokenAB)
	for ident := range steal {
		t.Run(ident+" with a token for b only", func(t *testing.T) {
			rows, err := scan(onlyB, client.Command{Table: ident})
			s.expectRefused(t, rows, err, codes.PermissionDenied, ident)
		})
		t.Run(ident+" with a token for a and b", func(t *testing.T) {
			rows, err := scan(both, client.Command{Table: ident})
			if err != nil || rows != healthyRows {
				t.Errorf("%d rows, %v; want %d rows", rows, err, healthyRows)
			}
		})
	}
	t.Run("a.trips itself with a token for b only", func(t *testing.T) {
		rows, err := scan(onlyB, client.Command{Table: "a.trips"})
		s.expectRefused(t, rows, err, codes.PermissionDenied, "a.trips")
	})
	s.checkHealthy(t)
}

// Issue 15 item 7: caches are keyed by where a file really is, not by the
// path metadata records, so three copies of one table that record the
// same manifest paths each serve their own rows or their own error,
// whichever was read first.
func TestTablesRecordingTheSamePathsServeTheirOwnContent(t *testing.T) {
	wh := newWarehouse(t)
	const origin = "file:/hostile-origin/twins"
	copySampleAt(t, wh, "trips", "a.twin_healthy", origin)
	partial := copySampleAt(t, wh, "trips", "a.twin_partial", origin)
	partial.editEntries(func(entries []map[string]any) []map[string]any { return entries[:1] })
	partialRows := int64(0)
	for _, m := range partial.manifests() {
		for _, e := range readAvro(t, m) {
			partialRows += dataFile(e)["record_count"].(int64)
		}
	}
	corrupt := copySampleAt(t, wh, "trips", "a.twin_corrupt", origin)
	for _, m := range corrupt.manifests() {
		// Same length, so a size recorded in the manifest list still holds.
		st, err := os.Stat(m)
		if err != nil {
			t.Fatal(err)
		}
		junk := make([]byte, st.Size())
		for i := range junk {
			junk[i] = 'x'
		}
		corrupt.write(m, junk)
	}
	s := startServer(t, wh)
	c := s.dial(t, tokenA)
	want := map[string]int64{"a.twin_healthy": healthyRows, "a.twin_partial": partialRows}
	order := []string{"a.twin_healthy", "a.twin_corrupt", "a.twin_partial", "a.twin_healthy", "a.twin_partial", "a.twin_corrupt"}
	for i, ident := range order {
		rows, err := scan(c, client.Command{Table: ident})
		if ident == "a.twin_corrupt" {
			t.Run(ident+" read "+string(rune('0'+i)), func(t *testing.T) {
				s.expectRefused(t, rows, err, codes.FailedPrecondition, ident)
			})
			continue
		}
		if err != nil || rows != want[ident] {
			t.Errorf("read %d of %s: %d rows, %v; want %d rows", i, ident, rows, err, want[ident])
		}
	}
	s.checkHealthy(t)
}
