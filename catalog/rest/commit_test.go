package rest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
)

// TestFixtureCommits creates a namespace and a table through the Iceberg
// REST fixture (Iceberg Java's RESTCatalogAdapter over a JdbcCatalog),
// races writers on it (Java checks the requirements: one wins each round,
// the others get 409), and drops both.
func TestFixtureCommits(t *testing.T) {
	srv := restfixture.Start(t, restfixture.Options{})
	ctx := context.Background()
	cat, err := rest.New(ctx, "lake", fileio.Properties{"uri": srv.URI}, rest.WithFileIO(localIO))
	if err != nil {
		t.Fatal(err)
	}
	ns := []string{"db"}
	if err := cat.CreateNamespace(ctx, ns, map[string]string{"owner": "cat"}); err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, ns, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
		t.Fatalf("create the namespace again: %v", err)
	}
	if got, err := cat.ListNamespaces(ctx, nil); err != nil || !slices.ContainsFunc(got, func(n []string) bool { return slices.Equal(n, ns) }) {
		t.Fatalf("namespaces %v %v", got, err)
	}
	id := catalog.Identifier{"db", "t"}
	created, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", map[string]string{"format-version": "2", "k": "v"}))
	if err != nil {
		t.Fatal(err)
	}
	if created.Metadata.FormatVersion != 2 || created.Metadata.Properties["k"] != "v" || len(created.Metadata.CurrentSchema().Fields) != 2 {
		t.Fatalf("created v%d, properties %v", created.Metadata.FormatVersion, created.Metadata.Properties)
	}
	if _, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("create again: %v", err)
	}
	load := func() *iceberg.TableMetadata {
		cat.Refresh(id)
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			t.Error(err)
			return nil
		}
		return tbl.Metadata
	}
	winners := committest.Race(t, ctx, cat, id, 3, 8, load)
	committest.NoChange(t, ctx, cat, id)
	md := load()
	if *md.CurrentSnapshotID != winners[2] || len(md.Snapshots) != 3 {
		t.Fatalf("current %d, %d snapshots", *md.CurrentSnapshotID, len(md.Snapshots))
	}
	if err := cat.DropNamespace(ctx, ns); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Fatalf("drop a namespace with a table: %v", err)
	}
	// Not purged: the snapshots' manifest lists were never written, and
	// Java's purge reads them.
	if err := cat.DropTable(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.LoadTable(ctx, id); !errors.Is(err, catalog.ErrTableNotFound) {
		t.Fatalf("load dropped: %v", err)
	}
	if err := cat.DropTable(ctx, id, true); !errors.Is(err, catalog.ErrTableNotFound) {
		t.Fatalf("drop again: %v", err)
	}
	if err := cat.DropNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
}

// TestCommitStateUnknown checks the statuses Java's commit handler takes
// for an unknown outcome, and that a conflict is not one.
func TestCommitStateUnknown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		want   error
	}{
		{http.StatusConflict, catalog.ErrCommitConflict},
		{http.StatusInternalServerError, catalog.ErrCommitStateUnknown},
		{http.StatusBadGateway, catalog.ErrCommitStateUnknown},
		{http.StatusGatewayTimeout, catalog.ErrCommitStateUnknown},
		{http.StatusServiceUnavailable, catalog.ErrCatalogUnavailable},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/config" {
					w.Write([]byte(`{"defaults":{},"overrides":{}}`))
					return
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(`{"error":{"message":"no","type":"CommitFailedException","code":0}}`))
			}))
			defer srv.Close()
			cat, err := rest.New(context.Background(), "x", fileio.Properties{"uri": srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cat.CommitTable(context.Background(), catalog.Identifier{"db", "t"}, nil, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"a": "b"}}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			if tc.want != catalog.ErrCommitStateUnknown && errors.Is(err, catalog.ErrCommitStateUnknown) {
				t.Fatalf("%v is no unknown state", err)
			}
		})
	}
}
