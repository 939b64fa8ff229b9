package catalog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
)

// newOpsRegistry mounts a directory warehouse as "lake" (with a database
// namespace db), a writable SQLite catalog as "sql" and a catalog that
// only reads as "ro", and returns the folder both may register from.
func newOpsRegistry(t *testing.T) (*catalog.Registry, string) {
	t.Helper()
	d, _, stash := newOpsDirectory(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sql, err := sqlcat.New(context.Background(), "sql", fileio.Properties{sqlcat.PropURI: "sqlite:///" + path, sqlcat.PropWarehouse: filepath.Join(dir, "wh")},
		sqlcat.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sql.Close() })
	ro, _ := newWritableDirectory(t)
	r, err := catalog.NewRegistry(map[string]catalog.Catalog{"lake": d, "sql": sql, "ro": readOnly{ro}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range [][]string{{"sql", "db"}, {"sql", "db2"}} {
		if err := r.CreateNamespace(context.Background(), ns, nil); err != nil {
			t.Fatal(err)
		}
	}
	return r, stash
}

// TestRegistrySharedOps runs the shared checks through a registry, which
// must route each to the mounted catalog and name tables with the
// mount's name.
func TestRegistrySharedOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, stash := newOpsRegistry(t)
	t.Run("namespace properties of a SQL catalog", func(t *testing.T) { committest.NamespaceProperties(t, ctx, r, []string{"sql"}) })
	t.Run("rename in a SQL catalog", func(t *testing.T) { committest.Rename(t, ctx, r, []string{"sql", "db"}, []string{"sql", "db2"}) })
	t.Run("register in a SQL catalog", func(t *testing.T) { committest.Register(t, ctx, r, []string{"sql", "db"}, stash) })
	t.Run("register in a directory", func(t *testing.T) { committest.Register(t, ctx, r, []string{"lake", "db"}, stash) })
	t.Run("a directory's unsupported operations", func(t *testing.T) {
		committest.Unsupported(t, ctx, r, []string{"lake", "db"}, committest.RenameOp, committest.UpdatePropertiesOp)
	})
}

func TestRegistryOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, stash := newOpsRegistry(t)
	if _, err := r.CreateTable(ctx, catalog.Identifier{"lake", "db", "t"}, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(stash, "t.metadata.json")
	if err := os.WriteFile(copied, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("a mounted catalog is a namespace without properties", func(t *testing.T) {
		for _, name := range []string{"lake", "sql", "ro"} {
			props, err := r.LoadNamespace(ctx, []string{name})
			if err != nil || props == nil || len(props) != 0 {
				t.Fatalf("%s: %v %v, want no properties", name, props, err)
			}
		}
	})

	cases := []struct {
		name  string
		err   error
		want  error
		names []string // what the message must name
	}{
		{"a table cannot move from one catalog to another",
			r.RenameTable(ctx, catalog.Identifier{"lake", "db", "t"}, catalog.Identifier{"sql", "db", "t"}),
			catalog.ErrUnsupported, []string{"catalog lake", "catalog sql"}},
		{"a rename into no catalog",
			r.RenameTable(ctx, catalog.Identifier{"lake", "db", "t"}, catalog.Identifier{"nope", "db", "t"}),
			catalog.ErrNamespaceNotFound, []string{`"nope"`}},
		{"a rename of a table of no catalog",
			r.RenameTable(ctx, catalog.Identifier{"nope", "db", "t"}, catalog.Identifier{"lake", "db", "u"}),
			catalog.ErrTableNotFound, []string{`"nope"`}},
		{"a mounted catalog's properties cannot change",
			second(r.UpdateNamespaceProperties(ctx, []string{"sql"}, nil, map[string]string{"k": "v"})),
			catalog.ErrUnsupported, []string{"sql"}},
		{"a namespace of no catalog",
			second(r.LoadNamespace(ctx, []string{"nope", "db"})),
			catalog.ErrNamespaceNotFound, []string{`"nope"`}},
		{"a mounted catalog's own error names it",
			second(r.LoadNamespace(ctx, []string{"sql", "missing"})),
			catalog.ErrNamespaceNotFound, []string{"catalog sql"}},
		{"a catalog that keeps no namespace properties",
			second(r.LoadNamespace(ctx, []string{"ro", "db"})),
			catalog.ErrUnsupported, []string{"ro"}},
		{"a catalog that cannot rename",
			r.RenameTable(ctx, catalog.Identifier{"ro", "db", "t"}, catalog.Identifier{"ro", "db", "u"}),
			catalog.ErrUnsupported, []string{"ro"}},
		{"a catalog that cannot register",
			second(r.RegisterTable(ctx, catalog.Identifier{"ro", "db", "t"}, copied)),
			catalog.ErrUnsupported, []string{"ro"}},
		{"no name climbs out of a catalog",
			second(r.RegisterTable(ctx, catalog.Identifier{"lake", "..", "t"}, copied)),
			catalog.ErrInvalidIdentifier, nil},
		{"no namespace climbs out of a catalog",
			second(r.LoadNamespace(ctx, []string{"lake", ".."})),
			catalog.ErrInvalidIdentifier, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) {
				t.Fatalf("%v, want %v", tc.err, tc.want)
			}
			for _, n := range tc.names {
				if !strings.Contains(tc.err.Error(), n) {
					t.Fatalf("%q names not %s", tc.err, n)
				}
			}
		})
	}
	if _, err := r.LoadTable(ctx, catalog.Identifier{"lake", "db", "t"}); err != nil {
		t.Fatalf("the refused renames moved the table: %v", err)
	}
}

// second is the error of a call that returns a value and an error.
func second[T any](_ T, err error) error { return err }
