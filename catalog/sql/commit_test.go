package sqlcat_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers"
)

// openWritable opens the SQL catalog name at uri with its warehouse in dir,
// reading every row afresh.
func openWritable(t *testing.T, name string, props fileio.Properties) *sqlcat.Catalog {
	t.Helper()
	cat, err := sqlcat.New(context.Background(), name, props, sqlcat.WithFileIO(localIO), sqlcat.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// newSQLite returns a writable catalog name over a new, empty SQLite
// file (an empty file is an empty catalog; the writer creates its
// tables), with its warehouse beside it, and the file's path.
func newSQLite(t *testing.T, name string) (*sqlcat.Catalog, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	props := fileio.Properties{sqlcat.PropURI: "sqlite:///" + path, sqlcat.PropWarehouse: filepath.Join(dir, "wh")}
	return openWritable(t, name, props), path
}

// checkCommits creates a namespace and a table in cat, races writers on
// it, and drops both; it returns the snapshot the table had last.
func checkCommits(t *testing.T, cat *sqlcat.Catalog, id catalog.Identifier, drop bool) int64 {
	t.Helper()
	ctx := context.Background()
	ns := id.Namespace()
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, ns, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
		t.Fatalf("create the namespace again: %v", err)
	}
	if _, err := cat.CreateTable(ctx, catalog.Identifier{"nope", "t"}, committest.NewMetadata(t, "", nil)); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Fatalf("create in a missing namespace: %v", err)
	}
	created, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(created.Metadata.Location, "/"+strings.Join(ns, ".")+".db/"+id.Name()) || !strings.Contains(created.MetadataLocation, "/metadata/00000-") {
		t.Fatalf("created at %s, metadata %s", created.Metadata.Location, created.MetadataLocation)
	}
	if _, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("create again: %v", err)
	}
	load := func() *iceberg.TableMetadata {
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Error(err)
			return nil
		}
		return tbl.Metadata
	}
	winners := committest.Race(t, ctx, cat, id, 3, 8, load)
	committest.NoChange(t, ctx, cat, id)
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tbl.MetadataLocation, "/metadata/00003-") || len(tbl.Metadata.MetadataLog) != 3 {
		t.Fatalf("after three commits: %s, metadata-log %v", tbl.MetadataLocation, tbl.Metadata.MetadataLog)
	}
	// Losers removed the files they wrote: one per version is left.
	meta := filepath.Join(tbl.Metadata.Location, "metadata")
	if entries, err := os.ReadDir(meta); err != nil || len(entries) != 4 {
		t.Fatalf("metadata folder holds %d files (%v), want 4", len(entries), err)
	}
	if drop {
		if err := cat.DropNamespace(ctx, ns); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
			t.Fatalf("drop a namespace with a table: %v", err)
		}
		if err := cat.DropTable(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		// A purge deletes the files the metadata reaches, as Java's
		// CatalogUtil.dropTableData, and lists no folder: empty folders
		// may stay, no file may.
		if err := filepath.WalkDir(tbl.Metadata.Location, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				return fmt.Errorf("purge left %s", p)
			}
			return err
		}); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if _, err := cat.LoadTable(ctx, id); !errors.Is(err, catalog.ErrTableNotFound) {
			t.Fatalf("load dropped: %v", err)
		}
		if err := cat.DropNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		if err := cat.DropNamespace(ctx, ns); !errors.Is(err, catalog.ErrNamespaceNotFound) {
			t.Fatalf("drop again: %v", err)
		}
	}
	return winners[len(winners)-1]
}

func TestSQLiteCommits(t *testing.T) {
	t.Parallel()
	cat, path := newSQLite(t, "lake")
	uri := "sqlite:///" + path
	id := catalog.Identifier{"db", "t"}
	last := checkCommits(t, cat, id, false)
	readWithPyIceberg(t, uri, "lake", id, last)

	ro := openWritable(t, "lake", fileio.Properties{sqlcat.PropURI: uri, sqlcat.PropReadOnly: "true"})
	if _, err := ro.LoadTable(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.CommitTable(context.Background(), id, nil, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"a": "b"}}}); !errors.Is(err, catalog.ErrReadOnly) {
		t.Fatalf("commit to a read-only catalog: %v", err)
	}
	checkCommits(t, cat, catalog.Identifier{"other", "t"}, true)
}

// readWithPyIceberg checks that PyIceberg's SqlCatalog loads the table id
// of the catalog name at uri with snapshot as its current one.
func readWithPyIceberg(t *testing.T, uri, name string, id catalog.Identifier, snapshot int64) {
	t.Helper()
	python := servers.Program(t, pythonEnv, "servers-sql")
	script := `import sys
from pyiceberg.catalog.sql import SqlCatalog
cat = SqlCatalog(sys.argv[2], uri=sys.argv[1])
t = cat.load_table(sys.argv[3])
print(t.metadata.current_snapshot_id, len(t.metadata.snapshots), len(t.metadata.metadata_log))`
	out, err := exec.Command(python, "-c", script, uri, name, id.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("PyIceberg: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), strconv.FormatInt(snapshot, 10)+" 3 3"; got != want {
		t.Fatalf("PyIceberg reads %q, want %q", got, want)
	}
}
