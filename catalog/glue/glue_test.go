package glue_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/glue"
	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers/moto"
)

// open returns a catalog named lake over the Glue catalog props reach,
// with its warehouse in a folder of the test's own, reading every pointer
// afresh.
func open(t *testing.T, props fileio.Properties) *pointer.Catalog {
	t.Helper()
	ctx := context.Background()
	props = maps.Clone(props)
	if props.Get(pointer.PropWarehouse) == "" {
		props[pointer.PropWarehouse] = filepath.Join(t.TempDir(), "wh")
	}
	store, err := glue.New(ctx, props)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := pointer.New(ctx, "lake", store, props, pointer.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// must fails t on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr fails t unless err wraps want.
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want an error wrapping %v", what, err, want)
	}
}

// TestCommits races writers of one catalog on one table: exactly one wins
// each round. moto does not check an UpdateTable's VersionId (its
// update_table stores whatever it is sent), so the race is decided by
// what this process does: the swaps of one table are taken one at a time
// and each compares the metadata location it read. That Glue's own check
// is asked for is TestSwapSendsTheVersionItRead's business.
func TestCommits(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t)
	cat := open(t, srv.Props())
	ctx := context.Background()
	id := catalog.Identifier{"db", "t"}
	must(t, cat.CreateNamespace(ctx, id.Namespace(), nil))
	wantErr(t, "create the namespace again", cat.CreateNamespace(ctx, id.Namespace(), nil), catalog.ErrNamespaceExists)
	_, err := cat.CreateTable(ctx, catalog.Identifier{"nope", "t"}, committest.NewMetadata(t, "", nil))
	wantErr(t, "create in a missing namespace", err, catalog.ErrNamespaceNotFound)
	created, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	must(t, err)
	if !strings.HasSuffix(created.Metadata.Location, "/db.db/t") || !strings.Contains(created.MetadataLocation, "/metadata/00000-") {
		t.Fatalf("created at %s, metadata %s", created.Metadata.Location, created.MetadataLocation)
	}
	_, err = cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	wantErr(t, "create again", err, catalog.ErrTableExists)
	load := func() *iceberg.TableMetadata {
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Error(err)
			return nil
		}
		return tbl.Metadata
	}
	committest.Race(t, ctx, cat, id, 3, 8, load)
	committest.NoChange(t, ctx, cat, id)
	tbl, err := cat.LoadTable(ctx, id)
	must(t, err)
	if !strings.Contains(tbl.MetadataLocation, "/metadata/00003-") || len(tbl.Metadata.MetadataLog) != 3 {
		t.Fatalf("after three commits: %s, metadata-log %v", tbl.MetadataLocation, tbl.Metadata.MetadataLog)
	}
	// Losers removed the files they wrote: one per version is left.
	if entries, err := os.ReadDir(filepath.Join(tbl.Metadata.Location, "metadata")); err != nil || len(entries) != 4 {
		t.Fatalf("metadata folder holds %d files (%v), want 4", len(entries), err)
	}
	wantErr(t, "drop a namespace with a table", cat.DropNamespace(ctx, id.Namespace()), catalog.ErrNamespaceNotEmpty)
	must(t, cat.DropTable(ctx, id, true))
	_, err = cat.LoadTable(ctx, id)
	wantErr(t, "load a dropped table", err, catalog.ErrTableNotFound)
	must(t, cat.DropNamespace(ctx, id.Namespace()))
	wantErr(t, "drop the namespace again", cat.DropNamespace(ctx, id.Namespace()), catalog.ErrNamespaceNotFound)
}

// TestOps runs the shared checks of a table's life, namespace
// properties, rename (as Java's copy-then-delete) and register.
func TestOps(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t)
	cat := open(t, srv.Props())
	ctx := context.Background()
	for _, ns := range [][]string{{"db"}, {"db2"}} {
		must(t, cat.CreateNamespace(ctx, ns, nil))
	}
	t.Run("lifecycle", func(t *testing.T) { committest.Lifecycle(t, ctx, cat, []string{"db"}, []string{"nowhere"}) })
	t.Run("namespace properties", func(t *testing.T) { committest.NamespaceProperties(t, ctx, cat, nil) })
	t.Run("rename", func(t *testing.T) { committest.Rename(t, ctx, cat, []string{"db"}, []string{"db2"}) })
	t.Run("register", func(t *testing.T) { committest.Register(t, ctx, cat, []string{"db"}, t.TempDir()) })
}

