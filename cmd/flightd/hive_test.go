package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/testkit/writecheck"
)

// hiveNamespace is the metastore database the corpus is registered in.
const hiveNamespace = "conformance"

// hiveConfig is a flightd configuration of one Hive catalog, "hive", on
// the metastore at uri, new tables going below warehouse.
func hiveConfig(t *testing.T, uri, warehouse string) string {
	return writeFile(t, "iceflight.yaml", "catalogs:\n  hive:\n    type: hive\n    uri: "+uri+"\n    warehouse: file:"+warehouse+"\n")
}

// TestHiveConformanceCorpusMatchesJavaOracle registers every table of the
// conformance corpus in a Hive Metastore by the metadata file the Java
// oracle read, where it lies on disk, and reads every table and snapshot
// through flightd's `type: hive` catalog equal to the oracle.
func TestHiveConformanceCorpusMatchesJavaOracle(t *testing.T) {
	needCorpus(t, "conformance hive")
	start := time.Now()
	srv := hmsserver.Start(t)
	expected := filepath.Join("..", "..", "testdata", "conformance")
	registerCorpusInHive(t, srv.URI, expected)
	t.Logf("metastore up in %s, corpus registered in %s", srv.StartUp.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	fc := dial(t, startServe(t, "--config", hiveConfig(t, srv.URI, t.TempDir()), "--listen", "127.0.0.1:0").addr)
	began := time.Now()
	tl := compareServedWithOracle(t, fc, "hive."+hiveNamespace+".", expected)
	printTally("conformance hive", tl)
	t.Logf("read the corpus through the metastore in %s", time.Since(began).Round(time.Millisecond))
}

// registerCorpusInHive registers each table of the oracle's output in the
// metastore at uri, in hiveNamespace, by its metadata file in the corpus.
func registerCorpusInHive(t *testing.T, uri, expectedDir string) {
	t.Helper()
	ctx := context.Background()
	cat, err := hive.New(ctx, "register", fileio.Properties{hive.PropURI: uri},
		hive.WithFileIO(func(context.Context, fileio.Properties) (fileio.FileIO, error) { return fileio.NewResolver(), nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateNamespace(ctx, []string{hiveNamespace}, nil); err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, idx := range oracleTables(t, expectedDir) {
		loc := "file:" + filepath.Join(corpus, idx.Table, idx.MetadataFile)
		if _, err := cat.RegisterTable(ctx, catalog.Identifier{hiveNamespace, idx.Table}, loc); err != nil {
			t.Errorf("register %s: %v", idx.Table, err)
		}
	}
}

// pythonHiveScan loads the table name of the metastore at uri with
// PyIceberg's HiveCatalog and scans the metadata file it resolves to with
// tools/pycheck, printing canonical rows.
const pythonHiveScan = `import sys
from pyiceberg.catalog.hive import HiveCatalog
table = HiveCatalog("lake", uri=sys.argv[1]).load_table(sys.argv[2])
sys.path.insert(0, sys.argv[3])
import check
sys.argv = ["check.py", "--metadata", table.metadata_location]
sys.exit(check.main())
`

// pyHiveRows reads the table name through PyIceberg's HiveCatalog on the
// metastore at uri, in canonical form against schema.
func pyHiveRows(t *testing.T, uri, name string, schema *iceberg.Schema) []string {
	t.Helper()
	python := servers.Program(t, writecheck.PythonEnv, "servers-sql")
	cmd := exec.Command(python, "-c", pythonHiveScan, uri, name, filepath.Dir(writecheck.Script(t)))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("PyIceberg's HiveCatalog scan of %s: %v\n%s", name, err, stderr.String())
	}
	var rows []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		r, err := testutil.OracleRow(schema, []byte(line))
		if err != nil {
			t.Fatalf("PyIceberg row of %s: %v", name, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// pythonHiveAppend creates namespace sales and the table sales.items (the
// write tests' items schema) with PyIceberg's HiveCatalog and appends the
// rows given as JSON, in the oracle's form.
const pythonHiveAppend = `import sys, json, datetime, decimal
import pyarrow as pa
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.schema import Schema
cat = HiveCatalog("lake", uri=sys.argv[1], warehouse=sys.argv[2])
cat.create_namespace("sales")
t = cat.create_table("sales.items", Schema.model_validate_json(sys.argv[3]))
rows = json.loads(sys.argv[4])
arrow = pa.table({
    "id": pa.array([r["id"] for r in rows], pa.int64()),
    "name": pa.array([r["name"] for r in rows], pa.string()),
    "ts": pa.array([r["ts"] for r in rows], pa.timestamp("us", tz="UTC")),
    "day": pa.array([datetime.date(1970, 1, 1) + datetime.timedelta(days=r["day"]) for r in rows], pa.date32()),
    "price": pa.array([decimal.Decimal(r["price"]) for r in rows], pa.decimal128(9, 2)),
    "score": pa.array([r["score"] for r in rows], pa.float64()),
}, schema=t.schema().as_arrow())
t.append(arrow)
`

// TestHiveFlightAndPyIcebergShareTables has PyIceberg's HiveCatalog create
// and fill a table, flightd read it and append to it with DoPut, and
// flightd create and fill a table of its own: PyIceberg's HiveCatalog and
// flightd then read the same rows from both, the rows both wrote.
func TestHiveFlightAndPyIcebergShareTables(t *testing.T) {
	t.Parallel()
	srv := hmsserver.Start(t)
	python := servers.Program(t, writecheck.PythonEnv, "servers-sql")
	warehouse := t.TempDir()
	var schema iceberg.Schema
	if err := json.Unmarshal(itemsIcebergSchema, &schema); err != nil {
		t.Fatal(err)
	}
	m := model{}
	first := itemRows(m, ids(1, 8)...)
	rows, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(python, "-c", pythonHiveAppend, srv.URI, "file:"+warehouse, string(itemsIcebergSchema), string(rows)).CombinedOutput(); err != nil {
		t.Fatalf("PyIceberg's HiveCatalog append: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fc := dial(t, startServe(t, "--config", hiveConfig(t, srv.URI, warehouse), "--listen", "127.0.0.1:0").addr)
	read := func(name string, m model) {
		t.Helper()
		flightRows, err := readFlightRows(ctx, fc, append([]string{"hive"}, strings.Split(name, ".")...), &schema)
		if err != nil {
			t.Fatalf("Flight read of %s: %v", name, err)
		}
		want := rowsOf(t, &writecheck.Report{Schema: schema}, m.list())
		writecheck.Same(t, name, want, map[string][]string{
			"Flight through the metastore": flightRows,
			"PyIceberg's HiveCatalog":      pyHiveRows(t, srv.URI, name, &schema),
		})
	}
	read("sales.items", m)

	putRows := func(table string, m model, rowIDs ...int64) {
		t.Helper()
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		rec := itemBatch(mem, rowIDs...)
		_, err := put(ctx, fc, putCommand{Table: table, Mode: "append"}, rec)
		rec.Release()
		mem.AssertSize(t, 0)
		if err != nil {
			t.Fatalf("DoPut to %s: %v", table, err)
		}
		m.add(rowIDs...)
	}
	putRows("hive.sales.items", m, ids(100, 20)...)
	putRows("hive.sales.items", m, ids(200, 5)...)
	read("sales.items", m)

	ours := model{}
	if err := action(ctx, fc, "create_table", newTable("hive.sales.ours", itemsSchema, 2), nil); err != nil {
		t.Fatalf("create hive.sales.ours: %v", err)
	}
	putRows("hive.sales.ours", ours, ids(1000, 30)...)
	read("sales.ours", ours)
}
