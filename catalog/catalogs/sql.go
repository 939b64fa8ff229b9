package catalogs

import (
	"context"

	"github.com/iceflight/iceflight/catalog"
	sqlcat "github.com/iceflight/iceflight/catalog/sql"
	"github.com/iceflight/iceflight/fileio"
)

// openSQL opens a SQL catalog (the tables JdbcCatalog and SqlCatalog
// share) on SQLite or PostgreSQL, as its "uri" says; its tables' files are
// read with the catalog's storage profile.
func openSQL(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error) {
	opts := []sqlcat.Option{sqlcat.WithFileIO(env.Storage.ForProperties),
		sqlcat.WithMaxMetadataBytes(env.MaxMetadataBytes), sqlcat.WithMetadataCacheBytes(env.MetadataCacheBytes)}
	if env.RefreshInterval > 0 {
		opts = append(opts, sqlcat.WithRefreshInterval(env.RefreshInterval))
	}
	return sqlcat.New(ctx, name, props, opts...)
}
