// Package catalogs opens the catalogs a configuration names, by their
// "type" property, and mounts them together: the one place that knows
// every kind of catalog.
package catalogs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/storage"
)

// ErrConfig marks a catalog's configuration that cannot work: an unknown
// type, a missing property.
var ErrConfig = errors.New("catalog configuration")

// Opener opens one catalog named name from its properties (PyIceberg's
// names: "type", "uri", "warehouse", "s3.endpoint" ...). It does no I/O
// that a catalog server being down would fail: the first call reports
// that, so one catalog down does not keep the others from serving.
type Opener func(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error)

// Env is what every catalog is opened with besides its own properties.
type Env struct {
	// Storage builds the FileIO of the catalog's storage profile, its
	// properties.
	Storage *storage.Registry
	// RefreshInterval is how long loaded metadata is served before the
	// catalog is asked again (catalog.DefaultRefreshInterval if 0).
	RefreshInterval time.Duration
	// MaxMetadataBytes bounds a table's metadata file; 0 sets no bound, as
	// flightd's --max-metadata-bytes 0 does.
	MaxMetadataBytes int64
	// MetadataCacheBytes bounds the parsed metadata a catalog keeps; 0
	// keeps none.
	MetadataCacheBytes int64
	// AllowedRoots are local folders beyond a directory warehouse that its
	// tables may read (write.data.path elsewhere).
	AllowedRoots []string
}

// Types returns the catalog types that Open knows, sorted.
func Types() []string { return slices.Sorted(maps.Keys(types)) }

// Open opens the catalog named name, of the type its "type" property says.
// Errors name the catalog and never a property's value.
func Open(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error) {
	kind := props.Get("type")
	if kind == "" {
		return nil, fmt.Errorf("catalog %s: %w: no type (one of %s)", name, ErrConfig, strings.Join(Types(), ", "))
	}
	open, ok := types[strings.ToLower(kind)]
	if !ok {
		return nil, fmt.Errorf("catalog %s: %w: unknown type %q (one of %s)", name, ErrConfig, kind, strings.Join(Types(), ", "))
	}
	if env.Storage == nil {
		env.Storage = storage.New()
	}
	cat, err := open(ctx, name, props, env)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", name, err)
	}
	return cat, nil
}

// Mount opens every catalog of configs and mounts each under its name.
func Mount(ctx context.Context, configs map[string]fileio.Properties, env Env) (*catalog.Registry, error) {
	mounts := make(map[string]catalog.Catalog, len(configs))
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		cat, err := Open(ctx, name, configs[name], env)
		if err != nil {
			return nil, err
		}
		mounts[name] = cat
	}
	return catalog.NewRegistry(mounts)
}
