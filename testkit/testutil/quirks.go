package testutil

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// QuirkLayouts is testdata/quirks/layouts.json: metadata quirks seen in the
// wild, each made from a copy of one Java-written table by renaming its
// metadata files only, so that the oracle's rows of that table stay the
// expected ones.
type QuirkLayouts struct {
	// Table is the Java-written table every quirk is copied from.
	Table  string  `json:"table"`
	Quirks []Quirk `json:"quirks"`
}

// Quirk is one layout of QuirkLayouts.
type Quirk struct {
	Table string `json:"table"` // the copy's table name
	Why   string `json:"why"`   // the quirk, for messages
	// Metadata maps a name in metadata/ to the N of the vN.metadata.json
	// whose bytes it gets.
	Metadata map[string]int `json:"metadata"`
	Hint     string         `json:"hint"`   // version-hint.text; "" for none
	Serves   int            `json:"serves"` // the N whose current snapshot is served
}

// LoadQuirks reads a QuirkLayouts file.
func LoadQuirks(t testing.TB, path string) QuirkLayouts {
	t.Helper()
	var q QuirkLayouts
	ReadJSON(t, path, &q)
	return q
}

// ReadJSON decodes the JSON file at path into v, failing the test if it
// cannot.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// QuirkFiles returns the files of a copy of the table in dir with its
// metadata files vN.metadata.json and version hint replaced: metadata maps
// a name in metadata/ to the N whose bytes it gets, gzip-compressed when the
// name says .gz; hint, when not empty, is the version-hint.text. Keys are
// paths below the table folder, with slashes; manifests and data files are
// copied as they are.
func QuirkFiles(t testing.TB, dir string, metadata map[string]int, hint string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "metadata/v") || strings.HasPrefix(rel, "metadata/version-hint") {
			return nil
		}
		out[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range metadata {
		b, err := os.ReadFile(filepath.Join(dir, "metadata", "v"+strconv.Itoa(v)+".metadata.json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(name, ".gz.") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			b = buf.Bytes()
		}
		out["metadata/"+name] = b
	}
	if hint != "" {
		out["metadata/version-hint.text"] = []byte(hint)
	}
	return out
}

// WriteFiles writes files (path below root, with slashes → bytes) under
// root, making the folders they need.
func WriteFiles(t testing.TB, root string, files map[string][]byte) {
	t.Helper()
	for rel, b := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
