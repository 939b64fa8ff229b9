package catalogs

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// openDirectory opens a directory (Hadoop-style) warehouse: every folder
// below "warehouse" with a metadata/ folder is a table.
func openDirectory(ctx context.Context, name string, props fileio.Properties, env Env) (catalog.Catalog, error) {
	wh := props.Get("warehouse")
	if wh == "" {
		return nil, fmt.Errorf("%w: type directory needs a warehouse", ErrConfig)
	}
	fio, err := env.Storage.ForProperties(ctx, props)
	if err != nil {
		return nil, err
	}
	root := wh
	if s := fileio.Scheme(wh); s == "" || s == "file" {
		if root, err = fileio.LocalPath(wh); err != nil {
			return nil, fmt.Errorf("warehouse %s: %w", wh, err)
		}
	}
	opts := []catalog.Option{catalog.WithFileIO(fio), catalog.WithAllowedRoots(env.AllowedRoots...),
		catalog.WithMaxMetadataBytes(env.MaxMetadataBytes), catalog.WithMetadataCacheBytes(env.MetadataCacheBytes)}
	if env.RefreshInterval > 0 {
		opts = append(opts, catalog.WithRefreshInterval(env.RefreshInterval))
	}
	return catalog.NewDirectory(root, opts...)
}