// TestNamespacesAreOneLevelDeep: Glue databases do not nest, so a
// namespace of two levels cannot be made and holds nothing.
func TestNamespacesAreOneLevelDeep(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t)
	cat := open(t, srv.Props())
	ctx := context.Background()
	must(t, cat.CreateNamespace(ctx, []string{"db"}, map[string]string{"location": "/somewhere/db/", "comment": "the db", "owner": "me"}))
	wantErr(t, "create a.b", cat.CreateNamespace(ctx, []string{"db", "sub"}, nil), catalog.ErrInvalidIdentifier)
	_, err := cat.LoadNamespace(ctx, []string{"db", "sub"})
	wantErr(t, "load db.sub", err, catalog.ErrNamespaceNotFound)
	_, err = cat.LoadTable(ctx, catalog.Identifier{"db", "sub", "t"})
	wantErr(t, "load db.sub.t", err, catalog.ErrTableNotFound)
	_, err = cat.ListNamespaces(ctx, []string{"nope"})
	wantErr(t, "list below a missing namespace", err, catalog.ErrNamespaceNotFound)
	below, err := cat.ListNamespaces(ctx, []string{"db"})
	if err != nil || len(below) != 0 {
		t.Fatalf("namespaces below db: %v, %v", below, err)
	}
	// Java's mapping: LocationUri is "location" without its trailing
	// slash, Description "comment", the rest parameters; a table without
	// a location goes below the database's.
	props, err := cat.LoadNamespace(ctx, []string{"db"})
	must(t, err)
	if len(props) != 3 || props["location"] != "/somewhere/db" || props["comment"] != "the db" || props["owner"] != "me" {
		t.Fatalf("namespace db has %v", props)
	}
	loc, err := cat.DefaultLocation(ctx, catalog.Identifier{"db", "t"})
	if err != nil || loc != "/somewhere/db/t" {
		t.Fatalf("default location of db.t: %q, %v", loc, err)
	}
}

// TestAnUnavailableGlueFailsQuickly: with moto gone, listing, loading and
// committing fail within seconds wrapping catalog.ErrCatalogUnavailable,
// after the bounded retries (two here, with the default backoff).
func TestAnUnavailableGlueFailsQuickly(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t)
	props := srv.Props()
	props[glue.PropMaxRetries] = "2"
	cat := open(t, props)
	ctx := context.Background()
	id := catalog.Identifier{"db", "t"}
	must(t, cat.CreateNamespace(ctx, id.Namespace(), nil))
	_, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	must(t, err)
	srv.Kill()
	committest.Unreachable(t, ctx, cat, id, 10*time.Second)
	_, err = cat.ListNamespaces(ctx, nil)
	wantErr(t, "list namespaces", err, catalog.ErrCatalogUnavailable)
}

// TestRefusedCredentials: a Glue that does not know the keys (moto with
// its IAM checks on, and no user) refuses every call, which wraps
// catalog.ErrCatalogPermissionDenied at once, without retries, and names
// where the keys came from but never the secret.
func TestRefusedCredentials(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t, moto.WithAuth(0))
	const secret = "not-a-secret-moto-knows"
	props := srv.Props()
	props["glue.secret-access-key"] = secret
	cat := open(t, props)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"list namespaces", func() error { _, err := cat.ListNamespaces(ctx, nil); return err }},
		{"load table", func() error { _, err := cat.LoadTable(ctx, catalog.Identifier{"db", "t"}); return err }},
		{"create namespace", func() error { return cat.CreateNamespace(ctx, []string{"db"}, nil) }},
	} {
		began := time.Now()
		err := tc.call()
		wantErr(t, tc.name, err, catalog.ErrCatalogPermissionDenied)
		if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "glue.access-key-id") {
			t.Errorf("%s: %q shows the secret or does not name the keys' source", tc.name, err)
		}
		if took := time.Since(began); took > 2*time.Second {
			t.Errorf("%s: refused after %s: a refusal is not retried", tc.name, took)
		}
	}
}
