package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/fuzzseed"
)

// FuzzParseLoadTable feeds load-table bodies to the parser: whatever the
// bytes, it returns a table or an error, never a panic. Files named by
// metadata-location are looked up in an empty in-memory FileIO, so the
// fuzzer cannot make it read the machine's files.
func FuzzParseLoadTable(f *testing.F) {
	md := sampleMetadata(f)
	answer, err := json.Marshal(map[string]any{
		"metadata-location": "mem://t/metadata/v1.metadata.json", "metadata": json.RawMessage(md),
		"config":              map[string]string{"s3.region": "r"},
		"storage-credentials": []map[string]any{{"prefix": "file:", "config": map[string]string{"s3.session-token-expires-at-ms": "1"}}},
	})
	if err != nil {
		f.Fatal(err)
	}
	fuzzseed.AddSeeds(f, answer,
		[]byte(`{"metadata-location": "mem://t/m.json"}`),
		[]byte(`{"metadata": null, "storage-credentials": [{"prefix": "", "config": null}]}`),
		[]byte(`{"metadata": {"format-version": 3, "schemas": [{"type": "struct", "fields": []}]}}`))
	mem := fileio.NewMem()
	c, err := New(context.Background(), "fuzz", fileio.Properties{"uri": "http://127.0.0.1:1"},
		WithFileIO(func(context.Context, fileio.Properties) (fileio.FileIO, error) { return mem, nil }))
	if err != nil {
		f.Fatal(err)
	}
	c.io = mem
	cl := call{method: http.MethodGet, what: "load table t.t"}
	f.Fuzz(func(t *testing.T, body []byte) {
		tbl, err := c.parseLoadTable(context.Background(), cl, catalog.Identifier{"t", "t"}, body)
		if err == nil && (tbl == nil || tbl.Metadata == nil) {
			t.Fatalf("no error and no metadata for %q", body)
		}
	})
}

// FuzzParseListPages feeds list bodies to the page parsers: whatever the
// bytes, every namespace returned is a valid child of its parent and every
// table identifier is valid.
func FuzzParseListPages(f *testing.F) {
	fuzzseed.AddSeeds(f,
		[]byte(`{"namespaces": [["a", "b"]], "next-page-token": "t"}`),
		[]byte(`{"identifiers": [{"namespace": ["a"], "name": "t"}], "next-page-token": null}`),
		[]byte(`{"namespaces": [["a", ".."]], "identifiers": [{"namespace": [], "name": ""}]}`))
	parent := []string{"a"}
	f.Fuzz(func(t *testing.T, body []byte) {
		if nss, _, err := parseNamespacesPage(body, parent); err == nil {
			for _, ns := range nss {
				if len(ns) != 2 || ns[0] != "a" || catalog.Identifier(ns).Validate() != nil {
					t.Fatalf("namespace %q accepted under %q", ns, parent)
				}
			}
		}
		if ids, _, err := parseTablesPage(body); err == nil {
			for _, id := range ids {
				if id.Validate() != nil {
					t.Fatalf("identifier %q accepted", id)
				}
			}
		}
	})
}
