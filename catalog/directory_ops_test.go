package catalog_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/fileio"
)

// newOpsDirectory returns a writable directory catalog over a new
// warehouse that may also read below a second folder, the stash, from
// which tables are registered.
func newOpsDirectory(t *testing.T) (d *catalog.Directory, root, stash string) {
	t.Helper()
	root, stash = t.TempDir(), t.TempDir()
	d, err := catalog.NewDirectory(root, catalog.WithRefreshInterval(0), catalog.WithAllowedRoots(stash))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.CreateNamespace(context.Background(), []string{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	return d, root, stash
}

func TestDirectorySharedOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _, stash := newOpsDirectory(t)
	t.Run("register", func(t *testing.T) { committest.Register(t, ctx, d, []string{"db"}, stash) })
	t.Run("rename and namespace properties are unsupported", func(t *testing.T) {
		committest.Unsupported(t, ctx, d, []string{"db"}, committest.RenameOp, committest.UpdatePropertiesOp)
	})
}

func TestDirectoryLoadNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root, _ := newOpsDirectory(t)
	if err := os.Mkdir(filepath.Join(root, "sales.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateTable(ctx, catalog.Identifier{"db", "t"}, committest.NewMetadata(t, "", nil)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ns   []string
		want map[string]string
		err  error
	}{
		{"a namespace is its folder, as HadoopCatalog says", []string{"db"}, map[string]string{"location": filepath.Join(root, "db")}, nil},
		{"a Hive-style folder is its namespace's", []string{"sales"}, map[string]string{"location": filepath.Join(root, "sales.db")}, nil},
		{"a namespace without a folder is not found", []string{"nope"}, nil, catalog.ErrNamespaceNotFound},
		{"a table's folder is no namespace", []string{"db", "t"}, nil, catalog.ErrNamespaceNotFound},
		{"no name climbs out of the warehouse", []string{".."}, nil, catalog.ErrInvalidIdentifier},
		{"the warehouse itself is no namespace", nil, nil, catalog.ErrInvalidIdentifier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := d.LoadNamespace(ctx, tc.ns)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("%v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || !maps.Equal(got, tc.want) {
				t.Fatalf("%v %v, want %v", got, err, tc.want)
			}
		})
	}
}

func TestDirectoryUpdateNamespaceProperties(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _, _ := newOpsDirectory(t)
	for _, tc := range []struct {
		name     string
		ns       []string
		removals []string
		updates  map[string]string
		want     error
	}{
		{"a key both removed and set is invalid before anything else", []string{"nope"}, []string{"k"}, map[string]string{"k": "v"}, catalog.ErrInvalidProperties},
		{"a namespace that does not exist", []string{"nope"}, nil, map[string]string{"k": "v"}, catalog.ErrNamespaceNotFound},
		{"a removal is unsupported", []string{"db"}, []string{"k"}, nil, catalog.ErrUnsupported},
		{"an update is unsupported", []string{"db"}, nil, map[string]string{"k": "v"}, catalog.ErrUnsupported},
		{"an update that asks nothing changes nothing", []string{"db"}, nil, nil, nil},
		{"no name climbs out of the warehouse", []string{"..", "x"}, nil, nil, catalog.ErrInvalidIdentifier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			change, err := d.UpdateNamespaceProperties(ctx, tc.ns, tc.removals, tc.updates)
			if tc.want == nil && (err != nil || len(change.Updated)+len(change.Removed)+len(change.Missing) > 0) || !errors.Is(err, tc.want) {
				t.Fatalf("%+v %v, want %v", change, err, tc.want)
			}
		})
	}
}

// TestDirectoryRegisterReadsOnlyWhatTablesMay checks that a metadata file
// is registered from where a table may read, and not from another
// table's folder.
func TestDirectoryRegisterReadsOnlyWhatTablesMay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root, stash := newOpsDirectory(t)
	other, err := d.CreateTable(ctx, catalog.Identifier{"db", "other"}, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(other.MetadataLocation)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.metadata.json")
	link := filepath.Join(stash, "link.metadata.json")
	loose := filepath.Join(root, "db", "loose.metadata.json")
	for p, data := range map[string][]byte{outside: text, loose: text} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		id       catalog.Identifier
		location string
		want     error
	}{
		{"another table's metadata file", catalog.Identifier{"db", "a"}, other.MetadataLocation, catalog.ErrOtherTable},
		{"a file outside the warehouse and the allowed roots", catalog.Identifier{"db", "b"}, outside, catalog.ErrOutsideWarehouse},
		{"a symlink that leads outside", catalog.Identifier{"db", "c"}, link, catalog.ErrOutsideWarehouse},
		{"a relative location", catalog.Identifier{"db", "d"}, "loose.metadata.json", catalog.ErrOutsideWarehouse},
		{"a name that climbs out", catalog.Identifier{"db", ".."}, loose, catalog.ErrInvalidIdentifier},
		{"a file in a namespace's folder", catalog.Identifier{"db", "e"}, loose, nil},
		{"a file URI of a file that does not exist", catalog.Identifier{"db", "f"}, "file://" + filepath.Join(stash, "copy.metadata.json"), fileio.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := d.RegisterTable(ctx, tc.id, tc.location)
			if tc.want == nil {
				if err != nil || got.Metadata.TableUUID != other.Metadata.TableUUID {
					t.Fatalf("%v, want the table registered", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			if tc.id.Validate() == nil {
				if _, err := d.LoadTable(ctx, tc.id); !errors.Is(err, catalog.ErrTableNotFound) {
					t.Fatalf("a refused register left a table: %v", err)
				}
			}
		})
	}
}

// TestDirectoryRegisterAfterDrop registers the metadata file of a table
// dropped without purge again under its name: its data, left in its
// folder, is read where it is.
func TestDirectoryRegisterAfterDrop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, root, stash := newOpsDirectory(t)
	id := catalog.Identifier{"db", "t"}
	created, err := d.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(stash, "t.metadata.json")
	text, err := os.ReadFile(created.MetadataLocation)
	if err == nil {
		err = os.WriteFile(saved, text, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "db", "t", "data", "f.parquet")
	if err := os.MkdirAll(filepath.Dir(data), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte("rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.DropTable(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	back, err := d.RegisterTable(ctx, id, saved)
	if err != nil {
		t.Fatal(err)
	}
	if back.Metadata.TableUUID != created.Metadata.TableUUID || back.MetadataLocation != filepath.Join(root, "db", "t", "metadata", "v1.metadata.json") {
		t.Fatalf("registered %s at %s", back.Metadata.TableUUID, back.MetadataLocation)
	}
	hint, err := os.ReadFile(filepath.Join(root, "db", "t", "metadata", "version-hint.text"))
	if err != nil || string(hint) != "1" {
		t.Fatalf("version hint %q %v, want 1 as HadoopTableOperations writes it", hint, err)
	}
	f, err := back.IO.Open(ctx, created.Metadata.Location+"/data/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
	f.Close()
	if err != nil || string(got) != "rows" {
		t.Fatalf("data file reads %q %v", got, err)
	}
}
