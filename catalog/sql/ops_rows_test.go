package sqlcat

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// row is a table row as the catalog database holds it.
type row struct {
	namespace, name, location, previous, kind string
}

// rows returns the table rows of catalogName, sorted; kind is "" on V0.
func (c *catalogDB) rows(catalogName string, v1 bool) []row {
	c.t.Helper()
	q := "SELECT table_namespace, table_name, metadata_location, previous_metadata_location, '' FROM iceberg_tables WHERE catalog_name = ?"
	if v1 {
		q = strings.Replace(q, "''", "iceberg_type", 1)
	}
	rs, err := c.db.Query(q, catalogName)
	if err != nil {
		c.t.Fatal(err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		var loc, prev, kind sql.NullString
		if err := rs.Scan(&r.namespace, &r.name, &loc, &prev, &kind); err != nil {
			c.t.Fatal(err)
		}
		r.location, r.previous, r.kind = loc.String, prev.String, kind.String
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b row) int { return strings.Compare(a.namespace+"."+a.name, b.namespace+"."+b.name) })
	return out
}

// properties returns the property rows of ns in catalogName.
func (c *catalogDB) properties(catalogName, ns string) map[string]string {
	c.t.Helper()
	rs, err := c.db.Query("SELECT property_key, property_value FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?", catalogName, ns)
	if err != nil {
		c.t.Fatal(err)
	}
	props, err := scanProperties(rs)
	if err != nil {
		c.t.Fatal(err)
	}
	return props
}

// TestRenameRows checks the rows a rename leaves, in both schema versions,
// as JdbcCatalog's V0 and V1 rename statements leave them.
func TestRenameRows(t *testing.T) {
	t.Parallel()
	for _, v1 := range []bool{false, true} {
		kind := map[bool]string{false: "", true: "TABLE"}[v1]
		stmts := []string{createTablesV0, createNamespaces}
		if v1 {
			stmts = []string{createTablesV0, migrateToV1, createNamespaces}
		}
		t.Run(map[bool]string{false: "V0", true: "V1"}[v1], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := newCatalogDB(t, stmts...)
			db.table("lake", "db", "a", tripsV2, kind)
			db.exec(`UPDATE iceberg_tables SET previous_metadata_location = '` + tripsV1 + `'`)
			db.table("lake", "db", "b", tripsV1, kind)
			db.table("other", "db", "c", tripsV1, kind)
			db.exec(`INSERT INTO iceberg_namespace_properties VALUES ('lake', 'db2', 'exists', 'true')`,
				`INSERT INTO iceberg_namespace_properties VALUES ('other', 'theirs', 'exists', 'true')`)
			if v1 {
				db.table("lake", "db", "v", tripsV1, "VIEW")
			}
			cat := db.open("lake")
			if err := cat.RenameTable(ctx, catalog.Identifier{"db", "a"}, catalog.Identifier{"db2", "a2"}); err != nil {
				t.Fatal(err)
			}
			type renameCase struct {
				name, from, to string
				want           error
			}
			cases := []renameCase{
				{"onto a table", "db.b", "db2.a2", catalog.ErrTableExists},
				{"a table of another catalog_name", "db.c", "db.c2", catalog.ErrTableNotFound},
				{"into a namespace only another catalog_name has", "db.b", "theirs.b", catalog.ErrNamespaceNotFound},
				{"a name that climbs out", "db.b", "db.x/..", catalog.ErrInvalidIdentifier},
			}
			if v1 {
				cases = append(cases,
					renameCase{"onto a view", "db.b", "db.v", catalog.ErrTableExists},
					renameCase{"a view", "db.v", "db.v2", catalog.ErrTableNotFound})
			}
			for _, tc := range cases {
				from, to := catalog.Identifier(strings.Split(tc.from, ".")), catalog.Identifier(strings.Split(tc.to, "."))
				if err := cat.RenameTable(ctx, from, to); !errors.Is(err, tc.want) {
					t.Errorf("rename %s: %v, want %v", tc.name, err, tc.want)
				}
			}
			want := []row{{"db", "b", tripsV1, "", kind}, {"db2", "a2", tripsV2, tripsV1, kind}}
			if v1 {
				want = []row{{"db", "b", tripsV1, "", kind}, {"db", "v", tripsV1, "", "VIEW"}, {"db2", "a2", tripsV2, tripsV1, kind}}
			}
			if got := db.rows("lake", v1); !slices.Equal(got, want) {
				t.Fatalf("rows %v, want %v", got, want)
			}
			if got := db.rows("other", v1); len(got) != 1 || got[0].name != "c" {
				t.Fatalf("another catalog's rows changed: %v", got)
			}
		})
	}
}

