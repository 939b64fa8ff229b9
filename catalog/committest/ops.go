package committest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// Ops is a catalog with the operations the REST catalog API adds to
// commits: namespace properties, rename and register.
type Ops interface {
	Catalog
	catalog.Namespaces
	catalog.NamespaceProperties
	catalog.Renamer
	catalog.Registrar
}

// Op names an operation that some catalogs do not support.
type Op int

const (
	// RenameOp is RenameTable.
	RenameOp Op = iota
	// UpdatePropertiesOp is UpdateNamespaceProperties.
	UpdatePropertiesOp
)

// child is ns with one more level.
func child(ns []string, name string) []string {
	return append(slices.Clone(ns), name)
}

// table names the table name in ns.
func table(ns []string, name string) catalog.Identifier {
	return catalog.Identifier(child(ns, name))
}

// create creates the table id with one appended snapshot, so that its
// metadata has some history, and returns it loaded.
func create(t *testing.T, ctx context.Context, c Ops, id catalog.Identifier, snapshotID int64) *catalog.Table {
	t.Helper()
	created, err := c.CreateTable(ctx, id, NewMetadata(t, "", nil))
	if err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	reqs, updates := AppendUpdates(created.Metadata, snapshotID)
	if _, err := c.CommitTable(ctx, id, reqs, updates); err != nil {
		t.Fatalf("commit to %s: %v", id, err)
	}
	return load(t, ctx, c, id)
}

// load loads id afresh (bypassing any cache).
func load(t *testing.T, ctx context.Context, c Ops, id catalog.Identifier) *catalog.Table {
	t.Helper()
	if r, ok := c.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
	tbl, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	return tbl
}

// sameTable fails unless got is the table want was: the same UUID and
// current snapshot.
func sameTable(t *testing.T, got, want *catalog.Table) {
	t.Helper()
	g, w := got.Metadata, want.Metadata
	if g.TableUUID != w.TableUUID || g.CurrentSnapshotID == nil || w.CurrentSnapshotID == nil || *g.CurrentSnapshotID != *w.CurrentSnapshotID {
		t.Fatalf("%s is table %s at snapshot %v, want %s at %v", got.Identifier, g.TableUUID, g.CurrentSnapshotID, w.TableUUID, w.CurrentSnapshotID)
	}
}

// wantErr fails unless err wraps want.
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want an error wrapping %v", what, err, want)
	}
}

// notFound fails unless id names no table.
func notFound(t *testing.T, ctx context.Context, c Ops, id catalog.Identifier) {
	t.Helper()
	if r, ok := c.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
	_, err := c.LoadTable(ctx, id)
	wantErr(t, "load "+id.String(), err, catalog.ErrTableNotFound)
}

// drop drops the tables ids, which must exist, keeping their files (a
// REST server's purge would read manifest lists these tables never
// wrote).
func drop(t *testing.T, ctx context.Context, c Ops, ids ...catalog.Identifier) {
	t.Helper()
	for _, id := range ids {
		if err := c.DropTable(ctx, id, false); err != nil {
			t.Fatalf("drop %s: %v", id, err)
		}
	}
}

// Rename checks RenameTable on tables it creates, and drops, in the
// namespace ns, which must exist. With other, a second namespace, a table
// is moved across namespaces too.
func Rename(t *testing.T, ctx context.Context, c Ops, ns, other []string) {
	t.Helper()
	a, b, c2 := table(ns, "rename_a"), table(ns, "rename_b"), table(ns, "rename_c")
	before := create(t, ctx, c, a, 1)
	if err := c.RenameTable(ctx, a, b); err != nil {
		t.Fatalf("rename %s to %s: %v", a, b, err)
	}
	renamed := load(t, ctx, c, b)
	sameTable(t, renamed, before)
	if renamed.MetadataLocation != before.MetadataLocation {
		t.Fatalf("renamed table is at %s, was at %s: a rename writes no metadata", renamed.MetadataLocation, before.MetadataLocation)
	}
	notFound(t, ctx, c, a)
	ids, err := c.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ids, func(id catalog.Identifier) bool { return slices.Equal(id, b) }) ||
		slices.ContainsFunc(ids, func(id catalog.Identifier) bool { return slices.Equal(id, a) }) {
		t.Fatalf("tables after the rename: %v", ids)
	}

	occupant := create(t, ctx, c, c2, 2)
	for _, tc := range []struct {
		name     string
		from, to catalog.Identifier
		want     error
	}{
		{"onto an existing table", b, c2, catalog.ErrTableExists},
		{"of a table that does not exist", a, table(ns, "rename_x"), catalog.ErrTableNotFound},
		{"into a namespace that does not exist", b, table(child(ns, "rename_nope"), "rename_b"), catalog.ErrNamespaceNotFound},
	} {
		wantErr(t, "rename "+tc.name, c.RenameTable(ctx, tc.from, tc.to), tc.want)
	}
	// The refused renames changed nothing.
	sameTable(t, load(t, ctx, c, b), before)
	sameTable(t, load(t, ctx, c, c2), occupant)

	if err := c.RenameTable(ctx, b, b); err != nil {
		t.Fatalf("rename %s to its own name: %v", b, err)
	}
	sameTable(t, load(t, ctx, c, b), before)

	last := b
	if other != nil {
		moved := table(other, "rename_b")
		if err := c.RenameTable(ctx, b, moved); err != nil {
			t.Fatalf("rename %s to %s: %v", b, moved, err)
		}
		sameTable(t, load(t, ctx, c, moved), before)
		notFound(t, ctx, c, b)
		last = moved
	}
	drop(t, ctx, c, last, c2)
}

