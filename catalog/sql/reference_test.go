package sqlcat_test

import (
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// pythonEnv names the Python of the venv with PyIceberg 0.12 that
// `make servers-sql` makes.
const pythonEnv = "PYICEBERG_PYTHON"

// written is what a reference writer wrote into a catalog: its tables and
// top-level namespaces, sorted, and the folder of the rows the reference
// implementation reads back from each table (TABLE.jsonl).
type written struct {
	tables, namespaces []string
	rows               string
}

// writeWithPyIceberg writes the tables of testdata/pyiceberg_write.py into
// the catalog name at uri, with a warehouse below dir.
func writeWithPyIceberg(t *testing.T, uri, name, dir string, v0 bool) written {
	t.Helper()
	python := servers.Program(t, pythonEnv, "servers-sql")
	script, err := filepath.Abs(filepath.Join("testdata", "pyiceberg_write.py"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pyiceberg-rows")
	args := []string{script, "--uri", uri, "--warehouse", filepath.Join(dir, "warehouse"), "--name", name, "--out", out}
	if v0 {
		args = append(args, "--v0")
	}
	cmd := exec.Command(python, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("PyIceberg writer: %v\n%s", err, b)
	}
	return written{tables: []string{"a.b.events", "sales.orders"}, namespaces: []string{"a", "empty", "sales"}, rows: out}
}

// checkTables checks that cat lists the tables and namespaces w holds (a
// namespace with only properties too) and reads each table's rows equal
// to the reference implementation's.
func checkTables(t *testing.T, cat *sqlcat.Catalog, w written) {
	t.Helper()
	ctx := context.Background()
	ids, err := cat.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range ids {
		got = append(got, id.String())
	}
	if !slices.Equal(got, w.tables) {
		t.Fatalf("tables %v, want %v", got, w.tables)
	}
	nss, err := cat.ListNamespaces(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, ns := range nss {
		got = append(got, strings.Join(ns, "."))
	}
	if !slices.Equal(got, w.namespaces) {
		t.Fatalf("namespaces %v, want %v (empty has only properties)", got, w.namespaces)
	}
	for _, id := range ids {
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rows, schemaRows := readRows(t, tbl)
		want, err := testutil.OracleFile(schemaRows, filepath.Join(w.rows, id.String()+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if d := testutil.DiffRows(rows, want); d != "" {
			t.Fatalf("%s: rows differ from the reference's: %s", id, d)
		}
		t.Logf("%s: %d rows equal the reference's", id, len(rows))
	}
}

// readRows plans a full scan of tbl as GetFlightInfo does and reads every
// task as DoGet does, returning the canonical rows and their schema.
func readRows(t *testing.T, tbl *catalog.Table) ([]string, *iceberg.Schema) {
	t.Helper()
	ctx := context.Background()
	plan, err := planner.New().Plan(ctx, planner.Table{
		Name: tbl.Identifier.String(), MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO, Check: tbl.CheckFile,
	}, planner.Request{CaseSensitive: true})
	if err != nil {
		t.Fatalf("plan %s: %v", tbl.Identifier, err)
	}
	mapping, err := tbl.Metadata.NameMapping()
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd := reader.New(tbl.IO, reader.WithAllocator(mem))
	scan := reader.Scan{Schema: plan.Schema, NameMapping: mapping, EqualitySchema: plan.EqualitySchema, FilterSchema: plan.FilterSchema}
	var rows []string
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			err := rd.Read(ctx, scan, task, func(rec arrow.RecordBatch) error {
				r, err := testutil.ArrowRows(plan.Schema, rec)
				rows = append(rows, r...)
				return err
			})
			if err != nil {
				t.Fatalf("read %s: %v", task.Path, err)
			}
		}
	}
	return rows, plan.Schema
}

// hasIcebergType reports whether the catalog database has schema V1.
func hasIcebergType(t *testing.T, driver, dsn string) bool {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec("SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0")
	return err == nil
}

// localIO is the FileIO the catalogs of these tests read with, as the
// configuration's storage registry would build it for a local warehouse.
func localIO(context.Context, fileio.Properties) (fileio.FileIO, error) {
	return fileio.NewResolver(), nil
}

func TestPyIcebergSQLite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v0   bool
	}{{"schema V1, as PyIceberg creates a new catalog", false}, {"schema V0, kept by PyIceberg as it finds it", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			uri := "sqlite:///" + filepath.Join(dir, "catalog.db")
			w := writeWithPyIceberg(t, uri, "lake", dir, tc.v0)
			if got := hasIcebergType(t, "sqlite", "file:"+filepath.Join(dir, "catalog.db")); got == tc.v0 {
				t.Fatalf("iceberg_type column present: %v; the writer did not make the schema asked for", got)
			}
			cat, err := sqlcat.New(context.Background(), "lake", fileio.Properties{sqlcat.PropURI: uri}, sqlcat.WithFileIO(localIO))
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			checkTables(t, cat, w)
		})
	}
}
