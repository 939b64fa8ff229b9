package catalog_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/iceberg"
)

// readOnly is a Catalog that neither commits nor keeps namespaces.
type readOnly struct{ catalog.Catalog }

func TestRegistryRoutesCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _ := newWritableDirectory(t)
	ro, _ := newWritableDirectory(t)
	r, err := catalog.NewRegistry(map[string]catalog.Catalog{"lake": d, "ro": readOnly{ro}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CreateNamespace(ctx, []string{"lake", "db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{"lake", "db", "t"}
	created, err := r.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(created.Identifier, id) || created.Catalog != "lake" {
		t.Fatalf("created %v in %q", created.Identifier, created.Catalog)
	}
	reqs, updates := committest.AppendUpdates(created.Metadata, 7)
	got, err := r.CommitTable(ctx, id, reqs, updates)
	if err != nil || *got.Metadata.CurrentSnapshotID != 7 || !slices.Equal(got.Identifier, id) {
		t.Fatalf("commit: %v", err)
	}
	if _, err := r.CommitTable(ctx, id, reqs, updates); !errors.Is(err, catalog.ErrCommitConflict) {
		t.Fatalf("stale commit through the registry: %v", err)
	}
	if _, err := d.LoadTable(ctx, catalog.Identifier{"db", "t"}); err != nil {
		t.Fatalf("not in the mounted catalog: %v", err)
	}
	ns, err := r.ListNamespaces(ctx, []string{"lake"})
	if err != nil || len(ns) != 1 || !slices.Equal(ns[0], []string{"lake", "db"}) {
		t.Fatalf("namespaces %v %v", ns, err)
	}
	top, _ := r.ListNamespaces(ctx, nil)
	if len(top) != 2 {
		t.Fatalf("top %v", top)
	}
	for name, err := range map[string]error{
		"commit": func() error {
			_, err := r.CommitTable(ctx, catalog.Identifier{"ro", "t"}, nil, []iceberg.Update{iceberg.SetProperties{}})
			return err
		}(),
		"create": func() error {
			_, err := r.CreateTable(ctx, catalog.Identifier{"ro", "t"}, committest.NewMetadata(t, "", nil))
			return err
		}(),
		"drop":      r.DropTable(ctx, catalog.Identifier{"ro", "t"}, false),
		"namespace": r.CreateNamespace(ctx, []string{"ro", "x"}, nil),
	} {
		if !errors.Is(err, catalog.ErrReadOnly) {
			t.Errorf("%s on a read-only catalog: %v", name, err)
		}
	}
	if err := r.DropTable(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	if err := r.DropNamespace(ctx, []string{"lake", "db"}); err != nil {
		t.Fatal(err)
	}
}
