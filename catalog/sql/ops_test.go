package sqlcat_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/testkit/servers"
)

// checkOps runs the shared checks of a table's life, namespace
// properties, rename and register on cat, in namespaces db and db2 it
// creates.
func checkOps(t *testing.T, cat *sqlcat.Catalog) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range [][]string{{"db"}, {"db2"}} {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("lifecycle", func(t *testing.T) { committest.Lifecycle(t, ctx, cat, []string{"db"}, []string{"nowhere"}) })
	t.Run("namespace properties", func(t *testing.T) { committest.NamespaceProperties(t, ctx, cat, []string{"db"}) })
	t.Run("rename", func(t *testing.T) { committest.Rename(t, ctx, cat, []string{"db"}, []string{"db2"}) })
	t.Run("register", func(t *testing.T) { committest.Register(t, ctx, cat, []string{"db"}, t.TempDir()) })
}

func TestSQLiteOps(t *testing.T) {
	t.Parallel()
	cat, _ := newSQLite(t, "lake")
	checkOps(t, cat)
}

// references names a catalog database for Iceberg Java's JdbcCatalog
// (a JDBC URL and credentials) and PyIceberg's SqlCatalog (its URL).
type references struct {
	jdbc, user, password, python string
}

// seen is a catalog as a reference implementation reads it: each
// namespace's properties, and each table's metadata file and UUID.
type seen struct {
	Namespaces map[string]map[string]string `json:"namespaces"`
	Tables     map[string]seenTable         `json:"tables"`
}

type seenTable struct {
	MetadataLocation string `json:"metadata-location"`
	TableUUID        string `json:"table-uuid"`
}

// checkOpsSeenByReferences renames a table (into another namespace),
// registers one and sets and removes namespace properties through cat,
// then reads the catalog with Iceberg Java's JdbcCatalog and PyIceberg's
// SqlCatalog: both must see what was done, as the rows they would have
// written themselves.
func checkOpsSeenByReferences(t *testing.T, cat *sqlcat.Catalog, ref references) {
	t.Helper()
	jar := servers.Program(t, javarefEnv, "javaref")
	python := servers.Program(t, pythonEnv, "servers-sql")
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cat.CreateNamespace(ctx, []string{"sales"}, map[string]string{"owner": "iceflight", "drop": "me"}))
	must(cat.CreateNamespace(ctx, []string{"archive"}, nil))
	orders, err := cat.CreateTable(ctx, catalog.Identifier{"sales", "orders"}, committest.NewMetadata(t, "", nil))
	must(err)
	reqs, updates := committest.AppendUpdates(orders.Metadata, 11)
	orders, err = cat.CommitTable(ctx, catalog.Identifier{"sales", "orders"}, reqs, updates)
	must(err)
	must(cat.RenameTable(ctx, catalog.Identifier{"sales", "orders"}, catalog.Identifier{"archive", "orders_2026"}))
	items, err := cat.CreateTable(ctx, catalog.Identifier{"sales", "items"}, committest.NewMetadata(t, "", nil))
	must(err)
	text, err := os.ReadFile(items.MetadataLocation)
	must(err)
	copied := filepath.Join(t.TempDir(), "items-copy.metadata.json")
	must(os.WriteFile(copied, text, 0o644))
	_, err = cat.RegisterTable(ctx, catalog.Identifier{"sales", "items_copy"}, copied)
	must(err)
	_, err = cat.UpdateNamespaceProperties(ctx, []string{"sales"}, []string{"drop"}, map[string]string{"owner": "someone", "comment": "renamed"})
	must(err)
	_, err = cat.UpdateNamespaceProperties(ctx, []string{"archive"}, nil, map[string]string{"retention": "7y"})
	must(err)

	wantTables := map[string]seenTable{
		"archive.orders_2026": {orders.MetadataLocation, orders.Metadata.TableUUID},
		"sales.items":         {items.MetadataLocation, items.Metadata.TableUUID},
		"sales.items_copy":    {copied, items.Metadata.TableUUID},
	}
	// What was set; Java shows no "exists" mark, PyIceberg shows the
	// rows as they are, the mark of the namespace created empty among
	// them.
	java := map[string]map[string]string{
		"sales":   {"owner": "someone", "comment": "renamed"},
		"archive": {"retention": "7y"},
	}
	pyiceberg := map[string]map[string]string{
		"sales":   java["sales"],
		"archive": {"retention": "7y", "exists": "true"},
	}

	args := []string{"-cp", jar, "io.iceflight.javaref.Main", "jdbcread", "--uri", ref.jdbc,
		"--warehouse", t.TempDir(), "--name", cat.Name()}
	if ref.user != "" {
		args = append(args, "--user", ref.user, "--password", ref.password)
	}
	var byJava seen
	readJSON(t, "JdbcCatalog", exec.Command("java", args...), &byJava)
	for ns, props := range byJava.Namespaces {
		// Java adds a location of its own warehouse layout when none is set.
		delete(props, "location")
		byJava.Namespaces[ns] = props
	}
	compareSeen(t, "JdbcCatalog", byJava, java, wantTables)

	const script = `import json, sys
from pyiceberg.catalog.sql import SqlCatalog
cat = SqlCatalog(sys.argv[2], uri=sys.argv[1])
out = {"namespaces": {}, "tables": {}}
for ns in cat.list_namespaces():
    name = ".".join(ns)
    out["namespaces"][name] = cat.load_namespace_properties(ns)
    for tid in cat.list_tables(ns):
        t = cat.load_table(tid)
        out["tables"][".".join(tid)] = {"metadata-location": t.metadata_location, "table-uuid": str(t.metadata.table_uuid)}
print(json.dumps(out))`
	var byPy seen
	readJSON(t, "PyIceberg", exec.Command(python, "-c", script, ref.python, cat.Name()), &byPy)
	compareSeen(t, "PyIceberg", byPy, pyiceberg, wantTables)
}

// readJSON runs cmd and decodes its output into v.
func readJSON(t *testing.T, who string, cmd *exec.Cmd, v any) {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s", who, err, stderr)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s: %v\n%s", who, err, out)
	}
}

// compareSeen fails unless got holds exactly the namespaces and tables
// wanted.
func compareSeen(t *testing.T, who string, got seen, namespaces map[string]map[string]string, tables map[string]seenTable) {
	t.Helper()
	if !maps.EqualFunc(got.Namespaces, namespaces, maps.Equal) {
		t.Errorf("%s sees namespaces %v, want %v", who, got.Namespaces, namespaces)
	}
	if !maps.Equal(got.Tables, tables) {
		t.Errorf("%s sees tables %v, want %v", who, got.Tables, tables)
	}
	if t.Failed() {
		t.Logf("%s sees tables %v", who, slices.Sorted(maps.Keys(got.Tables)))
	}
}

func TestSQLiteOpsSeenByJavaAndPyIceberg(t *testing.T) {
	t.Parallel()
	cat, path := newSQLite(t, "lake")
	checkOpsSeenByReferences(t, cat, references{jdbc: "jdbc:sqlite:" + path, python: "sqlite:///" + path})
}