// Register checks RegisterTable in the namespace ns, which must exist:
// it copies the metadata file of a table it creates into stash, a local
// folder c reads, and registers the copy, as a table is moved into a
// catalog. It drops the tables it made.
func Register(t *testing.T, ctx context.Context, c Ops, ns []string, stash string) {
	t.Helper()
	source := table(ns, "register_source")
	src := create(t, ctx, c, source, 3)
	p, err := fileio.LocalPath(src.MetadataLocation)
	if err != nil {
		t.Fatalf("metadata file %s is not local: %v", src.MetadataLocation, err)
	}
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(stash, "register-copy.metadata.json")
	notMetadata := filepath.Join(stash, "not-table.metadata.json")
	if err := os.WriteFile(copied, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notMetadata, []byte(`{"format-version": 2, "tables": "none"}`), 0o644); err != nil {
		t.Fatal(err)
	}

	id := table(ns, "register_copy")
	registered, err := c.RegisterTable(ctx, id, copied)
	if err != nil {
		t.Fatalf("register %s: %v", copied, err)
	}
	sameTable(t, registered, src)
	if !slices.Equal(registered.Identifier, id) {
		t.Fatalf("registered as %s, want %s", registered.Identifier, id)
	}
	loaded := load(t, ctx, c, id)
	sameTable(t, loaded, src)
	if len(loaded.Metadata.Snapshots) != len(src.Metadata.Snapshots) || loaded.Metadata.Location != src.Metadata.Location {
		t.Fatalf("registered table has %d snapshots at %s, the file %d at %s",
			len(loaded.Metadata.Snapshots), loaded.Metadata.Location, len(src.Metadata.Snapshots), src.Metadata.Location)
	}

	for _, tc := range []struct {
		name     string
		id       catalog.Identifier
		location string
		want     error
	}{
		{"a name registered already", id, copied, catalog.ErrTableExists},
		{"the name of a created table", source, copied, catalog.ErrTableExists},
		{"into a namespace that does not exist", table(child(ns, "register_nope"), "t"), copied, catalog.ErrNamespaceNotFound},
		{"a file that does not exist", table(ns, "register_missing"), filepath.Join(stash, "missing.metadata.json"), fileio.ErrNotFound},
		{"a file that is not table metadata", table(ns, "register_bad"), notMetadata, nil},
	} {
		_, err := c.RegisterTable(ctx, tc.id, tc.location)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Fatalf("register %s: %v, want an error wrapping %v", tc.name, err, tc.want)
		}
	}
	notFound(t, ctx, c, table(ns, "register_missing"))
	notFound(t, ctx, c, table(ns, "register_bad"))

	// The registered table is a table of its own: a commit to it leaves
	// the one whose metadata it started from as it was.
	reqs, updates := AppendUpdates(loaded.Metadata, 4)
	if _, err := c.CommitTable(ctx, id, reqs, updates); err != nil {
		t.Fatalf("commit to the registered table: %v", err)
	}
	if got := load(t, ctx, c, id).Metadata.CurrentSnapshotID; got == nil || *got != 4 {
		t.Fatalf("registered table at snapshot %v after a commit, want 4", got)
	}
	sameTable(t, load(t, ctx, c, source), src)
	drop(t, ctx, c, id, source)
}

