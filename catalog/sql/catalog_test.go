package sqlcat

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// The two metadata files of a Java-written sample table: the rows of the
// unit tests point at them, so that a load parses a real file.
var (
	tripsV1 = sampleFile("v1.metadata.json")
	tripsV2 = sampleFile("v2.metadata.json")
)

func sampleFile(name string) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "warehouse", "samples", "trips", "metadata", name))
	if err != nil {
		panic(err)
	}
	return p
}

// The catalog tables as JdbcUtil and PyIceberg create them: V0, and V1
// with iceberg_type.
const (
	createTablesV0 = `CREATE TABLE iceberg_tables (
		catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
		table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),
		previous_metadata_location VARCHAR(1000),
		PRIMARY KEY (catalog_name, table_namespace, table_name))`
	createNamespaces = `CREATE TABLE iceberg_namespace_properties (
		catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL,
		property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000),
		PRIMARY KEY (catalog_name, namespace, property_key))`
	migrateToV1 = `ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)`
)

// catalogDB is a SQLite catalog file the test writes as a writer would.
type catalogDB struct {
	t    *testing.T
	path string
	db   *sql.DB
}

func newCatalogDB(t *testing.T, stmts ...string) *catalogDB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil { // creates the file
		t.Fatal(err)
	}
	c := &catalogDB{t: t, path: path, db: db}
	c.exec(stmts...)
	return c
}

func (c *catalogDB) exec(stmts ...string) {
	c.t.Helper()
	for _, s := range stmts {
		if _, err := c.db.Exec(s); err != nil {
			c.t.Fatalf("%s: %v", s, err)
		}
	}
}

// table adds a table row; kind is "" for V0 rows, else "TABLE", "VIEW" or
// "NULL".
func (c *catalogDB) table(catalogName, ns, name, location, kind string) {
	c.t.Helper()
	var err error
	if kind == "" {
		_, err = c.db.Exec(`INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location) VALUES (?, ?, ?, ?)`,
			catalogName, ns, name, location)
	} else {
		var k any = kind
		if kind == "NULL" {
			k = nil
		}
		_, err = c.db.Exec(`INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, iceberg_type) VALUES (?, ?, ?, ?, ?)`,
			catalogName, ns, name, location, k)
	}
	if err != nil {
		c.t.Fatal(err)
	}
}

func (c *catalogDB) open(name string, opts ...Option) *Catalog {
	c.t.Helper()
	return openCatalog(c.t, name, fileio.Properties{PropURI: "sqlite:///" + c.path}, opts...)
}

func openCatalog(t *testing.T, name string, props fileio.Properties, opts ...Option) *Catalog {
	t.Helper()
	cat, err := New(context.Background(), name, props, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func names(ids []catalog.Identifier) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.String())
	}
	return out
}

func TestSchemaVersions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(c *catalogDB)
		want  []string
	}{
		{"V0: every row is a table", func(c *catalogDB) {
			c.exec(createTablesV0, createNamespaces)
			c.table("lake", "db", "a", tripsV1, "")
			c.table("lake", "db", "b", tripsV2, "")
		}, []string{"db.a", "db.b"}},
		{"V1: views are left out, TABLE and NULL rows are tables", func(c *catalogDB) {
			c.exec(createTablesV0, migrateToV1, createNamespaces)
			c.table("lake", "db", "a", tripsV1, "TABLE")
			c.table("lake", "db", "old", tripsV1, "NULL")
			c.table("lake", "db", "v", tripsV2, "VIEW")
		}, []string{"db.a", "db.old"}},
		{"rows of another catalog are not seen", func(c *catalogDB) {
			c.exec(createTablesV0, createNamespaces)
			c.table("lake", "db", "a", tripsV1, "")
			c.table("other", "db", "b", tripsV1, "")
		}, []string{"db.a"}},
		{"nested namespaces and Java's empty namespace", func(c *catalogDB) {
			c.exec(createTablesV0, createNamespaces)
			c.table("lake", "a.b", "t", tripsV1, "")
			c.table("lake", "", "top", tripsV1, "")
		}, []string{"a.b.t", "top"}},
		{"a database no writer has set up lists no table", func(c *catalogDB) {}, nil},
		{"a catalog without namespace properties still lists tables", func(c *catalogDB) {
			c.exec(createTablesV0)
			c.table("lake", "db", "a", tripsV1, "")
		}, []string{"db.a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newCatalogDB(t)
			tc.setup(db)
			cat := db.open("lake")
			ids, err := cat.ListTables(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := names(ids); !slices.Equal(got, tc.want) {
				t.Fatalf("tables %v, want %v", got, tc.want)
			}
			for _, id := range ids {
				tbl, err := cat.LoadTable(context.Background(), id)
				if err != nil {
					t.Fatalf("load %s: %v", id, err)
				}
				if tbl.Metadata == nil || tbl.MetadataLocation == "" || !slices.Equal(tbl.Identifier, id) {
					t.Fatalf("load %s: %+v", id, tbl)
				}
			}
		})
	}
}

