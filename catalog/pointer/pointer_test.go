package pointer_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// memStore is an in-memory Store, for checking what Catalog does around
// it; the real stores (SQL, Glue, the Hive Metastore) are tested against
// their servers.
type memStore struct {
	mu         sync.Mutex
	tables     map[string]string // identifier → metadata location
	namespaces map[string]map[string]string
}

func newMemStore(namespaces ...string) *memStore {
	s := &memStore{tables: map[string]string{}, namespaces: map[string]map[string]string{}}
	for _, ns := range namespaces {
		s.namespaces[ns] = map[string]string{}
	}
	return s
}

func (s *memStore) Tables(context.Context) ([]catalog.Identifier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []catalog.Identifier
	for k := range s.tables {
		out = append(out, strings.Split(k, "."))
	}
	return out, nil
}

func (s *memStore) Locate(_ context.Context, id catalog.Identifier) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	loc, ok := s.tables[id.String()]
	if !ok {
		return "", catalog.ErrTableNotFound
	}
	return loc, nil
}

func (s *memStore) Insert(_ context.Context, id catalog.Identifier, loc string, _ *iceberg.TableMetadata) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.namespaces[strings.Join(id.Namespace(), ".")]; !ok {
		return catalog.ErrNamespaceNotFound
	}
	if _, ok := s.tables[id.String()]; ok {
		return catalog.ErrTableExists
	}
	s.tables[id.String()] = loc
	return nil
}

func (s *memStore) Swap(_ context.Context, id catalog.Identifier, base, loc string, _ *iceberg.TableMetadata) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.tables[id.String()]
	switch {
	case !ok:
		return catalog.ErrTableNotFound
	case cur != base:
		return catalog.ErrCommitConflict
	}
	s.tables[id.String()] = loc
	return nil
}

func (s *memStore) Delete(_ context.Context, id catalog.Identifier) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tables[id.String()]; !ok {
		return catalog.ErrTableNotFound
	}
	delete(s.tables, id.String())
	return nil
}

func (s *memStore) Rename(_ context.Context, from, to catalog.Identifier) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	loc, ok := s.tables[from.String()]
	if !ok {
		return catalog.ErrTableNotFound
	}
	if _, ok := s.namespaces[strings.Join(to.Namespace(), ".")]; !ok {
		return catalog.ErrNamespaceNotFound
	}
	if _, ok := s.tables[to.String()]; ok && from.String() != to.String() {
		return catalog.ErrTableExists
	}
	delete(s.tables, from.String())
	s.tables[to.String()] = loc
	return nil
}

func (s *memStore) TableLocation(_ context.Context, id catalog.Identifier) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	props, ok := s.namespaces[strings.Join(id.Namespace(), ".")]
	if !ok {
		return "", catalog.ErrNamespaceNotFound
	}
	if loc := props["location"]; loc != "" {
		return loc + "/" + id.Name(), nil
	}
	return "", nil
}

func (s *memStore) ListNamespaces(_ context.Context, parent []string) ([][]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]string
	for _, k := range slices.Sorted(maps.Keys(s.namespaces)) {
		if ns := strings.Split(k, "."); len(parent) == 0 && k != "" {
			out = append(out, ns)
		}
	}
	return out, nil
}

func (s *memStore) CreateNamespace(_ context.Context, ns []string, props map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := strings.Join(ns, ".")
	if _, ok := s.namespaces[k]; ok {
		return catalog.ErrNamespaceExists
	}
	s.namespaces[k] = maps.Clone(props)
	if s.namespaces[k] == nil {
		s.namespaces[k] = map[string]string{}
	}
	return nil
}

func (s *memStore) DropNamespace(_ context.Context, ns []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := strings.Join(ns, ".")
	if _, ok := s.namespaces[k]; !ok {
		return catalog.ErrNamespaceNotFound
	}
	for t := range s.tables {
		if strings.HasPrefix(t, k+".") {
			return catalog.ErrNamespaceNotEmpty
		}
	}
	delete(s.namespaces, k)
	return nil
}

func (s *memStore) LoadNamespace(_ context.Context, ns []string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	props, ok := s.namespaces[strings.Join(ns, ".")]
	if !ok {
		return nil, catalog.ErrNamespaceNotFound
	}
	return maps.Clone(props), nil
}

