package metatable

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// localTable opens a table folder's metadata file as Iceberg Java's
// oracle does: its recorded location, and sibling data roots copied to
// _siblings/, mapped onto the folder.
func localTable(t *testing.T, name, dir, metadataFile string) Table {
	t.Helper()
	raw, err := os.ReadFile(metadataFile)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatalf("%s: %v", metadataFile, err)
	}
	rules := []fileio.Rule{{From: md.Location, To: dir}}
	if entries, err := os.ReadDir(filepath.Join(dir, "_siblings")); err == nil {
		parent := md.Location[:strings.LastIndexByte(strings.TrimRight(md.Location, "/"), '/')]
		for _, e := range entries {
			rules = append(rules, fileio.Rule{From: parent + "/" + e.Name(), To: filepath.Join(dir, "_siblings", e.Name())})
		}
	}
	return Table{Name: name, MetadataLocation: metadataFile, Metadata: md, IO: fileio.Remap(fileio.NewLocal(), rules...).WithBase(dir)}
}

// goRead is what our side read for a request.
type goRead struct {
	schema    *iceberg.Schema
	rows      []string
	manifests int // manifests in the units, after pruning
	err       error
}

// readAll plans a request and reads every unit with a checked allocator
// and small batches, rendering the rows in the oracle's canonical form.
func readAll(t *testing.T, tb Table, req Request, opts ...Option) goRead {
	t.Helper()
	ctx := context.Background()
	scan, err := Plan(ctx, tb, req, opts...)
	if err != nil {
		return goRead{err: err}
	}
	out := goRead{schema: scan.Schema, rows: []string{}}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, u := range scan.Units {
		out.manifests += len(u.Manifests)
		// A unit goes through JSON, as a ticket carries it.
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var back Unit
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		err = Read(ctx, tb, back, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			rows, err := testutil.ArrowRows(scan.Schema, rec)
			out.rows = append(out.rows, rows...)
			return err
		}, append([]Option{WithAllocator(mem), WithBatchRows(97)}, opts...)...)
		if err != nil {
			return goRead{err: err}
		}
	}
	return out
}

// schemaDiff describes how two schemas differ in field ids, names, types,
// required-ness or docs; "" when they do not.
func schemaDiff(got, want *iceberg.Schema) string {
	gs, _ := iceberg.MarshalTypeJSON(got.AsStruct())
	ws, _ := iceberg.MarshalTypeJSON(want.AsStruct())
	if bytes.Equal(gs, ws) {
		return ""
	}
	return "got  " + string(gs) + "\nwant " + string(ws)
}

// filterJSON is a filter in the REST form Java's ExpressionParser reads,
// bound to schema.
func filterJSON(t *testing.T, schema *iceberg.Schema, filter string) json.RawMessage {
	t.Helper()
	e, err := expr.Parse(filter)
	if err != nil {
		t.Fatalf("filter %q: %v", filter, err)
	}
	bound, err := expr.Bind(e, schema, true)
	if err != nil {
		t.Fatalf("filter %q: %v", filter, err)
	}
	b, err := json.Marshal(bound)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
