package catalog

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// downCatalog is a catalog whose server is down.
type downCatalog struct{}

func (downCatalog) ListTables(context.Context) ([]Identifier, error) {
	return nil, fileio.ErrUnavailable
}

func (downCatalog) LoadTable(_ context.Context, id Identifier) (*Table, error) {
	return nil, fileio.ErrUnavailable
}

func names(ids []Identifier) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.String())
	}
	return out
}

func registry(t *testing.T, mounts map[string]Catalog) *Registry {
	t.Helper()
	r, err := NewRegistry(mounts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegistryNamesTablesByCatalog(t *testing.T) {
	t.Parallel()
	lake, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	r := registry(t, map[string]Catalog{"lake": lake, "b": other})
	ids, err := r.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b.broken", "b.ns.inner.t", "b.plain", "b.sales.customers", "b.sales.orders", "b.x.t",
		"lake.broken", "lake.ns.inner.t", "lake.plain", "lake.sales.customers", "lake.sales.orders", "lake.x.t"}
	if got := names(ids); !reflect.DeepEqual(got, want) {
		t.Errorf("ListTables = %v, want %v", got, want)
	}
	tbl, err := r.LoadTable(context.Background(), Identifier{"lake", "sales", "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Identifier.String() != "lake.sales.orders" || tbl.Catalog != "lake" {
		t.Errorf("loaded %s of catalog %q, want lake.sales.orders of lake", tbl.Identifier, tbl.Catalog)
	}
	if direct, _ := lake.LoadTable(context.Background(), Identifier{"sales", "orders"}); direct.Identifier.String() != "sales.orders" {
		t.Errorf("mounting renamed the catalog's own table to %s", direct.Identifier)
	}
}

func TestRegistryLookupErrorsNameTheCatalog(t *testing.T) {
	t.Parallel()
	lake, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	r := registry(t, map[string]Catalog{"lake": lake, "prod": downCatalog{}})
	tests := []struct {
		name string
		id   Identifier
		want error
		says string
	}{
		{"a name without its catalog", Identifier{"orders"}, ErrTableNotFound, "starts with its catalog (lake, prod)"},
		{"an unknown catalog", Identifier{"nope", "sales", "orders"}, ErrTableNotFound, `no catalog "nope"`},
		{"an unknown table", Identifier{"lake", "sales", "nope"}, ErrTableNotFound, "catalog lake:"},
		{"a catalog that is down", Identifier{"prod", "db", "t"}, fileio.ErrUnavailable, "catalog prod:"},
		{"an invalid part", Identifier{"lake", ".."}, ErrInvalidIdentifier, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.LoadTable(context.Background(), tt.id)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("LoadTable(%s): %v, want %v saying %q", tt.id, err, tt.want, tt.says)
			}
		})
	}
}

func TestACatalogThatIsDownLeavesTheOthersListed(t *testing.T) {
	t.Parallel()
	lake, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	r := registry(t, map[string]Catalog{"lake": lake, "prod": downCatalog{}})
	ids, err := r.ListTables(context.Background())
	var me *MountError
	if !errors.As(err, &me) || me.Catalog != "prod" || !errors.Is(err, fileio.ErrUnavailable) {
		t.Errorf("ListTables error %v, want one naming catalog prod as unavailable", err)
	}
	if len(ids) != 6 || ids[0][0] != "lake" {
		t.Errorf("ListTables beside a failed catalog = %v, want lake's 6 tables", names(ids))
	}
}

func TestRegistryRefusesBadCatalogNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "a.b", "..", "a/b"} {
		if _, err := NewRegistry(map[string]Catalog{name: downCatalog{}}); !errors.Is(err, ErrInvalidIdentifier) {
			t.Errorf("catalog name %q: %v", name, err)
		}
	}
}

func TestRegistryRefreshesThroughItsCatalogs(t *testing.T) {
	t.Parallel()
	root := warehouse(t)
	lake, err := NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	r := registry(t, map[string]Catalog{"lake": lake, "prod": downCatalog{}})
	ctx := context.Background()
	id := Identifier{"lake", "sales", "orders"}
	if _, err := r.LoadTable(ctx, id); err != nil {
		t.Fatal(err)
	}
	if n, _ := lake.cache.size(); n != 1 {
		t.Fatalf("%d tables cached after one load", n)
	}
	r.Refresh(id)
	if n, _ := lake.cache.size(); n != 0 {
		t.Errorf("%d tables cached after Refresh of the one", n)
	}
	r.LoadTable(ctx, id)
	r.Refresh(nil)
	if n, _ := lake.cache.size(); n != 0 {
		t.Errorf("%d tables cached after Refresh of all", n)
	}
}

func TestAConfinedTableOpensWithTheKnownSize(t *testing.T) {
	t.Parallel()
	d, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := d.LoadTable(context.Background(), Identifier{"sales", "orders"})
	if err != nil {
		t.Fatal(err)
	}
	counted := fileiotest.NewCounting(fileio.NewResolver())
	cio := confinedIO{base: counted, c: tbl.ForCaller(func(Identifier) bool { return true }).confine}
	f, err := cio.OpenSized(context.Background(), tbl.MetadataLocation, 7)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if f.Size() != 7 || counted.SizedOpens()[tbl.MetadataLocation] != 1 || len(counted.Opens()) > 0 {
		t.Errorf("a confined sized open reached its base as %v sized, %v unsized", counted.SizedOpens(), counted.Opens())
	}
	if _, err := cio.OpenSized(context.Background(), "/etc/passwd", 10); !errors.Is(err, ErrOutsideWarehouse) {
		t.Errorf("a sized open outside the warehouse: %v", err)
	}
}

// hangingCatalog is a catalog whose server never answers: its calls end
// only with their context.
type hangingCatalog struct{}

func (hangingCatalog) ListTables(ctx context.Context) ([]Identifier, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingCatalog) LoadTable(ctx context.Context, _ Identifier) (*Table, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestAHangingCatalogFailsBeforeTheCallersDeadline(t *testing.T) {
	t.Parallel()
	lake, err := NewDirectory(warehouse(t))
	if err != nil {
		t.Fatal(err)
	}
	r := registry(t, map[string]Catalog{"lake": lake, "slow": hangingCatalog{}})
	// Each call has a deadline of its own, whose last tenth (0.5 s) the
	// registry keeps for the caller.
	calls := []struct {
		name string
		call func(context.Context) error
	}{
		{"ListTables", func(ctx context.Context) error {
			ids, err := r.ListTables(ctx)
			if len(ids) != 6 {
				t.Errorf("ListTables beside a hanging catalog = %v, want lake's 6 tables", names(ids))
			}
			return err
		}},
		{"LoadTable", func(ctx context.Context) error {
			_, err := r.LoadTable(ctx, Identifier{"slow", "db", "t"})
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := c.call(ctx)
			if ctx.Err() != nil {
				t.Error("the hanging catalog's call ended with the caller's deadline, not before it")
			}
			var me *MountError
			if !errors.As(err, &me) || me.Catalog != "slow" || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s error %v, want one naming catalog slow past its deadline", c.name, err)
			}
		})
	}
}