func (s *memStore) UpdateNamespaceProperties(_ context.Context, ns []string, removals []string, updates map[string]string) (catalog.PropertiesChange, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	props, ok := s.namespaces[strings.Join(ns, ".")]
	if !ok {
		return catalog.PropertiesChange{}, catalog.ErrNamespaceNotFound
	}
	var change catalog.PropertiesChange
	for _, k := range removals {
		if _, ok := props[k]; ok {
			delete(props, k)
			change.Removed = append(change.Removed, k)
		} else {
			change.Missing = append(change.Missing, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(updates)) {
		props[k] = updates[k]
		change.Updated = append(change.Updated, k)
	}
	return change, nil
}

// swapFault makes a Store's Swap fail the way a metastore can: refused
// before it changed anything, or with its outcome unknown after it did
// (applied) or did not.
type swapFault struct {
	*memStore
	err     error
	applied bool
}

func (f *swapFault) Swap(ctx context.Context, id catalog.Identifier, base, loc string, md *iceberg.TableMetadata) error {
	if f.applied {
		if err := f.memStore.Swap(ctx, id, base, loc, md); err != nil {
			return err
		}
	}
	return f.err
}

func newCatalog(t *testing.T, store pointer.Store, props fileio.Properties) *pointer.Catalog {
	t.Helper()
	if props == nil {
		props = fileio.Properties{}
	}
	if props[pointer.PropWarehouse] == "" {
		props[pointer.PropWarehouse] = t.TempDir()
	}
	c, err := pointer.New(context.Background(), "lake", store, props, pointer.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSharedChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCatalog(t, newMemStore("db", "db2"), nil)
	t.Run("lifecycle", func(t *testing.T) { committest.Lifecycle(t, ctx, c, []string{"db"}, []string{"nowhere"}) })
	t.Run("namespace properties", func(t *testing.T) { committest.NamespaceProperties(t, ctx, c, []string{"db"}) })
	t.Run("rename", func(t *testing.T) { committest.Rename(t, ctx, c, []string{"db"}, []string{"db2"}) })
	t.Run("register", func(t *testing.T) { committest.Register(t, ctx, c, []string{"db"}, t.TempDir()) })
	t.Run("race", func(t *testing.T) {
		id := catalog.Identifier{"db", "race"}
		if _, err := c.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); err != nil {
			t.Fatal(err)
		}
		committest.Race(t, ctx, c, id, 3, 4, func() *iceberg.TableMetadata {
			tbl, err := c.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return tbl.Metadata
		})
		committest.NoChange(t, ctx, c, id)
	})
}

// metadataFiles lists the metadata files a table's folder holds.
func metadataFiles(t *testing.T, location string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(location, "metadata", "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestACommitThatFailsLeavesTheTableWhereTheStoreSaysItIs checks what a
// crash or a lost answer between writing the next metadata file and the
// swap leaves: the table at its old metadata or its new, never between,
// and the new file removed only when the store surely did not take it.
func TestACommitThatFailsLeavesTheTableWhereTheStoreSaysItIs(t *testing.T) {
	t.Parallel()
	refused := errors.New("the metastore refused the request")
	tests := []struct {
		name      string
		fault     swapFault
		want      error
		atNew     bool // the table is at the new metadata afterwards
		fileCount int  // metadata files left: the first, the commit's
	}{
		{"refused before any change", swapFault{err: refused}, refused, false, 1},
		{"lost to another writer", swapFault{err: catalog.ErrCommitConflict}, catalog.ErrCommitConflict, false, 1},
		{"unknown, not applied", swapFault{err: catalog.ErrCommitStateUnknown}, catalog.ErrCommitStateUnknown, false, 2},
		{"unknown, applied", swapFault{err: catalog.ErrCommitStateUnknown, applied: true}, catalog.ErrCommitStateUnknown, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			fault := tt.fault
			fault.memStore = newMemStore("db")
			c := newCatalog(t, &fault, nil)
			id := catalog.Identifier{"db", "t"}
			created, err := c.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
			if err != nil {
				t.Fatal(err)
			}
			reqs, updates := committest.AppendUpdates(created.Metadata, 5)
			_, err = c.CommitTable(ctx, id, reqs, updates)
			if !errors.Is(err, tt.want) {
				t.Fatalf("commit: %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "catalog lake: commit table db.t: ") {
				t.Errorf("%q does not name the catalog and the operation", err)
			}
			got, err := c.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if atNew := got.MetadataLocation != created.MetadataLocation; atNew != tt.atNew {
				t.Errorf("the table is at %s (created at %s); want it at the new metadata: %v", got.MetadataLocation, created.MetadataLocation, tt.atNew)
			}
			if files := metadataFiles(t, created.Metadata.Location); len(files) != tt.fileCount {
				t.Errorf("metadata files left: %d (%v), want %d", len(files), files, tt.fileCount)
			}
		})
	}
}

func TestWhereNewTablesGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	wh := t.TempDir()
	store := newMemStore("", "db", "placed")
	store.namespaces["placed"]["location"] = filepath.Join(wh, "elsewhere")
	c := newCatalog(t, store, fileio.Properties{pointer.PropWarehouse: wh + "/"})
	tests := []struct {
		id   catalog.Identifier
		want string
	}{
		{catalog.Identifier{"db", "t"}, wh + "/db.db/t"},
		{catalog.Identifier{"t"}, wh + "/t"},
		{catalog.Identifier{"placed", "t"}, filepath.Join(wh, "elsewhere", "t")},
	}
	for _, tt := range tests {
		got, err := c.DefaultLocation(ctx, tt.id)
		if err != nil || got != tt.want {
			t.Errorf("DefaultLocation(%s) = %q, %v; want %q", tt.id, got, err, tt.want)
		}
		created, err := c.CreateTable(ctx, tt.id, committest.NewMetadata(t, "", nil))
		if err != nil {
			t.Fatal(err)
		}
		if created.Metadata.Location != tt.want || !strings.HasPrefix(created.MetadataLocation, tt.want+"/metadata/00000-") {
			t.Errorf("%s was created at %s, metadata %s; want %s", tt.id, created.Metadata.Location, created.MetadataLocation, tt.want)
		}
	}
	if _, err := c.DefaultLocation(ctx, catalog.Identifier{"nowhere", "t"}); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Errorf("the location of a table in a missing namespace: %v, want ErrNamespaceNotFound", err)
	}
}

func TestAReadOnlyCatalogChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := newMemStore("db")
	rw := newCatalog(t, store, nil)
	id := catalog.Identifier{"db", "t"}
	created, err := rw.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	ro := newCatalog(t, store, fileio.Properties{pointer.PropReadOnly: "TRUE"})
	if _, err := ro.LoadTable(ctx, id); err != nil {
		t.Fatalf("a read-only catalog loads: %v", err)
	}
	reqs, updates := committest.AppendUpdates(created.Metadata, 3)
	calls := map[string]error{
		"commit":           err1(ro.CommitTable(ctx, id, reqs, updates)),
		"create":           err1(ro.CreateTable(ctx, catalog.Identifier{"db", "u"}, committest.NewMetadata(t, "", nil))),
		"register":         err1(ro.RegisterTable(ctx, catalog.Identifier{"db", "u"}, created.MetadataLocation)),
		"drop":             ro.DropTable(ctx, id, true),
		"rename":           ro.RenameTable(ctx, id, catalog.Identifier{"db", "v"}),
		"create namespace": ro.CreateNamespace(ctx, []string{"x"}, nil),
		"drop namespace":   ro.DropNamespace(ctx, []string{"db"}),
		"update namespace": err1(ro.UpdateNamespaceProperties(ctx, []string{"db"}, nil, map[string]string{"a": "b"})),
	}
	for name, err := range calls {
		if !errors.Is(err, catalog.ErrReadOnly) {
			t.Errorf("%s on a read-only catalog: %v, want ErrReadOnly", name, err)
		}
	}
	if loc, _ := store.Locate(ctx, id); loc != created.MetadataLocation {
		t.Errorf("the table moved to %s", loc)
	}
	if _, err := os.Stat(created.MetadataLocation); err != nil {
		t.Errorf("drop with purge on a read-only catalog removed files: %v", err)
	}
}

func err1[T any](_ T, err error) error { return err }
