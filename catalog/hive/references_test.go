package hive_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/hive/hms"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
)

// pythonEnv names PyIceberg's python (with the hive extra), which `make
// servers-sql` installs.
const pythonEnv = "PYICEBERG_PYTHON"

// pyiceberg runs script with PyIceberg's HiveCatalog "lake" on the
// metastore at uri as cat, with args after it, and decodes what it prints
// as JSON into v.
func pyiceberg(t *testing.T, uri, warehouse, script string, v any, args ...string) {
	t.Helper()
	python := servers.Program(t, pythonEnv, "servers-sql")
	prelude := `import json, sys
from pyiceberg.catalog.hive import HiveCatalog
cat = HiveCatalog("lake", uri=sys.argv[1], warehouse=sys.argv[2])
`
	cmd := exec.Command(python, append([]string{"-c", prelude + script, uri, warehouse}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("PyIceberg: %v\n%s", err, stderr)
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			t.Fatalf("PyIceberg printed %s: %v", out, err)
		}
	}
}

// checkReferences checks the catalog against PyIceberg's HiveCatalog on
// one metastore: each reads what the other wrote, commits on top of it,
// and writes the same metastore entry for the same table.
func checkReferences(t *testing.T, srv *hmsserver.Server) {
	t.Run("PyIceberg reads what the catalog writes", func(t *testing.T) { checkSeenByPyIceberg(t, srv) })
	t.Run("the catalog reads what PyIceberg writes", func(t *testing.T) { checkPyIcebergSeen(t, srv) })
	t.Run("the metastore entry of a table is PyIceberg's", func(t *testing.T) { checkEntryAsPyIceberg(t, srv) })
}

// seen is a catalog as PyIceberg reads it.
type seen struct {
	Namespaces map[string]map[string]string `json:"namespaces"`
	Tables     map[string]seenTable         `json:"tables"`
}

type seenTable struct {
	MetadataLocation string `json:"metadata-location"`
	TableUUID        string `json:"table-uuid"`
	Snapshot         *int64 `json:"snapshot"`
}

// readAll prints, as seen, the namespaces given as arguments and their
// tables as PyIceberg's HiveCatalog lists and loads them.
const readAll = `out = {"namespaces": {}, "tables": {}}
listed = [".".join(ns) for ns in cat.list_namespaces()]
for ns in sys.argv[3:]:
    assert ns in listed, (ns, listed)
    out["namespaces"][ns] = cat.load_namespace_properties(ns)
    for tid in cat.list_tables(ns):
        t = cat.load_table(tid)
        out["tables"][".".join(tid)] = {"metadata-location": t.metadata_location,
            "table-uuid": str(t.metadata.table_uuid), "snapshot": t.metadata.current_snapshot_id}
print(json.dumps(out))
`