// TestRegisterRows checks the row a register inserts: JdbcCatalog's
// create row, naming the file registered, with no file written.
func TestRegisterRows(t *testing.T) {
	t.Parallel()
	for _, v1 := range []bool{false, true} {
		t.Run(map[bool]string{false: "V0", true: "V1"}[v1], func(t *testing.T) {
			t.Parallel()
			stmts := []string{createTablesV0, createNamespaces}
			kind := ""
			if v1 {
				stmts, kind = []string{createTablesV0, migrateToV1, createNamespaces}, "TABLE"
			}
			db := newCatalogDB(t, stmts...)
			db.exec(`INSERT INTO iceberg_namespace_properties VALUES ('lake', 'db', 'exists', 'true')`)
			if v1 {
				db.table("lake", "db", "v", tripsV1, "VIEW")
			}
			cat := db.open("lake")
			ctx := context.Background()
			tbl, err := cat.RegisterTable(ctx, catalog.Identifier{"db", "trips"}, tripsV2)
			if err != nil {
				t.Fatal(err)
			}
			if tbl.MetadataLocation != tripsV2 || tbl.Metadata == nil {
				t.Fatalf("registered %+v", tbl)
			}
			want := row{"db", "trips", tripsV2, "", kind}
			if got := db.rows("lake", v1); !slices.Contains(got, want) {
				t.Fatalf("rows %v, want %v among them", got, want)
			}
			if v1 {
				if _, err := cat.RegisterTable(ctx, catalog.Identifier{"db", "v"}, tripsV2); !errors.Is(err, catalog.ErrTableExists) {
					t.Fatalf("register onto a view: %v", err)
				}
			}
		})
	}
}

// TestNamespacePropertiesRows checks the property rows an update leaves,
// and what a load shows of them.
func TestNamespacePropertiesRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name     string
		rows     map[string]string // the namespace's rows before
		removals []string
		updates  map[string]string
		want     map[string]string // its rows after
		change   catalog.PropertiesChange
		err      error
	}{
		{"the exists mark is no property to remove", map[string]string{"exists": "true", "a": "1"}, []string{"exists", "a"}, nil,
			map[string]string{"exists": "true"}, catalog.PropertiesChange{Removed: []string{"a"}, Missing: []string{"exists"}}, nil},
		{"removing the last property keeps the namespace", map[string]string{"a": "1", "b": "2"}, []string{"b", "a"}, nil,
			map[string]string{"exists": "true"}, catalog.PropertiesChange{Removed: []string{"a", "b"}}, nil},
		{"a key set again is updated in its row", map[string]string{"a": "1"}, nil, map[string]string{"a": "2", "b": "3"},
			map[string]string{"a": "2", "b": "3"}, catalog.PropertiesChange{Updated: []string{"a", "b"}}, nil},
		{"a key removed twice is reported once", map[string]string{"a": "1"}, []string{"a", "a", "z", "z"}, map[string]string{"b": "1"},
			map[string]string{"b": "1"}, catalog.PropertiesChange{Updated: []string{"b"}, Removed: []string{"a"}, Missing: []string{"z"}}, nil},
		{"exists cannot be set, as Java refuses", map[string]string{"a": "1"}, nil, map[string]string{"exists": "false"},
			map[string]string{"a": "1"}, catalog.PropertiesChange{}, catalog.ErrInvalidProperties},
		{"a key both removed and set", map[string]string{"a": "1"}, []string{"a"}, map[string]string{"a": "2"},
			map[string]string{"a": "1"}, catalog.PropertiesChange{}, catalog.ErrInvalidProperties},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := newCatalogDB(t, createTablesV0, migrateToV1, createNamespaces)
			for k, v := range tc.rows {
				db.exec(`INSERT INTO iceberg_namespace_properties VALUES ('lake', 'db', '` + k + `', '` + v + `')`)
			}
			db.exec(`INSERT INTO iceberg_namespace_properties VALUES ('other', 'db', 'a', 'theirs')`)
			cat := db.open("lake")
			change, err := cat.UpdateNamespaceProperties(ctx, []string{"db"}, tc.removals, tc.updates)
			if !errors.Is(err, tc.err) || !slices.Equal(change.Updated, tc.change.Updated) ||
				!slices.Equal(change.Removed, tc.change.Removed) || !slices.Equal(change.Missing, tc.change.Missing) {
				t.Fatalf("%+v %v, want %+v %v", change, err, tc.change, tc.err)
			}
			if got := db.properties("lake", "db"); !maps.Equal(got, tc.want) {
				t.Fatalf("rows %v, want %v", got, tc.want)
			}
			if got := db.properties("other", "db"); !maps.Equal(got, map[string]string{"a": "theirs"}) {
				t.Fatalf("another catalog's rows %v", got)
			}
			loaded, err := cat.LoadNamespace(ctx, []string{"db"})
			shown := maps.Clone(tc.want)
			delete(shown, "exists")
			if err != nil || !maps.Equal(loaded, shown) {
				t.Fatalf("load %v %v, want %v", loaded, err, shown)
			}
		})
	}
}

