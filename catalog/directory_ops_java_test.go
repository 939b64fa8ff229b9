package catalog_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
)

// TestDirectoryOpsAgreeWithHadoopCatalog runs Iceberg Java's HadoopCatalog
// behind the REST fixture on the same warehouse as a directory catalog:
// both give a namespace the same properties, register a metadata file
// alike (each reading the other's registered table), and refuse rename
// and namespace properties alike, Java with 406.
func TestDirectoryOpsAgreeWithHadoopCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root, stash := newOpsDirectory(t)
	srv := restfixture.Start(t, restfixture.Options{Warehouse: root,
		Props: map[string]string{"catalog-impl": "org.apache.iceberg.hadoop.HadoopCatalog"}})
	java, err := rest.New(ctx, "hadoop", fileio.Properties{"uri": srv.URI})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a namespace's properties are its location", func(t *testing.T) {
		want, err := java.LoadNamespace(ctx, []string{"db"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.LoadNamespace(ctx, []string{"db"})
		if err != nil || !maps.Equal(got, want) {
			t.Fatalf("directory: %v %v, HadoopCatalog: %v", got, err, want)
		}
	})

	t.Run("a registered metadata file becomes v1 of the new table", func(t *testing.T) {
		src, err := d.CreateTable(ctx, catalog.Identifier{"db", "src"}, committest.NewMetadata(t, "", map[string]string{"k": "v"}))
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(src.MetadataLocation)
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(stash, "src.metadata.json")
		if err := os.WriteFile(copied, text, 0o644); err != nil {
			t.Fatal(err)
		}
		byJava, byUs := catalog.Identifier{"db", "by_java"}, catalog.Identifier{"db", "by_us"}
		if _, err := java.RegisterTable(ctx, byJava, copied); err != nil {
			t.Fatal(err)
		}
		if _, err := d.RegisterTable(ctx, byUs, copied); err != nil {
			t.Fatal(err)
		}
		for _, id := range []catalog.Identifier{byJava, byUs} {
			name := filepath.Join(root, "db", id.Name(), "metadata")
			hint, err := os.ReadFile(filepath.Join(name, "version-hint.text"))
			if err != nil || string(hint) != "1" {
				t.Fatalf("%s: version hint %q %v", id, hint, err)
			}
			if _, err := os.Stat(filepath.Join(name, "v1.metadata.json")); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			// Each reads both: the table Java registered and ours.
			for who, c := range map[string]catalog.Catalog{"directory": d, "HadoopCatalog": java} {
				tbl, err := c.LoadTable(ctx, id)
				if err != nil {
					t.Fatalf("%s loads %s: %v", who, id, err)
				}
				md := tbl.Metadata
				if md.TableUUID != src.Metadata.TableUUID || md.Location != src.Metadata.Location || md.Properties["k"] != "v" {
					t.Fatalf("%s loads %s as %s at %s %v, want %s at %s", who, id, md.TableUUID, md.Location, md.Properties, src.Metadata.TableUUID, src.Metadata.Location)
				}
			}
		}
	})

	t.Run("rename and namespace properties are refused alike", func(t *testing.T) {
		for who, c := range map[string]committest.Ops{"directory": d, "HadoopCatalog": java} {
			t.Run(who, func(t *testing.T) {
				committest.Unsupported(t, ctx, c, []string{"db"}, committest.RenameOp, committest.UpdatePropertiesOp)
			})
		}
	})
}
