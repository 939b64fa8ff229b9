//go:build linux

package hostile_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// This file is the suite's one writer of hostile tables: copies of the
// sample tables whose metadata JSON and Avro manifests are rewritten.

// samples is the sample warehouse the hostile tables are copied from.
var samples = filepath.Join(repo, "testdata", "warehouse", "samples")

// newWarehouse returns a fresh warehouse folder holding a.trips, the
// healthy table every test reads afterwards.
func newWarehouse(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copySample(t, dir, "trips", "a.trips")
	return dir
}

// table is a copy of a sample table in a test warehouse.
type table struct {
	t *testing.T
	// dir is the folder of the copy.
	dir string
	// location is the location its metadata records: every recorded path
	// under it is read from dir.
	location string
}

// copySample copies sample table name into warehouse as ident ("b.evil"
// lives in warehouse/b/evil), recording as its location a fresh empty
// folder outside the warehouse, as a table copied from elsewhere does: no
// two tables of a test record the same path unless a test means them to
// (copySampleAt), no recorded path is a server path, and ".." segments
// after the location climb through folders that exist.
func copySample(t *testing.T, warehouse, name, ident string) *table {
	t.Helper()
	return copySampleAt(t, warehouse, name, ident, "file:"+t.TempDir())
}

// copySampleAt copies sample table name into warehouse as ident, its
// metadata and manifests recording location as the table's.
func copySampleAt(t *testing.T, warehouse, name, ident, location string) *table {
	t.Helper()
	dst := filepath.Join(append([]string{warehouse}, strings.Split(ident, ".")...)...)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(samples, name))); err != nil {
		t.Fatalf("copy %s: %v", name, err)
	}
	tb := &table{t: t, dir: dst}
	tb.location, _ = tb.metadata()["location"].(string)
	if tb.location == "" {
		t.Fatalf("%s records no location", name)
	}
	tb.relocate(location)
	return tb
}

// relocate rewrites every path the current metadata, its manifest lists
// and their manifests record under the table's location to lie under
// location instead, as in a table written on another cluster.
func (tb *table) relocate(location string) {
	from := tb.location
	move := func(p string) string {
		if rest, ok := strings.CutPrefix(p, from); ok {
			return location + rest
		}
		return p
	}
	var lists []string
	for _, snap := range tb.metadata()["snapshots"].([]any) {
		lists = append(lists, tb.local(snap.(map[string]any)["manifest-list"].(string)))
	}
	for _, list := range lists {
		rewriteAvro(tb.t, list, func(recs []map[string]any) []map[string]any {
			for _, rec := range recs {
				recorded := rec["manifest_path"].(string)
				if m := tb.local(recorded); recorded != move(recorded) {
					rec["manifest_length"] = rewriteAvro(tb.t, m, func(entries []map[string]any) []map[string]any {
						for _, e := range entries {
							df := dataFile(e)
							df["file_path"] = move(df["file_path"].(string))
						}
						return entries
					})
				}
				rec["manifest_path"] = move(recorded)
			}
			return recs
		})
	}
	tb.editMetadata(func(m map[string]any) {
		m["location"] = location
		for _, snap := range m["snapshots"].([]any) {
			snap := snap.(map[string]any)
			snap["manifest-list"] = move(snap["manifest-list"].(string))
		}
	})
	tb.location = location
}

// metadataFile returns the local path of the current metadata file, the
// version that metadata/version-hint.text names.
func (tb *table) metadataFile() string {
	hint, err := os.ReadFile(filepath.Join(tb.dir, "metadata", "version-hint.text"))
	if err != nil {
		tb.t.Fatal(err)
	}
	return filepath.Join(tb.dir, "metadata", "v"+strings.TrimSpace(string(hint))+".metadata.json")
}

// metadata returns the current metadata JSON, numbers kept exact (snapshot
// ids do not fit a float64).
func (tb *table) metadata() map[string]any {
	b, err := os.ReadFile(tb.metadataFile())
	if err != nil {
		tb.t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		tb.t.Fatalf("metadata of %s: %v", tb.dir, err)
	}
	return m
}

// editMetadata rewrites the current metadata file with edit.
func (tb *table) editMetadata(edit func(m map[string]any)) {
	m := tb.metadata()
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.write(tb.metadataFile(), b)
}

// local returns where recorded, a path under the table's location, lies
// in the copy.
func (tb *table) local(recorded string) string {
	rest, ok := strings.CutPrefix(recorded, tb.location)
	if !ok {
		tb.t.Fatalf("%s is not under the table location %s", recorded, tb.location)
	}
	return filepath.Join(tb.dir, filepath.FromSlash(rest))
}

// manifestList returns the local path of the current snapshot's manifest
// list (every sample table used here has its current snapshot last).
func (tb *table) manifestList() string {
	snaps := tb.metadata()["snapshots"].([]any)
	return tb.local(snaps[len(snaps)-1].(map[string]any)["manifest-list"].(string))
}