// TestLoadNamespaceRows checks which namespaces exist and what they show.
func TestLoadNamespaceRows(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("lake", "a.b", "t", tripsV1, "")
	db.exec(`INSERT INTO iceberg_namespace_properties VALUES ('lake', 'p', 'k', NULL)`,
		`INSERT INTO iceberg_namespace_properties VALUES ('other', 'theirs', 'exists', 'true')`)
	cat := db.open("lake")
	for _, tc := range []struct {
		ns   []string
		want map[string]string
		err  error
	}{
		{[]string{"a", "b"}, map[string]string{}, nil},
		{[]string{"a"}, map[string]string{}, nil}, // the parent of a namespace that holds a table
		{[]string{"p"}, map[string]string{"k": ""}, nil},
		{[]string{"theirs"}, nil, catalog.ErrNamespaceNotFound},
		{[]string{"a", "b", "t"}, nil, catalog.ErrNamespaceNotFound},
		{[]string{"a", ".."}, nil, catalog.ErrInvalidIdentifier},
	} {
		got, err := cat.LoadNamespace(context.Background(), tc.ns)
		if !errors.Is(err, tc.err) || tc.err == nil && !maps.Equal(got, tc.want) {
			t.Errorf("%v: %v %v, want %v %v", tc.ns, got, err, tc.want, tc.err)
		}
	}
}

// TestReadOnlyRefusesOps checks that a catalog configured read-only
// loads namespaces and changes nothing.
func TestReadOnlyRefusesOps(t *testing.T) {
	t.Parallel()
	db := newCatalogDB(t, createTablesV0, createNamespaces)
	db.table("lake", "db", "a", tripsV1, "")
	cat := openCatalog(t, "lake", fileio.Properties{PropURI: "sqlite:///" + db.path, PropReadOnly: "true"})
	ctx := context.Background()
	if _, err := cat.LoadNamespace(ctx, []string{"db"}); err != nil {
		t.Fatal(err)
	}
	_, errUpdate := cat.UpdateNamespaceProperties(ctx, []string{"db"}, nil, map[string]string{"k": "v"})
	_, errRegister := cat.RegisterTable(ctx, catalog.Identifier{"db", "b"}, tripsV2)
	for name, err := range map[string]error{
		"update properties": errUpdate,
		"rename":            cat.RenameTable(ctx, catalog.Identifier{"db", "a"}, catalog.Identifier{"db", "b"}),
		"register":          errRegister,
	} {
		if !errors.Is(err, catalog.ErrReadOnly) {
			t.Errorf("%s: %v, want ErrReadOnly", name, err)
		}
	}
	if got := db.rows("lake", false); len(got) != 1 || got[0].name != "a" {
		t.Fatalf("rows %v", got)
	}
}
