package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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

// historyDir is a Java-written table with five metadata files: v1 has no
// snapshot, v2 to v4 one more each (10, 20, then 15 rows after an
// overwrite), v5 the same snapshot as v4 with a tag and a branch.
var (
	historyDir      = filepath.Join("..", "testdata", "warehouse", "samples", "history")
	historyExpected = filepath.Join("..", "testdata", "expected", "samples.history")
	historyUUID     = "6498f159-08e9-4d15-9c30-c55d677e938b"
)

// The oracle's rows of each snapshot of samples.history; an empty name is
// the table without a snapshot (v1).
const (
	rowsOfV2 = "snapshot-7822698739170536247.jsonl"
	rowsOfV3 = "snapshot-8729145408503909038.jsonl"
	rowsOfV5 = "current.jsonl"
)

// quirkLayout renames the metadata files of samples.history and writes a
// hint: metadata maps a name in metadata/ to the Java-written vN file
// whose bytes it gets (gzip-compressed when the name says .gz), hint is
// the hint file's content ("" for none). The manifests and data files are
// copied as they are.
type quirkLayout struct {
	metadata map[string]int
	hint     string
	// others maps a name in metadata/ to a metadata file of another
	// Java-written table, by its path below testdata/warehouse.
	others map[string]string
}

// files returns the table's files: path below the table folder → bytes.
func (l quirkLayout) files(t *testing.T) map[string][]byte {
	t.Helper()
	out := testutil.QuirkFiles(t, historyDir, l.metadata, l.hint)
	for name, other := range l.others {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "warehouse", filepath.FromSlash(other)))
		if err != nil {
			t.Fatal(err)
		}
		out["metadata/"+name] = b
	}
	return out
}

