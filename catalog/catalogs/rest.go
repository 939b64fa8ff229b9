package catalogs

import (
	"context"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/fileio"
)

// openREST opens an Iceberg REST catalog at its "uri"; its tables' files
// are read with the catalog's storage profile, plus whatever storage
// properties (vended credentials) the server returns for each table.
func openREST(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error) {
	opts := []rest.Option{rest.WithFileIO(env.Storage.ForProperties), rest.WithMaxMetadataBytes(env.MaxMetadataBytes)}
	if env.RefreshInterval > 0 {
		opts = append(opts, rest.WithRefreshInterval(env.RefreshInterval))
	}
	return rest.New(ctx, name, props, opts...)
}
