package catalogs

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/glue"
	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
)

// openGlue opens the AWS Glue Data Catalog its glue.* (or client.*)
// properties reach; its tables' files are read with the catalog's storage
// profile.
func openGlue(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error) {
	store, err := glue.New(ctx, props)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	opts := []pointer.Option{pointer.WithFileIO(env.Storage.ForProperties),
		pointer.WithMaxMetadataBytes(env.MaxMetadataBytes), pointer.WithMetadataCacheBytes(env.MetadataCacheBytes)}
	if env.RefreshInterval > 0 {
		opts = append(opts, pointer.WithRefreshInterval(env.RefreshInterval))
	}
	return pointer.New(ctx, name, store, props, opts...)
}
