package catalogs

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/storage"
)

var bundled = filepath.Join("..", "..", "testdata", "warehouse")

func TestOpenRefusesWhatCannotWork(t *testing.T) {
	t.Parallel()
	const secret = "do-not-show-me"
	tests := []struct {
		name  string
		props fileio.Properties
		says  string
	}{
		{"no type", fileio.Properties{"warehouse": bundled}, "no type (one of directory"},
		{"an unknown type", fileio.Properties{"type": "nessie", "token": secret}, `unknown type "nessie"`},
		{"a directory without a warehouse", fileio.Properties{"type": "directory", "s3.secret-access-key": secret}, "needs a warehouse"},
		{"a glue catalog with a secret and no key", fileio.Properties{"type": "glue", "glue.region": "eu-west-1", "glue.secret-access-key": secret}, "must be set together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(context.Background(), "lake", tt.props, Env{})
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.says) || !strings.HasPrefix(err.Error(), "catalog lake: ") {
				t.Errorf("Open: %v, want a configuration error of catalog lake saying %q", err, tt.says)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("the error %q shows a property's value", err)
			}
		})
	}
}

func TestADirectoryCatalogReadsThroughItsStorageProfile(t *testing.T) {
	t.Parallel()
	reg := storage.New()
	ctx := context.Background()
	props := fileio.Properties{"type": "Directory", "warehouse": bundled, "s3.region": "eu-west-1"}
	cats, err := Mount(ctx, map[string]fileio.Properties{"lake": props, "copy": {"type": "directory", "warehouse": "file://" + mustAbs(t, bundled)}},
		Env{Storage: reg, MaxMetadataBytes: catalog.DefaultMaxMetadataBytes, MetadataCacheBytes: catalog.DefaultMetadataCacheBytes})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := cats.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lake, cp int
	for _, id := range ids {
		switch id[0] {
		case "lake":
			lake++
		case "copy":
			cp++
		}
	}
	if lake == 0 || lake != cp {
		t.Errorf("%d tables in lake and %d in copy, want the bundled warehouse's in each", lake, cp)
	}
	tbl, err := cats.LoadTable(ctx, append(catalog.Identifier{"lake"}, ids[len(ids)-1][1:]...))
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Catalog != "lake" {
		t.Errorf("table of catalog %q, want lake", tbl.Catalog)
	}
	if reg.Len() != 2 {
		t.Errorf("%d storage profiles for two catalogs", reg.Len())
	}
}

func TestMountFailsOnTheFirstCatalogThatCannotOpen(t *testing.T) {
	t.Parallel()
	_, err := Mount(context.Background(), map[string]fileio.Properties{
		"good": {"type": "directory", "warehouse": bundled},
		"bad":  {"type": "directory", "warehouse": filepath.Join(t.TempDir(), "none")},
	}, Env{})
	if err == nil || !strings.HasPrefix(err.Error(), "catalog bad: ") {
		t.Errorf("Mount with a missing warehouse: %v, want an error naming catalog bad", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
