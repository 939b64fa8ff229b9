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
