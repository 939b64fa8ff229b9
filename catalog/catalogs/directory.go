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
	picks, err := catalog.DirectoryOptions(props)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	opts := append([]catalog.Option{catalog.WithAllowedRoots(env.AllowedRoots...),
		catalog.WithMaxMetadataBytes(env.MaxMetadataBytes), catalog.WithMetadataCacheBytes(env.MetadataCacheBytes)}, picks...)
	if env.RefreshInterval > 0 {
		opts = append(opts, catalog.WithRefreshInterval(env.RefreshInterval))
	}
	// A local folder is confined by the process (os.Root, symlinks
	// resolved); a warehouse on other storage by its URI prefix.
	return catalog.NewDirectoryAt(wh, fio, opts...)
}
