package catalogs

import (
	"context"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive"
	"github.com/iceflight/iceflight/fileio"
)

// openHive opens a Hive Metastore catalog (Iceberg tables as metastore
// tables, as Iceberg Java's and PyIceberg's HiveCatalog keep them) at its
// "uri"; its tables' files are read with the catalog's storage profile.
func openHive(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error) {
	opts := []hive.Option{hive.WithFileIO(env.Storage.ForProperties),
		hive.WithMaxMetadataBytes(env.MaxMetadataBytes), hive.WithMetadataCacheBytes(env.MetadataCacheBytes)}
	if env.RefreshInterval > 0 {
		opts = append(opts, hive.WithRefreshInterval(env.RefreshInterval))
	}
	return hive.New(ctx, name, props, opts...)
}
