package pointer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
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

var (
	_ catalog.Catalog             = (*Catalog)(nil)
	_ catalog.Committer           = (*Catalog)(nil)
	_ catalog.Namespaces          = (*Catalog)(nil)
	_ catalog.NamespaceProperties = (*Catalog)(nil)
	_ catalog.Renamer             = (*Catalog)(nil)
	_ catalog.Registrar           = (*Catalog)(nil)
	_ catalog.Locator             = (*Catalog)(nil)
)

// Name returns the catalog's name in the configuration.
func (c *Catalog) Name() string { return c.name }

// Close closes the store if it holds anything to release.
func (c *Catalog) Close() error {
	if cl, ok := c.store.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}

// ListTables returns every table of the catalog, sorted by name. Entries
// whose names cannot name a table (catalog.Identifier.Validate) are left
// out.
func (c *Catalog) ListTables(ctx context.Context) ([]catalog.Identifier, error) {
	ids, err := c.store.Tables(ctx)
	if err != nil {
		return nil, c.fail("list tables", err)
	}
	ids = slices.DeleteFunc(ids, func(id catalog.Identifier) bool { return id.Validate() != nil })
	slices.SortFunc(ids, func(a, b catalog.Identifier) int { return strings.Compare(a.String(), b.String()) })
	return ids, nil
}

// LoadTable returns the current metadata of the table id names: the file
// its pointer names, read through the catalog's FileIO. Loaded tables are
// cached (catalog.MetadataCache): within the refresh interval a table is
// served with no call to the store; after it, the pointer is read again
// and the metadata file parsed anew only when it names another.
func (c *Catalog) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	op := "load table " + id.String()
	if err := ctx.Err(); err != nil {
		return nil, c.fail(op, err)
	}
	locate := func(ctx context.Context) (string, error) {
		loc, err := c.store.Locate(ctx, id)
		if err != nil {
			return "", c.fail(op, err)
		}
		return loc, nil
	}
	read := func(ctx context.Context, location string) (*catalog.Table, int64, error) {
		md, n, err := catalog.ReadMetadata(ctx, c.io, location, c.maxMetadata)
		if err != nil {
			return nil, 0, c.fail(op, err)
		}
		t := c.table(id, location, md)
		// A table registered away from where it was written records its
		// old location: read it beside its metadata file.
		catalog.Relocate(ctx, t)
		return t, n, nil
	}
	return c.cache.Load(ctx, id.String(), locate, read)
}

// Refresh drops cached metadata so that the next LoadTable reads the
// table's pointer at once: of one table, or of all when id is nil.
func (c *Catalog) Refresh(id catalog.Identifier) {
	if id == nil {
		c.cache.Clear()
		return
	}
	c.cache.Drop(id.String())
}

// table returns the table id at the metadata file loc, whose content is md.
func (c *Catalog) table(id catalog.Identifier, loc string, md *iceberg.TableMetadata) *catalog.Table {
	return &catalog.Table{Identifier: id, MetadataLocation: loc, Metadata: md, IO: c.io, Location: md.Location}
}

// fail wraps an error of op with the catalog's name.
func (c *Catalog) fail(op string, err error) error {
	return fmt.Errorf("catalog %s: %s: %w", c.name, op, err)
}

// writable refuses writes to a catalog configured read-only.
func (c *Catalog) writable(op string) error {
	if c.readOnly {
		return c.fail(op, catalog.ErrReadOnly)
	}
	return nil
}
