// Package tablecheck reads a table of the sample warehouse back from the
// storage server a test uploaded it to, through a FileIO of that storage,
// the planner and the reader, and compares its rows with the ones the
// Iceberg Java oracle read from the original (testdata/expected). The
// storage back ends' end-to-end tests share it.
package tablecheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/testutil"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
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

// ReadBack reads the current snapshot of table name, uploaded to root
// (where the folder Dir names now is) and reached through fio, and fails t
// unless its rows equal the oracle's. The metadata records the paths the
// table was written at; a remapping rule points them at root, as flightd's
// relocation does. It returns the rows read.
func ReadBack(t *testing.T, fio fileio.FileIO, repo, name, root string) int {
	t.Helper()
	ctx := context.Background()
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
	scan := idx.Scans[0]
	var schema iceberg.Schema
	if err := json.Unmarshal(scan.Schema, &schema); err != nil {
		t.Fatalf("oracle schema of %s: %v", name, err)
	}
	want, err := testutil.OracleFile(&schema, filepath.Join(expected, scan.File))
	if err != nil {
		t.Fatal(err)
	}

	mdLoc := strings.TrimSuffix(root, "/") + "/" + idx.MetadataFile
	md, _, err := catalog.ReadMetadata(ctx, fio, mdLoc, 0)
	if err != nil {
		t.Fatalf("read metadata of %s: %v", name, err)
	}
	remapped := fileio.Remap(fio, fileio.Rule{From: md.Location, To: strings.TrimSuffix(root, "/")})
	plan, err := planner.New().Plan(ctx, planner.Table{Name: name, MetadataLocation: mdLoc, Metadata: md, IO: remapped},
		planner.Request{CaseSensitive: true})
	if err != nil {
		t.Fatalf("plan %s: %v", name, err)
	}
	rs := reader.Scan{Schema: plan.Schema, EqualitySchema: plan.EqualitySchema, FilterSchema: plan.FilterSchema}
	if plan.NameMappingJSON != "" {
		if rs.NameMapping, err = iceberg.ParseNameMapping([]byte(plan.NameMappingJSON)); err != nil {
			t.Fatal(err)
		}
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rd := reader.New(fio, reader.WithAllocator(mem))
	var got []string
	tasks := 0
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			paths := []string{task.GetPath()}
			for _, d := range task.GetDeletes() {
				paths = append(paths, d.GetPath())
			}
			for _, p := range paths {
				if !strings.HasPrefix(p, root) {
					t.Fatalf("task reads %s, not a file below %s", p, root)
				}
			}
			tasks++
			err := rd.Read(ctx, rs, task, func(b arrow.RecordBatch) error {
				rows, err := testutil.ArrowRows(&schema, b)
				got = append(got, rows...)
				return err
			})
			if err != nil {
				t.Fatalf("read %s: %v", name, err)
			}
		}
	}
	if tasks == 0 && scan.Rows > 0 {
		t.Fatalf("plan of %s has no tasks", name)
	}
	if d := testutil.DiffRows(got, want); d != "" {
		t.Fatalf("%s read from %s differs from the oracle: %s", name, root, d)
	}
	return len(got)
}