func checkSeenByPyIceberg(t *testing.T, srv *hmsserver.Server) {
	ctx := context.Background()
	cat := open(t, "lake", srv.URI, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	loc := "file:" + t.TempDir()
	must(cat.CreateNamespace(ctx, []string{"ref_sales"}, map[string]string{"owner": "iceflight", "drop": "me", "comment": "sales", "location": loc}))
	must(cat.CreateNamespace(ctx, []string{"ref_archive"}, nil))
	orders, err := cat.CreateTable(ctx, catalog.Identifier{"ref_sales", "orders"}, committest.NewMetadata(t, "", nil))
	must(err)
	for i := range int64(3) {
		reqs, updates := committest.AppendUpdates(orders.Metadata, 11+i)
		orders, err = cat.CommitTable(ctx, catalog.Identifier{"ref_sales", "orders"}, reqs, updates)
		must(err)
	}
	if want := loc + "/orders"; orders.Metadata.Location != want {
		t.Fatalf("a table of a database with a location is at %s, want %s", orders.Metadata.Location, want)
	}
	must(cat.RenameTable(ctx, catalog.Identifier{"ref_sales", "orders"}, catalog.Identifier{"ref_archive", "orders_2026"}))
	items, err := cat.CreateTable(ctx, catalog.Identifier{"ref_sales", "items"}, committest.NewMetadata(t, "", nil))
	must(err)
	p, err := filepath.Abs(strings.TrimPrefix(items.MetadataLocation, "file:"))
	must(err)
	text, err := os.ReadFile(p)
	must(err)
	copied := filepath.Join(t.TempDir(), "items-copy.metadata.json")
	must(os.WriteFile(copied, text, 0o644))
	_, err = cat.RegisterTable(ctx, catalog.Identifier{"ref_sales", "items_copy"}, copied)
	must(err)
	_, err = cat.UpdateNamespaceProperties(ctx, []string{"ref_sales"}, []string{"drop"}, map[string]string{"owner": "someone", "retention": "7y"})
	must(err)

	var got seen
	pyiceberg(t, srv.URI, "file:"+t.TempDir(), readAll, &got, "ref_sales", "ref_archive")
	snap := int64(13)
	want := map[string]seenTable{
		"ref_archive.orders_2026": {orders.MetadataLocation, orders.Metadata.TableUUID, &snap},
		"ref_sales.items":         {items.MetadataLocation, items.Metadata.TableUUID, nil},
		"ref_sales.items_copy":    {copied, items.Metadata.TableUUID, nil},
	}
	if !maps.EqualFunc(got.Tables, want, func(a, b seenTable) bool {
		return a.MetadataLocation == b.MetadataLocation && a.TableUUID == b.TableUUID && (a.Snapshot == nil) == (b.Snapshot == nil) &&
			(a.Snapshot == nil || *a.Snapshot == *b.Snapshot)
	}) {
		t.Errorf("PyIceberg sees tables %v, want %v", got.Tables, want)
	}
	sales := got.Namespaces["ref_sales"]
	if sales["owner"] != "someone" || sales["retention"] != "7y" || sales["comment"] != "sales" || sales["location"] != loc || sales["drop"] != "" {
		t.Errorf("PyIceberg sees ref_sales as %v", sales)
	}
	// A database made without a location is put in the warehouse, as
	// Java's HiveCatalog puts it.
	if archive := got.Namespaces["ref_archive"]; !strings.HasSuffix(archive["location"], "/ref_archive.db") {
		t.Errorf("PyIceberg sees ref_archive as %v", archive)
	}
}

func checkPyIcebergSeen(t *testing.T, srv *hmsserver.Server) {
	ctx := context.Background()
	const write = `import pyarrow as pa
cat.create_namespace("py_sales", {"owner": "pyiceberg", "comment": "from python"})
t = cat.create_table("py_sales.orders", pa.schema([("id", pa.int64()), ("name", pa.string())]))
t.append(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}))
t = cat.load_table("py_sales.orders")
print(json.dumps({"metadata-location": t.metadata_location, "table-uuid": str(t.metadata.table_uuid),
    "snapshot": t.metadata.current_snapshot_id}))
`
	warehouse := "file:" + t.TempDir()
	var written seenTable
	pyiceberg(t, srv.URI, warehouse, write, &written)

	cat := open(t, "lake", srv.URI, nil)
	id := catalog.Identifier{"py_sales", "orders"}
	ids, err := cat.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ids, func(x catalog.Identifier) bool { return slices.Equal(x, id) }) {
		t.Fatalf("PyIceberg's table is not listed: %v", ids)
	}
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.MetadataLocation != written.MetadataLocation || tbl.Metadata.TableUUID != written.TableUUID ||
		tbl.Metadata.CurrentSnapshotID == nil || *tbl.Metadata.CurrentSnapshotID != *written.Snapshot {
		t.Fatalf("loaded %s at %s, snapshot %v; PyIceberg wrote %+v", tbl.Metadata.TableUUID, tbl.MetadataLocation, tbl.Metadata.CurrentSnapshotID, written)
	}
	props, err := cat.LoadNamespace(ctx, []string{"py_sales"})
	if err != nil {
		t.Fatal(err)
	}
	if props["owner"] != "pyiceberg" || props["comment"] != "from python" {
		t.Fatalf("PyIceberg's namespace has properties %v", props)
	}

	// A commit of the catalog on PyIceberg's table, then one of PyIceberg
	// on the catalog's: each takes the other's as its base.
	ours, err := cat.CommitTable(ctx, id, nil, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"committed-by": "iceflight"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := entry(t, srv.URI, "py_sales", "orders").Parameters; got["committed-by"] != "iceflight" || got["previous_metadata_location"] != written.MetadataLocation {
		t.Fatalf("the metastore entry after the commit has parameters %v", got)
	}
	const appendAgain = `import pyarrow as pa
t = cat.load_table("py_sales.orders")
before, prop = t.metadata_location, t.properties.get("committed-by")
t.append(pa.table({"id": [4], "name": ["d"]}))
t = cat.load_table("py_sales.orders")
print(json.dumps({"base": before, "property": prop, "parent": t.metadata.current_snapshot().parent_snapshot_id,
    "metadata-location": t.metadata_location, "rows": t.scan().to_arrow().num_rows}))
`
	var after struct {
		Base             string `json:"base"`
		Property         string `json:"property"`
		Parent           int64  `json:"parent"`
		MetadataLocation string `json:"metadata-location"`
		Rows             int    `json:"rows"`
	}
	pyiceberg(t, srv.URI, warehouse, appendAgain, &after)
	if after.Base != ours.MetadataLocation || after.Property != "iceflight" || after.Parent != *written.Snapshot || after.Rows != 4 {
		t.Fatalf("PyIceberg appended on %+v; the catalog committed %s on snapshot %d", after, ours.MetadataLocation, *written.Snapshot)
	}
	if tbl, err := cat.LoadTable(ctx, id); err != nil || tbl.MetadataLocation != after.MetadataLocation {
		t.Fatalf("after PyIceberg's append: %v, %v", tbl, err)
	}
}

// entry reads the metastore entry of db.name.
func entry(t *testing.T, uri, db, name string) *hms.Table {
	t.Helper()
	pool := hms.NewPool(hms.Config{Addrs: []string{strings.TrimPrefix(uri, "thrift://")}})
	defer pool.Close()
	var tbl *hms.Table
	ctx := context.Background()
	if err := pool.Read(ctx, func(c *hms.Client) (err error) { tbl, err = c.GetTable(ctx, db, name); return err }); err != nil {
		t.Fatal(err)
	}
	return tbl
}

// wideSchema has a column of every type PyIceberg's HiveCatalog names.
const wideSchema = `{"type": "struct", "schema-id": 0, "fields": [
 {"id": 1, "name": "b", "required": true, "type": "boolean", "doc": "a flag"},
 {"id": 2, "name": "i", "required": false, "type": "int"},
 {"id": 3, "name": "l", "required": false, "type": "long"},
 {"id": 4, "name": "f", "required": false, "type": "float"},
 {"id": 5, "name": "d", "required": false, "type": "double"},
 {"id": 6, "name": "day", "required": false, "type": "date"},
 {"id": 7, "name": "tod", "required": false, "type": "time"},
 {"id": 8, "name": "ts", "required": false, "type": "timestamp"},
 {"id": 9, "name": "tstz", "required": false, "type": "timestamptz"},
 {"id": 10, "name": "s", "required": false, "type": "string"},
 {"id": 11, "name": "u", "required": false, "type": "uuid"},
 {"id": 12, "name": "fx", "required": false, "type": "fixed[4]"},
 {"id": 13, "name": "bin", "required": false, "type": "binary"},
 {"id": 14, "name": "dec", "required": false, "type": "decimal(9,2)"},
 {"id": 15, "name": "st", "required": false, "type": {"type": "struct", "fields": [
   {"id": 16, "name": "x", "required": false, "type": "int"},
   {"id": 17, "name": "y", "required": false, "type": {"type": "list", "element-id": 18, "element": "string", "element-required": false}}]}},
 {"id": 19, "name": "m", "required": false, "type": {"type": "map", "key-id": 20, "key": "string", "value-id": 21, "value": "timestamptz", "value-required": false}}]}`

// The same table created by the catalog and by PyIceberg gets the same
// metastore entry: its type, the parameters both set, and its columns,
// formats and SerDe.
func checkEntryAsPyIceberg(t *testing.T, srv *hmsserver.Server) {
	ctx := context.Background()
	var schema iceberg.Schema
	if err := json.Unmarshal([]byte(wideSchema), &schema); err != nil {
		t.Fatal(err)
	}
	for _, hive2 := range []string{"false", "true"} {
		db := "entry_hive2_" + hive2
		cat := open(t, "lake", srv.URI, map[string]string{"hive.hive2-compatible": hive2})
		if err := cat.CreateNamespace(ctx, []string{db}, nil); err != nil {
			t.Fatal(err)
		}
		md, err := iceberg.NewTableMetadata(&schema, iceberg.PartitionSpec{}, iceberg.SortOrder{}, "", map[string]string{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cat.CreateTable(ctx, catalog.Identifier{db, "ours"}, md); err != nil {
			t.Fatal(err)
		}
		const create = `from pyiceberg.schema import Schema
cat = HiveCatalog("lake", uri=sys.argv[1], warehouse=sys.argv[2], **{"hive.hive2-compatible": sys.argv[5]})
cat.create_table(sys.argv[3] + ".theirs", Schema.model_validate_json(sys.argv[4]), properties={"k": "v"})
print("{}")
`
		pyiceberg(t, srv.URI, "file:"+t.TempDir(), create, nil, db, wideSchema, hive2)
		ours, theirs := entry(t, srv.URI, db, "ours"), entry(t, srv.URI, db, "theirs")
		if ours.TableType != theirs.TableType || ours.TableType != "EXTERNAL_TABLE" {
			t.Errorf("table types %q, PyIceberg's %q", ours.TableType, theirs.TableType)
		}
		for _, k := range []string{"EXTERNAL", "table_type", "k"} {
			if ours.Parameters[k] != theirs.Parameters[k] {
				t.Errorf("parameter %s is %q, PyIceberg's %q", k, ours.Parameters[k], theirs.Parameters[k])
			}
		}
		o, p := ours.SD, theirs.SD
		if o.InputFormat != p.InputFormat || o.OutputFormat != p.OutputFormat || o.SerDeInfo.SerializationLib != p.SerDeInfo.SerializationLib {
			t.Errorf("formats %s %s %s, PyIceberg's %s %s %s", o.InputFormat, o.OutputFormat, o.SerDeInfo.SerializationLib,
				p.InputFormat, p.OutputFormat, p.SerDeInfo.SerializationLib)
		}
		if !slices.EqualFunc(o.Cols, p.Cols, func(a, b hms.FieldSchema) bool { return a.Name == b.Name && a.Type == b.Type && a.Comment == b.Comment }) {
			t.Errorf("hive2 %s: columns\n%v\nPyIceberg's\n%v", hive2, o.Cols, p.Cols)
		}
	}
}