// warehouses open a warehouse holding files as samples.history, on a local
// disk and on an object store (fileio.Mem under mem://bucket/wh), and
// return the catalog and the FileIO a worker reads data files with.
var warehouses = map[string]func(t *testing.T, files map[string][]byte, opts ...catalog.Option) (*catalog.Directory, fileio.FileIO){
	"local": func(t *testing.T, files map[string][]byte, opts ...catalog.Option) (*catalog.Directory, fileio.FileIO) {
		root := t.TempDir()
		testutil.WriteFiles(t, filepath.Join(root, "samples", "history"), files)
		d, err := catalog.NewDirectoryAt(root, nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return d, fileio.NewLocal()
	},
	"object store": func(t *testing.T, files map[string][]byte, opts ...catalog.Option) (*catalog.Directory, fileio.FileIO) {
		mem := fileio.NewMem()
		for rel, b := range files {
			mem.Put("mem://bucket/wh/samples/history/"+rel, b)
		}
		d, err := catalog.NewDirectoryAt("mem://bucket/wh/", mem, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return d, mem
	},
}

func TestMetadataQuirksReadAsTheOracle(t *testing.T) {
	t.Parallel()
	seq := func(n int) string { return "0000" + strconv.Itoa(n) + "-" + historyUUID }
	cases := []struct {
		name   string
		layout quirkLayout
		opts   []catalog.Option
		want   string // the oracle's file of the rows the table must serve
	}{
		{"a stale version-hint.text is followed forward to the newest version",
			quirkLayout{map[string]int{"v1.metadata.json": 1, "v2.metadata.json": 2, "v3.metadata.json": 3, "v4.metadata.json": 4, "v5.metadata.json": 5}, "2", nil}, nil, rowsOfV5},
		{"a hint holding a vN file name counts as its version",
			quirkLayout{map[string]int{"v1.metadata.json": 1, "v2.metadata.json": 2, "v3.metadata.json": 3}, "v3.metadata.json", nil}, nil, rowsOfV3},
		{"a hint holding a stale vN file name is followed forward",
			quirkLayout{map[string]int{"v1.metadata.json": 1, "v2.metadata.json": 2, "v3.metadata.json": 3, "v4.metadata.json": 4, "v5.metadata.json": 5}, "v2.metadata.json\n", nil}, nil, rowsOfV5},
		{"a hint holding a N-uuid file name: the newest such file",
			quirkLayout{map[string]int{seq(1) + ".metadata.json": 1, seq(2) + ".metadata.json": 2, seq(3) + ".metadata.json": 3}, seq(2) + ".metadata.json", nil}, nil, rowsOfV3},
		{"metadata files named by Unix time, a stale hint: the newest time",
			quirkLayout{map[string]int{"v1749025517.metadata.json": 2, "v1749025580.metadata.json": 3, "v1749025641.metadata.json": 4}, "1749025517", nil}, nil, rowsOfV5},
		{"metadata files named by Unix time, no hint",
			quirkLayout{map[string]int{"v1749025517.metadata.json": 2, "v1749025580.metadata.json": 3}, "", nil}, nil, rowsOfV3},
		{"gzip metadata named vN.gz.metadata.json",
			quirkLayout{map[string]int{"v1.gz.metadata.json": 1, "v2.gz.metadata.json": 2, "v3.gz.metadata.json": 3, "v4.gz.metadata.json": 4}, "", nil}, nil, rowsOfV5},
		{"gzip metadata named vN.gz.metadata.json with a stale hint",
			quirkLayout{map[string]int{"v1.gz.metadata.json": 1, "v2.gz.metadata.json": 2, "v3.gz.metadata.json": 3}, "1", nil}, nil, rowsOfV3},
		{"gzip metadata named N-uuid.gz.metadata.json",
			quirkLayout{map[string]int{seq(1) + ".gz.metadata.json": 1, seq(2) + ".gz.metadata.json": 2}, "", nil}, nil, rowsOfV2},
		{"an explicit metadata file pins the table to it",
			quirkLayout{map[string]int{"v1.metadata.json": 1, "v2.metadata.json": 2, "v3.metadata.json": 3, "v4.metadata.json": 4}, "4", nil},
			[]catalog.Option{catalog.WithMetadataFile(catalog.Identifier{"samples", "history"}, "metadata/v2.metadata.json")}, rowsOfV2},
		{"most recent by last-updated-ms, whatever the numbering says",
			quirkLayout{map[string]int{"00001-b.metadata.json": 4, "00002-a.metadata.json": 3, "00003-c.metadata.json": 2}, "", nil},
			[]catalog.Option{catalog.WithMetadataSelection(catalog.SelectByLastUpdated)}, rowsOfV5},
		{"by version the same files serve the highest number",
			quirkLayout{map[string]int{"00001-b.metadata.json": 4, "00002-a.metadata.json": 3, "00003-c.metadata.json": 2}, "", nil},
			nil, rowsOfV2},
		{"selection by table-uuid passes over another table's newer files",
			quirkLayout{map[string]int{"v1.metadata.json": 1, "v2.metadata.json": 2, "v3.metadata.json": 3}, "",
				map[string]string{"v4.metadata.json": "samples/trips/metadata/v2.metadata.json"}},
			[]catalog.Option{catalog.WithTableUUID(nil, strings.ToUpper(historyUUID))}, rowsOfV3},
	}
	for _, tc := range cases {
		for where, open := range warehouses {
			t.Run(where+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				files := tc.layout.files(t)
				d, workerIO := open(t, files, tc.opts...)
				tbl, err := d.LoadTable(context.Background(), catalog.Identifier{"samples", "history"})
				if err != nil {
					t.Fatal(err)
				}
				got, schema := scanRows(t, tbl, workerIO)
				want, err := testutil.OracleFile(schema, filepath.Join(historyExpected, tc.want))
				if err != nil {
					t.Fatal(err)
				}
				if diff := testutil.DiffRows(got, want); diff != "" {
					t.Errorf("%s (metadata %s): %s", tc.want, tbl.MetadataLocation, diff)
				}
			})
		}
	}
}

// scanRows plans a scan of tbl's current snapshot and reads every task with
// a worker's FileIO, as flightd does, and returns the rows in canonical
// form with the schema they were read with.
func scanRows(t *testing.T, tbl *catalog.Table, workerIO fileio.FileIO) ([]string, *iceberg.Schema) {
	t.Helper()
	ctx := context.Background()
	plan, err := planner.New().Plan(ctx, planner.Table{Name: tbl.Identifier.String(), MetadataLocation: tbl.MetadataLocation,
		Metadata: tbl.Metadata, IO: tbl.IO, Check: tbl.CheckFile}, planner.Request{CaseSensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd := reader.New(workerIO, reader.WithAllocator(mem))
	scan := reader.Scan{Schema: plan.Schema, EqualitySchema: plan.EqualitySchema, FilterSchema: plan.FilterSchema}
	rows := []string{}
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			err := rd.Read(ctx, scan, task, func(rec arrow.RecordBatch) error {
				r, err := testutil.ArrowRows(plan.Schema, rec)
				rows = append(rows, r...)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return rows, plan.Schema
}