func TestLoadTableNotFound(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, migrateToV1, createNamespaces)
	db.table("lake", "db", "v", tripsV1, "VIEW")
	db.table("lake", "db", "creating", "", "TABLE")
	db.exec(`UPDATE iceberg_tables SET metadata_location = NULL WHERE table_name = 'creating'`)
	db.table("other", "db", "elsewhere", tripsV1, "TABLE")
	cat := db.open("lake")
	for _, name := range []string{"db.missing", "db.v", "db.creating", "db.elsewhere", "missing"} {
		id, _ := catalog.ParseIdentifier(name)
		_, err := cat.LoadTable(context.Background(), id)
		if !errors.Is(err, catalog.ErrTableNotFound) {
			t.Fatalf("%s: %v, want ErrTableNotFound", name, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "catalog lake") || !strings.Contains(msg, name) {
			t.Fatalf("%s: message %q names not the catalog and the table", name, msg)
		}
	}
}

func TestCatalogNameProperty(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("default", "db", "a", tripsV1, "")
	cat := openCatalog(t, "lake", fileio.Properties{PropURI: "sqlite:///" + db.path, PropCatalogName: "default"})
	ids, err := cat.ListTables(context.Background())
	if err != nil || !slices.Equal(names(ids), []string{"db.a"}) {
		t.Fatalf("tables %v, %v; want the rows of catalog_name default", names(ids), err)
	}
}

func TestListNamespaces(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("lake", "a.b", "t", tripsV1, "")
	db.table("lake", "a.c.d", "t", tripsV1, "")
	db.table("lake", "", "top", tripsV1, "")
	db.exec(`INSERT INTO iceberg_namespace_properties VALUES ('lake', 'empty', 'exists', 'true')`,
		`INSERT INTO iceberg_namespace_properties VALUES ('lake', 'a.props', 'exists', 'true')`,
		`INSERT INTO iceberg_namespace_properties VALUES ('other', 'theirs', 'exists', 'true')`)
	cat := db.open("lake")
	cases := []struct {
		parent []string
		want   []string
	}{
		{nil, []string{"a", "empty"}},
		{[]string{"a"}, []string{"a.b", "a.c", "a.props"}},
		{[]string{"a", "c"}, []string{"a.c.d"}},
		{[]string{"a", "b"}, nil},
		{[]string{"missing"}, nil},
	}
	for _, tc := range cases {
		nss, err := cat.ListNamespaces(context.Background(), tc.parent)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ns := range nss {
			got = append(got, strings.Join(ns, "."))
		}
		if !slices.Equal(got, tc.want) {
			t.Fatalf("below %v: %v, want %v", tc.parent, got, tc.want)
		}
	}
}

// A V0 catalog that a writer migrates to V1 while the catalog is open:
// views written after the migration must not be listed.
func TestMigrationToV1SeenWhileOpen(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("lake", "db", "a", tripsV1, "")
	cat := db.open("lake")
	if ids, err := cat.ListTables(context.Background()); err != nil || len(ids) != 1 {
		t.Fatalf("before: %v, %v", names(ids), err)
	}
	db.exec(migrateToV1)
	db.table("lake", "db", "v", tripsV1, "VIEW")
	ids, err := cat.ListTables(context.Background())
	if err != nil || !slices.Equal(names(ids), []string{"db.a"}) {
		t.Fatalf("after migration: %v, %v; want db.a only", names(ids), err)
	}
}