// manifests returns the local paths of the manifests of the current
// snapshot.
func (tb *table) manifests() []string {
	var out []string
	for _, rec := range readAvro(tb.t, tb.manifestList()) {
		out = append(out, tb.local(rec["manifest_path"].(string)))
	}
	return out
}

// dataFiles returns the local paths of the current snapshot's data files.
func (tb *table) dataFiles() []string {
	var out []string
	for _, m := range tb.manifests() {
		for _, rec := range readAvro(tb.t, m) {
			out = append(out, tb.local(dataFile(rec)["file_path"].(string)))
		}
	}
	return out
}

// setManifestList makes the current snapshot name list as its manifest
// list.
func (tb *table) setManifestList(list string) {
	tb.editMetadata(func(m map[string]any) {
		snaps := m["snapshots"].([]any)
		snaps[len(snaps)-1].(map[string]any)["manifest-list"] = list
	})
}

// editManifestList rewrites every record of the current manifest list.
func (tb *table) editManifestList(edit func(rec map[string]any)) {
	rewriteAvro(tb.t, tb.manifestList(), func(recs []map[string]any) []map[string]any {
		for _, rec := range recs {
			edit(rec)
		}
		return recs
	})
}

// editEntries rewrites the entries of every manifest of the current
// snapshot with edit (which keeps the entries it returns) and records the
// manifests' new lengths in the manifest list, which readers may trust
// instead of asking the file system.
func (tb *table) editEntries(edit func(entries []map[string]any) []map[string]any) {
	sizes := map[string]int64{}
	for _, m := range tb.manifests() {
		sizes[m] = rewriteAvro(tb.t, m, edit)
	}
	tb.editManifestList(func(rec map[string]any) {
		rec["manifest_length"] = sizes[tb.local(rec["manifest_path"].(string))]
	})
}

// setDataPaths makes the i-th data file of the current snapshot be
// recorded as path(i, recorded).
func (tb *table) setDataPaths(path func(i int, recorded string) string) {
	i := 0
	tb.editEntries(func(entries []map[string]any) []map[string]any {
		for _, e := range entries {
			df := dataFile(e)
			df["file_path"] = path(i, df["file_path"].(string))
			i++
		}
		return entries
	})
}

// write replaces the file at path with b, keeping its mode.
func (tb *table) write(path string, b []byte) {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}

// dataFile returns the data_file record of a manifest entry.
func dataFile(entry map[string]any) map[string]any {
	return entry["data_file"].(map[string]any)
}

// readAvro returns the records of an Avro container file.
func readAvro(t *testing.T, path string) []map[string]any {
	t.Helper()
	recs, _ := decodeAvro(t, path)
	return recs
}

// decodeAvro returns the records of an Avro container file and its
// reader, which holds the file's schema, codec and header metadata.
func decodeAvro(t *testing.T, path string) ([]map[string]any, *goavro.OCFReader) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := goavro.NewOCFReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var recs []map[string]any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		recs = append(recs, v.(map[string]any))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return recs, r
}

// rewriteAvro rewrites the Avro container file at path with the records
// edit returns, keeping its schema, codec and the Iceberg metadata of its
// header (partition spec, format version ...), and returns its new size.
func rewriteAvro(t *testing.T, path string, edit func([]map[string]any) []map[string]any) int64 {
	t.Helper()
	recs, r := decodeAvro(t, path)
	meta := map[string][]byte{}
	for k, v := range r.MetaData() {
		// goavro writes the avro.* keys itself.
		if !strings.HasPrefix(k, "avro.") {
			meta[k] = v
		}
	}
	var buf bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{
		W: &buf, Codec: r.Codec(), CompressionName: r.CompressionName(), MetaData: meta,
	})
	if err != nil {
		t.Fatalf("rewrite %s: %v", path, err)
	}
	out := edit(recs)
	items := make([]any, len(out))
	for i, rec := range out {
		items[i] = rec
	}
	if err := w.Append(items); err != nil {
		t.Fatalf("rewrite %s: %v", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(buf.Len())
}

// outsideCopies copies the data files of tb into a folder outside every
// warehouse and returns their paths there, in the order of dataFiles.
func outsideCopies(tb *table) []string {
	dir := tb.t.TempDir()
	var out []string
	for _, f := range tb.dataFiles() {
		dst := filepath.Join(dir, filepath.Base(f))
		copyFile(tb.t, f, dst)
		out = append(out, dst)
	}
	return out
}

// upAndOver returns a relative path of ".." segments enough to climb to
// the root from any folder in a test's reach, then down to abs.
func upAndOver(abs string) string {
	return strings.Repeat("../", 32) + strings.TrimPrefix(abs, "/")
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
