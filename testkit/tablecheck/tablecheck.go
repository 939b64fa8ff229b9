// Package tablecheck reads a table of the sample warehouse back from the
// storage server a test uploaded it to, through a FileIO of that storage,
// the planner and the reader, and compares its rows with the ones the
// Iceberg Java oracle read from the original (testdata/expected). The
// storage back ends' end-to-end tests share it.
package tablecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// oracleIndex is the part of the oracle's index.json this check reads
// (testdata/conformance/README.md).
type oracleIndex struct {
	MetadataFile string `json:"metadata_file"`
	Scans        []struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Rows   int             `json:"rows"`
		File   string          `json:"file"`
	} `json:"scans"`
}

// Dir returns the folder of the sample warehouse table name ("samples.trips")
// in the repository whose root is repo, for uploading.
func Dir(repo, name string) string {
	ns, table, _ := strings.Cut(name, ".")
	return filepath.Join(repo, "testdata", "warehouse", ns, table)
}

// Table is a planned full scan of a sample table uploaded to a store,
// with the oracle's rows of it.
type Table struct {
	// Name is the table's name ("samples.trips"); Root is where it was
	// uploaded to.
	Name, Root string

	schema iceberg.Schema
	want   []string
	plan   *planner.Plan
	scan   reader.Scan
}

// Plan reads the metadata of table name, uploaded to root (where the
// folder Dir names now is) and reached through fio, and plans its current
// snapshot. The metadata records the paths the table was written at; a
// remapping rule points them at root, as flightd's relocation does, and
// Plan fails t if a task names a file elsewhere.
func Plan(t *testing.T, fio fileio.FileIO, repo, name, root string) *Table {
	t.Helper()
	ctx := context.Background()
	root = strings.TrimSuffix(root, "/")
	expected := filepath.Join(repo, "testdata", "expected", name)
	raw, err := os.ReadFile(filepath.Join(expected, "index.json"))
	if err != nil {
		t.Fatalf("oracle index of %s: %v", name, err)
	}
	var idx oracleIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatalf("oracle index of %s: %v", name, err)
	}
	if len(idx.Scans) == 0 || idx.Scans[0].Name != "current" {
		t.Fatalf("oracle index of %s has no current scan", name)
	}
	tb := &Table{Name: name, Root: root}
	if err := json.Unmarshal(idx.Scans[0].Schema, &tb.schema); err != nil {
		t.Fatalf("oracle schema of %s: %v", name, err)
	}
	if tb.want, err = testutil.OracleFile(&tb.schema, filepath.Join(expected, idx.Scans[0].File)); err != nil {
		t.Fatal(err)
	}

	mdLoc := root + "/" + idx.MetadataFile
	md, _, err := catalog.ReadMetadata(ctx, fio, mdLoc, 0)
	if err != nil {
		t.Fatalf("read metadata of %s: %v", name, err)
	}
	remapped := fileio.Remap(fio, fileio.Rule{From: md.Location, To: root})
	tb.plan, err = planner.New().Plan(ctx, planner.Table{Name: name, MetadataLocation: mdLoc, Metadata: md, IO: remapped},
		planner.Request{CaseSensitive: true})
	if err != nil {
		t.Fatalf("plan %s: %v", name, err)
	}
	tb.scan = reader.Scan{Schema: tb.plan.Schema, EqualitySchema: tb.plan.EqualitySchema, FilterSchema: tb.plan.FilterSchema}
	if tb.plan.NameMappingJSON != "" {
		if tb.scan.NameMapping, err = iceberg.ParseNameMapping([]byte(tb.plan.NameMappingJSON)); err != nil {
			t.Fatal(err)
		}
	}
	tasks := 0
	for _, ep := range tb.plan.Endpoints {
		for _, task := range ep.Tasks {
			tasks++
			paths := []string{task.Path}
			for _, d := range task.Deletes {
				paths = append(paths, d.Path)
			}
			for _, p := range paths {
				if !strings.HasPrefix(p, root+"/") {
					t.Fatalf("task reads %s, not a file below %s", p, root)
				}
			}
		}
	}
	if tasks == 0 && len(tb.want) > 0 {
		t.Fatalf("plan of %s has no tasks", name)
	}
	return tb
}

// Read reads every task of the plan through fio, one after the other,
// calling batch (when not nil) after each batch, and returns the rows in
// canonical form. The reader's allocator must hold nothing afterwards,
// whether the read succeeded or not.
func (tb *Table) Read(t *testing.T, fio fileio.FileIO, batch func()) ([]string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rd := reader.New(fio, reader.WithAllocator(mem))
	var got []string
	for _, ep := range tb.plan.Endpoints {
		for _, task := range ep.Tasks {
			err := rd.Read(context.Background(), tb.scan, task, func(b arrow.RecordBatch) error {
				rows, err := testutil.ArrowRows(&tb.schema, b)
				got = append(got, rows...)
				if batch != nil {
					batch()
				}
				return err
			})
			if err != nil {
				return got, fmt.Errorf("read %s: %w", tb.Name, err)
			}
		}
	}
	return got, nil
}

// DataFiles returns the locations of the data files the plan reads, in
// plan order.
func (tb *Table) DataFiles() []string {
	var out []string
	for _, ep := range tb.plan.Endpoints {
		for _, task := range ep.Tasks {
			out = append(out, task.Path)
		}
	}
	return out
}

// Check fails t unless got holds the oracle's rows.
func (tb *Table) Check(t *testing.T, got []string) {
	t.Helper()
	if d := testutil.DiffRows(got, tb.want); d != "" {
		t.Fatalf("%s read from %s differs from the oracle: %s", tb.Name, tb.Root, d)
	}
}

// ReadBack plans table name uploaded to root, reads it through fio and
// fails t unless its rows equal the oracle's; it returns the rows read.
func ReadBack(t *testing.T, fio fileio.FileIO, repo, name, root string) int {
	t.Helper()
	tb := Plan(t, fio, repo, name, root)
	got, err := tb.Read(t, fio, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb.Check(t, got)
	return len(got)
}
