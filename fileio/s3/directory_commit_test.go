package s3

import (
	"context"
	"errors"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/testkit/servers/versitygw"
)

// TestDirectoryCommitsOnS3 runs a directory catalog's commits on a
// warehouse in versitygw: the next vN.metadata.json is written with
// If-None-Match: *, so of writers racing one wins each round.
func TestDirectoryCommitsOnS3(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", nil)
	fs, _ := testIO(t, srv, nil)
	ctx := context.Background()
	d, err := catalog.NewDirectoryAt("s3://lake/wh", fs, catalog.WithRefreshInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CreateNamespace(ctx, []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	if ns, err := d.ListNamespaces(ctx, nil); err != nil || len(ns) != 1 || ns[0][0] != "db" {
		t.Fatalf("namespaces %v %v", ns, err)
	}
	id := catalog.Identifier{"db", "t"}
	created, err := d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if created.Metadata.Location != "s3://lake/wh/db/t" || created.MetadataLocation != "s3://lake/wh/db/t/metadata/v1.metadata.json" {
		t.Fatalf("created %s at %s", created.MetadataLocation, created.Metadata.Location)
	}
	load := func() *iceberg.TableMetadata {
		tbl, err := d.LoadTable(ctx, id)
		if err != nil {
			t.Error(err)
			return nil
		}
		return tbl.Metadata
	}
	committest.Race(t, ctx, d, id, 2, 8, load)
	hint, err := fileio.ReadAll(ctx, fs, "s3://lake/wh/db/t/metadata/version-hint.text", 10)
	if err != nil || string(hint) != "3" {
		t.Fatalf("hint %q %v", hint, err)
	}
	if err := d.DropNamespace(ctx, []string{"db"}); !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
		t.Fatalf("drop a namespace with a table: %v", err)
	}
	if err := d.DropTable(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	if err := d.DropNamespace(ctx, []string{"db"}); err != nil {
		t.Fatal(err)
	}
	if entries, err := fs.ReadDir(ctx, "s3://lake/wh"); err != nil || len(entries) != 0 {
		t.Fatalf("warehouse holds %v (%v) after the drops", entries, err)
	}
}
