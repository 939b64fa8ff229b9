package hive_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/hive/hms"
)

// checkOtherFormats puts a plain Hive table and a table whose table_type
// says another format beside an Iceberg table: the catalog neither lists
// nor loads them, refuses to change them as tables it does not have, and
// leaves them as they were.
func checkOtherFormats(t *testing.T, uri string) {
	ctx := context.Background()
	cat := open(t, "lake", uri, nil)
	const db = "formats"
	if err := cat.CreateNamespace(ctx, []string{db}, nil); err != nil {
		t.Fatal(err)
	}
	pool := hms.NewPool(hms.Config{Addrs: []string{strings.TrimPrefix(uri, "thrift://")}})
	defer pool.Close()
	plain := func(name string, params map[string]string) {
		tbl := &hms.Table{DBName: db, TableName: name, Owner: "hive", TableType: "EXTERNAL_TABLE", Parameters: params,
			SD: &hms.StorageDescriptor{Cols: []hms.FieldSchema{{Name: "a", Type: "int"}}, Location: "file:" + t.TempDir(),
				InputFormat: "org.apache.hadoop.mapred.TextInputFormat", OutputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
				SerDeInfo: &hms.SerDeInfo{SerializationLib: "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"}}}
		if err := pool.Do(ctx, func(c *hms.Client) error { return c.CreateTable(ctx, tbl) }); err != nil {
			t.Fatal(err)
		}
	}
	plain("text", map[string]string{"EXTERNAL": "TRUE"})
	plain("delta", map[string]string{"EXTERNAL": "TRUE", "table_type": "DELTA", "metadata_location": "file:/nowhere.json"})
	iceberg := catalog.Identifier{db, "ice"}
	if _, err := cat.CreateTable(ctx, iceberg, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}

	ids, err := cat.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var here []string
	for _, id := range ids {
		if id[0] == db {
			here = append(here, id.String())
		}
	}
	if !slices.Equal(here, []string{"formats.ice"}) {
		t.Fatalf("tables listed in %s: %v, want only the Iceberg table", db, here)
	}
	for _, name := range []string{"text", "delta"} {
		id := catalog.Identifier{db, name}
		if _, err := cat.LoadTable(ctx, id); !errors.Is(err, catalog.ErrTableNotFound) {
			t.Errorf("load %s: %v, want not found", id, err)
		}
		reqs, updates := committest.AppendUpdates(committest.NewMetadata(t, "/nowhere", nil), 1)
		if _, err := cat.CommitTable(ctx, id, reqs, updates); !errors.Is(err, catalog.ErrTableNotFound) {
			t.Errorf("commit to %s: %v, want not found", id, err)
		}
		if err := cat.DropTable(ctx, id, false); !errors.Is(err, catalog.ErrTableNotFound) {
			t.Errorf("drop %s: %v, want not found", id, err)
		}
		if err := cat.RenameTable(ctx, id, catalog.Identifier{db, name + "_renamed"}); !errors.Is(err, catalog.ErrTableNotFound) {
			t.Errorf("rename %s: %v, want not found", id, err)
		}
		if _, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); !errors.Is(err, catalog.ErrTableExists) {
			t.Errorf("create %s over the other table: %v, want exists", id, err)
		}
	}
	// An Iceberg table cannot be renamed onto them either.
	if err := cat.RenameTable(ctx, iceberg, catalog.Identifier{db, "text"}); !errors.Is(err, catalog.ErrTableExists) {
		t.Errorf("rename onto the Hive table: %v, want exists", err)
	}
	var names []string
	if err := pool.Do(ctx, func(c *hms.Client) (err error) { names, err = c.GetAllTables(ctx, db); return err }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"delta", "ice", "text"}) {
		t.Fatalf("the metastore holds %v after the refused changes", names)
	}
	if err := cat.DropNamespace(ctx, []string{db}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Fatalf("drop a database holding Hive tables: %v", err)
	}
}
