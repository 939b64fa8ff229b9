package pointer

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// Properties of a pointer catalog's configuration that Catalog reads; a
// Store reads its own.
const (
	// PropWarehouse is where tables without a location of their own go
	// (<warehouse>/<namespace>.db/<table>), when the Store does not decide.
	PropWarehouse = "warehouse"
	// PropReadOnly, "true", keeps the catalog from writing: commits,
	// creates, drops, renames and namespace changes wrap
	// catalog.ErrReadOnly.
	PropReadOnly = "read-only"
)

// FileIOFunc returns the FileIO that reads the files of a catalog
// configured by props (its warehouse, s3.*, adls.* ... settings).
type FileIOFunc func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error)

// Option configures a Catalog made by New.
type Option func(*Catalog)

// WithFileIO sets how the catalog's FileIO is built from its properties.
// The default reads local paths only (fileio.NewResolver).
func WithFileIO(f FileIOFunc) Option { return func(c *Catalog) { c.fileIO = f } }

// WithRefreshInterval sets how long a loaded table is served before its
// pointer is read again; 0 reads it on every load. The default is
// catalog.DefaultRefreshInterval.
func WithRefreshInterval(d time.Duration) Option {
	return func(c *Catalog) { c.refresh = max(d, 0) }
}

// WithMaxMetadataBytes bounds a table's metadata file, after
// decompression (catalog.ReadMetadata); 0 or less sets no bound. The
// default is catalog.DefaultMaxMetadataBytes.
func WithMaxMetadataBytes(n int64) Option { return func(c *Catalog) { c.maxMetadata = n } }

// WithMetadataCacheBytes bounds the parsed metadata kept between loads (see
// catalog.MetadataCache). The default is catalog.DefaultMetadataCacheBytes.
func WithMetadataCacheBytes(n int64) Option { return func(c *Catalog) { c.cacheBytes = max(n, 0) } }

// Catalog is a catalog.Catalog over a Store: a table's pointer gives its
// current metadata file, which is read through the catalog's FileIO, and a
// commit writes the next metadata file and swaps the pointer to it. A
// Catalog is safe for concurrent use if its Store is.
type Catalog struct {
	name      string // the configuration's name, for messages
	store     Store
	warehouse string
	readOnly  bool
	io        fileio.FileIO

	fileIO      FileIOFunc
	refresh     time.Duration
	maxMetadata int64
	cacheBytes  int64
	cache       *catalog.MetadataCache
}

// New returns the catalog name over store, configured by props
// (PropWarehouse, PropReadOnly and the storage settings its FileIO is built
// from). It does no I/O with the store.
func New(ctx context.Context, name string, store Store, props fileio.Properties, opts ...Option) (*Catalog, error) {
	c := &Catalog{
		name:        name,
		store:       store,
		warehouse:   strings.TrimRight(props.Get(PropWarehouse), "/"),
		readOnly:    strings.EqualFold(props.Get(PropReadOnly), "true"),
		refresh:     catalog.DefaultRefreshInterval,
		maxMetadata: catalog.DefaultMaxMetadataBytes,
		cacheBytes:  catalog.DefaultMetadataCacheBytes,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.fileIO == nil {
		c.fileIO = func(context.Context, fileio.Properties) (fileio.FileIO, error) { return fileio.NewResolver(), nil }
	}
	io, err := c.fileIO(ctx, props)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: storage: %w", name, err)
	}
	// No call may be held by storage that hangs (see fileio.Cancelable).
	c.io = fileio.Cancelable(io)
	c.cache = catalog.NewMetadataCache(c.refresh, c.cacheBytes)
	return c, nil
}

// Name returns the catalog's name in the configuration.
func (c *Catalog) Name() string { return c.name }

// Close closes the store if it holds anything to release.
func (c *Catalog) Close() error {
	if cl, ok := c.store.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}