func TestLoadTableCache(t *testing.T) {
	t.Parallel()
	id := catalog.Identifier{"db", "a"}
	cases := []struct {
		name     string
		interval time.Duration
		refresh  bool // call Refresh(id) after the commit
		want     string
	}{
		{"within the refresh interval the cached table is served", time.Hour, false, tripsV1},
		{"Refresh reads the row at once", time.Hour, true, tripsV2},
		{"a zero interval reads the row on every load", 0, false, tripsV2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newCatalogDB(t, createTablesV0, createNamespaces)
			db.table("lake", "db", "a", tripsV1, "")
			cat := db.open("lake", WithRefreshInterval(tc.interval))
			first, err := cat.LoadTable(context.Background(), id)
			if err != nil || first.MetadataLocation != tripsV1 {
				t.Fatalf("first load: %v, %v", first, err)
			}
			db.exec(`UPDATE iceberg_tables SET metadata_location = '` + tripsV2 + `', previous_metadata_location = '` + tripsV1 + `'`)
			if tc.refresh {
				cat.Refresh(id)
			}
			again, err := cat.LoadTable(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if again.MetadataLocation != tc.want {
				t.Fatalf("after commit: %s, want %s", again.MetadataLocation, tc.want)
			}
			if tc.want == tripsV1 && again != first {
				t.Fatal("a fresh cached table was parsed again")
			}
		})
	}
}

// An unchanged row costs a query but no new parse once the interval passed.
func TestUnchangedRowKeepsParse(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("lake", "db", "a", tripsV1, "")
	cat := db.open("lake", WithRefreshInterval(0))
	id := catalog.Identifier{"db", "a"}
	first, err := cat.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	again, err := cat.LoadTable(context.Background(), id)
	if err != nil || again != first {
		t.Fatalf("second load: %p, %v; want the first parse %p", again, err, first)
	}
	db.exec(`DELETE FROM iceberg_tables`)
	if _, err := cat.LoadTable(context.Background(), id); !errors.Is(err, catalog.ErrTableNotFound) {
		t.Fatalf("after drop: %v, want ErrTableNotFound", err)
	}
}

func TestMissingDatabaseFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "absent.db")
	cat := openCatalog(t, "lake", fileio.Properties{PropURI: "sqlite:///" + path})
	_, err := cat.ListTables(context.Background())
	if !errors.Is(err, ErrDatabaseUnavailable) || !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "catalog lake") {
		t.Fatalf("%v: want ErrUnavailable naming the catalog and %s", err, path)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read created the catalog file: %v", err)
	}
}

func TestMissingMetadataFile(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	gone := filepath.Join(t.TempDir(), "00001-gone.metadata.json")
	db.table("lake", "db", "a", gone, "")
	_, err := db.open("lake").LoadTable(context.Background(), catalog.Identifier{"db", "a"})
	if !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), "db.a") {
		t.Fatalf("%v: want ErrNotFound naming db.a", err)
	}
}

func TestCanceledContext(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("lake", "db", "a", tripsV1, "")
	cat := db.open("lake")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cat.LoadTable(ctx, catalog.Identifier{"db", "a"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("load: %v, want context.Canceled", err)
	}
	if _, err := cat.ListTables(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("list: %v, want context.Canceled", err)
	}
}

// Loads, lists and refreshes from many goroutines at once, under -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, migrateToV1, createNamespaces)
	db.table("lake", "db", "a", tripsV1, "TABLE")
	db.table("lake", "db", "b", tripsV2, "TABLE")
	cat := db.open("lake", WithRefreshInterval(0))
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			id := catalog.Identifier{"db", []string{"a", "b"}[i%2]}
			for range 10 {
				if _, err := cat.LoadTable(context.Background(), id); err != nil {
					errs <- err
					return
				}
				if i%4 == 0 {
					cat.Refresh(nil)
				}
			}
			_, err := cat.ListTables(context.Background())
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