// NamespaceProperties checks LoadNamespace and UpdateNamespaceProperties
// on namespaces it creates below parent, and drops.
func NamespaceProperties(t *testing.T, ctx context.Context, c Ops, parent []string) {
	t.Helper()
	ns := child(parent, "props")
	created := map[string]string{"owner": "committest", "a": "1", "keep": "x"}
	if err := c.CreateNamespace(ctx, ns, created); err != nil {
		t.Fatal(err)
	}
	wantProps(t, ctx, c, ns, created, nil)

	change, err := c.UpdateNamespaceProperties(ctx, ns, []string{"a", "gone"}, map[string]string{"owner": "someone", "b": "2"})
	if err != nil {
		t.Fatal(err)
	}
	want := catalog.PropertiesChange{Updated: []string{"b", "owner"}, Removed: []string{"a"}, Missing: []string{"gone"}}
	if !sameChange(change, want) {
		t.Fatalf("update reported %+v, want %+v", change, want)
	}
	after := map[string]string{"owner": "someone", "b": "2", "keep": "x"}
	wantProps(t, ctx, c, ns, after, []string{"a"})

	_, err = c.UpdateNamespaceProperties(ctx, ns, []string{"keep"}, map[string]string{"keep": "y"})
	wantErr(t, "a key both removed and set", err, catalog.ErrInvalidProperties)
	wantProps(t, ctx, c, ns, after, nil)

	if change, err := c.UpdateNamespaceProperties(ctx, ns, nil, nil); err != nil || !sameChange(change, catalog.PropertiesChange{}) {
		t.Fatalf("an update that asks nothing: %+v, %v", change, err)
	}

	missing := child(parent, "props_nope")
	_, err = c.LoadNamespace(ctx, missing)
	wantErr(t, "load a namespace that does not exist", err, catalog.ErrNamespaceNotFound)
	_, err = c.UpdateNamespaceProperties(ctx, missing, nil, map[string]string{"k": "v"})
	wantErr(t, "update a namespace that does not exist", err, catalog.ErrNamespaceNotFound)

	// A namespace created without properties has none of its own: the
	// row that marks its existence is no property.
	bare := child(parent, "props_bare")
	if err := c.CreateNamespace(ctx, bare, nil); err != nil {
		t.Fatal(err)
	}
	wantProps(t, ctx, c, bare, nil, []string{"exists"})

	for _, n := range [][]string{ns, bare} {
		if err := c.DropNamespace(ctx, n); err != nil {
			t.Fatal(err)
		}
		_, err = c.LoadNamespace(ctx, n)
		wantErr(t, "load a dropped namespace", err, catalog.ErrNamespaceNotFound)
	}
}

// wantProps fails unless ns has every property of want, with its value,
// and none of absent. A catalog may add properties of its own (Iceberg
// Java's JdbcCatalog adds a location).
func wantProps(t *testing.T, ctx context.Context, c Ops, ns []string, want map[string]string, absent []string) {
	t.Helper()
	got, err := c.LoadNamespace(ctx, ns)
	if err != nil {
		t.Fatalf("load namespace %v: %v", ns, err)
	}
	if got == nil {
		t.Fatalf("load namespace %v: nil properties", ns)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Fatalf("namespace %v has %v, want %s=%s", ns, got, k, v)
		}
	}
	for _, k := range absent {
		if _, ok := got[k]; ok {
			t.Fatalf("namespace %v has %v, want no %s", ns, got, k)
		}
	}
}

// sameChange compares two changes, an empty list equal to none.
func sameChange(a, b catalog.PropertiesChange) bool {
	return slices.Equal(a.Updated, b.Updated) && slices.Equal(a.Removed, b.Removed) && slices.Equal(a.Missing, b.Missing)
}

// Unsupported checks that c refuses each of ops with an error wrapping
// catalog.ErrUnsupported and changes nothing. ns must exist; a table is
// created in it to be renamed, and dropped.
func Unsupported(t *testing.T, ctx context.Context, c Ops, ns []string, ops ...Op) {
	t.Helper()
	for _, op := range ops {
		switch op {
		case RenameOp:
			id := table(ns, "unsupported_rename")
			before := create(t, ctx, c, id, 5)
			wantErr(t, "rename", c.RenameTable(ctx, id, table(ns, "unsupported_renamed")), catalog.ErrUnsupported)
			sameTable(t, load(t, ctx, c, id), before)
			notFound(t, ctx, c, table(ns, "unsupported_renamed"))
			drop(t, ctx, c, id)
		case UpdatePropertiesOp:
			before, err := c.LoadNamespace(ctx, ns)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.UpdateNamespaceProperties(ctx, ns, []string{"a"}, map[string]string{"owner": "someone"})
			wantErr(t, "update namespace properties", err, catalog.ErrUnsupported)
			wantProps(t, ctx, c, ns, before, []string{"owner"})
		default:
			t.Fatalf("no check of operation %d", op)
		}
	}
}
