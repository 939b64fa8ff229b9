package rest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
)

// TestFixtureOps runs the shared checks of namespace properties, rename
// and register against the Iceberg REST fixture (Iceberg Java's
// RESTCatalogAdapter over a JdbcCatalog): the requests are Java's to
// parse and its answers, 404, 409 and 422 among them, ours to read. The
// JdbcCatalog runs in strict mode, in which it refuses to register a
// table in a namespace that does not exist, as the spec's 404 and
// PyIceberg's SqlCatalog do; by default it registers the table anyway.
func TestFixtureOps(t *testing.T) {
	srv := restfixture.Start(t, restfixture.Options{Props: map[string]string{"jdbc.strict-mode": "true"}})
	ctx := context.Background()
	cat, err := rest.New(ctx, "lake", fileio.Properties{"uri": srv.URI}, rest.WithFileIO(localIO))
	if err != nil {
		t.Fatal(err)
	}
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

// TestNamespaceWithoutProperties checks that a server that keeps no
// namespace properties, and answers null for them as the spec lets it,
// gives a namespace with none.
func TestNamespaceWithoutProperties(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/config":
			w.Write([]byte(`{"defaults":{},"overrides":{}}`))
		case "/v1/namespaces/db":
			w.Write([]byte(`{"namespace":["db"],"properties":null}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"message":"no","type":"NoSuchNamespaceException","code":404}}`))
		}
	}))
	defer srv.Close()
	cat, err := rest.New(context.Background(), "x", fileio.Properties{"uri": srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	props, err := cat.LoadNamespace(context.Background(), []string{"db"})
	if err != nil || props == nil || len(props) != 0 {
		t.Fatalf("%v %v, want no properties", props, err)
	}
	if _, err := cat.LoadNamespace(context.Background(), []string{"nope"}); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Fatalf("%v, want ErrNamespaceNotFound", err)
	}
}
