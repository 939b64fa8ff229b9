package catalog_test

import (
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/iceberg"
)

func newWritableDirectory(t *testing.T) (*catalog.Directory, string) {
	t.Helper()
	root := t.TempDir()
	d, err := catalog.NewDirectory(root, catalog.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	return d, root
}

func TestDirectoryCommitRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root := newWritableDirectory(t)
	if err := d.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := catalog.Identifier{"db", "t"}
	created, err := d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(root, "db", "t")
	if created.Metadata.Location != folder || created.MetadataLocation != filepath.Join(folder, "metadata", "v1.metadata.json") {
		t.Fatalf("created at %s, metadata %s", created.Metadata.Location, created.MetadataLocation)
	}
	if _, err := d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	load := func() *iceberg.TableMetadata {
		tbl, err := d.LoadTable(ctx, id)
		if err != nil {
			t.Error(err)
			return nil
		}
		return tbl.Metadata
	}
	winners := committest.Race(t, ctx, d, id, 3, 8, load)
	committest.NoChange(t, ctx, d, id)
	md := load()
	if md.CurrentSnapshotID == nil || *md.CurrentSnapshotID != winners[2] || len(md.Snapshots) != 3 {
		t.Fatalf("current %v, %d snapshots; winners %v", md.CurrentSnapshotID, len(md.Snapshots), winners)
	}
	// Each snapshot's parent is the winner before it: no lost update.
	for i, s := range md.Snapshots[1:] {
		if s.ParentSnapshotID == nil || *s.ParentSnapshotID != md.Snapshots[i].SnapshotID {
			t.Fatalf("snapshot %d has parent %v", s.SnapshotID, s.ParentSnapshotID)
		}
	}
	if len(md.MetadataLog) != 3 || md.MetadataLog[0].MetadataFile != filepath.Join(folder, "metadata", "v1.metadata.json") {
		t.Fatalf("metadata-log %v", md.MetadataLog)
	}
	names := dirNames(t, filepath.Join(folder, "metadata"))
	want := []string{"v1.metadata.json", "v2.metadata.json", "v3.metadata.json", "v4.metadata.json", "version-hint.text"}
	if !slices.Equal(names, want) {
		t.Fatalf("metadata folder holds %v, want %v", names, want)
	}
	if hint, _ := os.ReadFile(filepath.Join(folder, "metadata", "version-hint.text")); string(hint) != "4" {
		t.Fatalf("hint %q", hint)
	}
	// A stale requirement is a conflict, and writes nothing.
	stale := int64(winners[0])
	_, err = d.CommitTable(ctx, id, []iceberg.Requirement{iceberg.AssertRefSnapshotID{Ref: "main", SnapshotID: &stale}}, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"k": "v"}}})
	if !errors.Is(err, catalog.ErrCommitConflict) || !errors.Is(err, iceberg.ErrRequirementFailed) {
		t.Fatalf("stale commit: %v", err)
	}
	if n := len(dirNames(t, filepath.Join(folder, "metadata"))); n != len(want) {
		t.Fatalf("a failed commit wrote a file: %d", n)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestDirectoryCommitGzip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root := newWritableDirectory(t)
	id := catalog.Identifier{"t"}
	if _, err := d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	tbl, err := d.CommitTable(ctx, id, nil, []iceberg.Update{iceberg.SetProperties{Updates: map[string]string{catalog.PropMetadataCompression: "gzip"}}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "t", "metadata", "v2.gz.metadata.json")
	if tbl.MetadataLocation != p {
		t.Fatalf("committed %s", tbl.MetadataLocation)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := gzip.NewReader(f); err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	got, err := d.LoadTable(ctx, id)
	if err != nil || got.Metadata.Properties[catalog.PropMetadataCompression] != "gzip" {
		t.Fatalf("load: %v", err)
	}
}

func TestDirectoryNamespacesAndDrop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root := newWritableDirectory(t)
	if err := d.CreateNamespace(ctx, []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateNamespace(ctx, []string{"a"}, nil); !errors.Is(err, catalog.ErrNamespaceExists) {
		t.Fatalf("again: %v", err)
	}
	if err := d.CreateNamespace(ctx, []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateNamespace(ctx, []string{"x", "y"}, nil); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Fatalf("below a missing parent: %v", err)
	}
	// A Hive-style folder counts as its namespace.
	if err := os.Mkdir(filepath.Join(root, "sales.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateTable(ctx, catalog.Identifier{"a", "t"}, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateTable(ctx, catalog.Identifier{"sales", "orders"}, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateTable(ctx, catalog.Identifier{"nope", "t"}, committest.NewMetadata(t, "", nil)); !errors.Is(err, catalog.ErrNamespaceNotFound) {
		t.Fatalf("create in a missing namespace: %v", err)
	}
	top, err := d.ListNamespaces(ctx, nil)
	if err != nil || len(top) != 2 || top[0][0] != "a" || top[1][0] != "sales" {
		t.Fatalf("top namespaces %v %v", top, err)
	}
	below, err := d.ListNamespaces(ctx, []string{"a"})
	if err != nil || len(below) != 1 || !slices.Equal(below[0], []string{"a", "b"}) {
		t.Fatalf("below a: %v %v (the table a.t is no namespace)", below, err)
	}
	if err := d.DropNamespace(ctx, []string{"a"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Fatalf("drop a: %v", err)
	}
	if err := d.DropNamespace(ctx, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	// Without purge the data stays and the table is gone.
	data := filepath.Join(root, "a", "t", "data", "f.parquet")
	os.MkdirAll(filepath.Dir(data), 0o755)
	os.WriteFile(data, []byte("x"), 0o644)
	if err := d.DropTable(ctx, catalog.Identifier{"a", "t"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := d.LoadTable(ctx, catalog.Identifier{"a", "t"}); !errors.Is(err, catalog.ErrTableNotFound) {
		t.Fatalf("load dropped: %v", err)
	}
	if _, err := os.Stat(data); err != nil {
		t.Fatalf("data gone without purge: %v", err)
	}
	if err := d.DropTable(ctx, catalog.Identifier{"sales", "orders"}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "sales.db", "orders")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("purge left the folder: %v", err)
	}
	if err := d.DropTable(ctx, catalog.Identifier{"sales", "orders"}, true); !errors.Is(err, catalog.ErrTableNotFound) {
		t.Fatalf("drop again: %v", err)
	}
}

func TestDirectoryCreateRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _ := newWritableDirectory(t)
	id := catalog.Identifier{"t"}
	const writers = 8
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() { _, errs[i] = d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil)) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, catalog.ErrTableExists):
			t.Fatalf("writer %d: %v, want ErrTableExists", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates won: %v", won, errs)
	}
}
