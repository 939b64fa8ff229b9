package sqlcat_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/postgres"
)

// The PostgreSQL tests share one server, which the last of them stops:
// they run in order, not in parallel.
func TestPostgres(t *testing.T) {
	t.Parallel()
	srv := postgres.Start(t)
	dir := t.TempDir()
	py := writeWithPyIceberg(t, srv.URI(), "lake", dir, false)
	open := func(t *testing.T, props fileio.Properties) *sqlcat.Catalog {
		t.Helper()
		cat, err := sqlcat.New(context.Background(), "lake", props, sqlcat.WithFileIO(localIO))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cat.Close() })
		return cat
	}
	orders := catalog.Identifier{"sales", "orders"}
	// wantClass checks that loading orders from cat fails with class (and
	// so with the fileio class it wraps, which flight maps to a code) and a
	// message naming the catalog and the table, and no secret.
	wantClass := func(t *testing.T, cat *sqlcat.Catalog, class error, secrets ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := cat.LoadTable(ctx, orders)
		if !errors.Is(err, class) || !errors.Is(err, errors.Unwrap(class)) {
			t.Fatalf("%v, want %v", err, class)
		}
		msg := err.Error()
		if !strings.Contains(msg, "catalog lake") || !strings.Contains(msg, "sales.orders") {
			t.Fatalf("message %q names not the catalog and the table", msg)
		}
		for _, s := range secrets {
			if strings.Contains(msg, s) {
				t.Fatalf("message %q shows the secret %q", msg, s)
			}
		}
		t.Logf("%s", msg)
	}

	t.Run("PyIceberg's tables read through its own URI", func(t *testing.T) {
		checkTables(t, open(t, fileio.Properties{sqlcat.PropURI: srv.URI()}), py)
	})
	t.Run("a JDBC URI with jdbc.user and jdbc.password, as Java writes them", func(t *testing.T) {
		cat := open(t, fileio.Properties{sqlcat.PropURI: srv.JDBC(), sqlcat.PropUser: srv.User, sqlcat.PropPassword: srv.Password})
		checkTables(t, cat, py)
	})
	t.Run("Java's JdbcCatalog beside PyIceberg's in one database, each catalog its own rows", func(t *testing.T) {
		java := writeWithJava(t, srv.JDBC(), srv.User, srv.Password, "java", dir, "V1")
		cat, err := sqlcat.New(context.Background(), "java",
			fileio.Properties{sqlcat.PropURI: srv.JDBC(), sqlcat.PropUser: srv.User, sqlcat.PropPassword: srv.Password},
			sqlcat.WithFileIO(localIO))
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		checkTables(t, cat, java)
		checkTables(t, open(t, fileio.Properties{sqlcat.PropURI: srv.URI()}), py)
	})
	t.Run("a missing table is not found", func(t *testing.T) {
		cat := open(t, fileio.Properties{sqlcat.PropURI: srv.URI()})
		_, err := cat.LoadTable(context.Background(), catalog.Identifier{"sales", "returns"})
		if !errors.Is(err, catalog.ErrTableNotFound) || !strings.Contains(err.Error(), "sales.returns") {
			t.Fatalf("%v, want ErrTableNotFound naming sales.returns", err)
		}
	})
	t.Run("a wrong password is permission denied, and never shown", func(t *testing.T) {
		const wrong = "not-the-password-4711"
		uri := strings.Replace(srv.URI(), srv.Password, wrong, 1)
		wantClass(t, open(t, fileio.Properties{sqlcat.PropURI: uri}), sqlcat.ErrDatabaseDenied, wrong)
		jdbc := open(t, fileio.Properties{sqlcat.PropURI: srv.JDBC(), sqlcat.PropUser: srv.User, sqlcat.PropPassword: wrong})
		wantClass(t, jdbc, sqlcat.ErrDatabaseDenied, wrong)
	})
	t.Run("commits race on one row, one writer winning each round; PyIceberg reads the result", func(t *testing.T) {
		cat := openWritable(t, "writes", fileio.Properties{sqlcat.PropURI: srv.URI(), sqlcat.PropWarehouse: filepath.Join(dir, "wh-writes")})
		id := catalog.Identifier{"db", "t"}
		last := checkCommits(t, cat, id, false)
		readWithPyIceberg(t, srv.URI(), "writes", id, last)
		checkCommits(t, cat, catalog.Identifier{"other", "t"}, true)
	})
	t.Run("namespace properties, rename and register: the shared checks, and Java and PyIceberg see them", func(t *testing.T) {
		checkOps(t, openWritable(t, "ops", fileio.Properties{sqlcat.PropURI: srv.URI(), sqlcat.PropWarehouse: filepath.Join(dir, "wh-ops")}))
		seenBy := openWritable(t, "seen", fileio.Properties{sqlcat.PropURI: srv.URI(), sqlcat.PropWarehouse: filepath.Join(dir, "wh-seen")})
		checkOpsSeenByReferences(t, seenBy, references{jdbc: srv.JDBC(), user: srv.User, password: srv.Password, python: srv.URI()})
	})
	t.Run("a server that went down is unavailable, and read again once back", func(t *testing.T) {
		cat := open(t, fileio.Properties{sqlcat.PropURI: srv.URI()})
		if _, err := cat.LoadTable(context.Background(), orders); err != nil {
			t.Fatal(err)
		}
		srv.Stop()
		cat.Refresh(nil)
		wantClass(t, cat, sqlcat.ErrDatabaseUnavailable, srv.Password)
		if _, err := cat.ListTables(context.Background()); !errors.Is(err, fileio.ErrUnavailable) {
			t.Fatalf("list tables: %v, want ErrUnavailable", err)
		}
		committest.Unreachable(t, context.Background(), openWritable(t, "lake", fileio.Properties{sqlcat.PropURI: srv.URI()}), orders, 20*time.Second)
		srv.Restart(t)
		if _, err := cat.LoadTable(context.Background(), orders); err != nil {
			t.Fatalf("after the restart: %v", err)
		}
	})
}
