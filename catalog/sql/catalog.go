// Package sqlcat is the SQL catalog: tables listed in the iceberg_tables
// table that Iceberg Java's JdbcCatalog and PyIceberg's SqlCatalog write,
// in a SQLite file (modernc.org/sqlite, pure Go) or a PostgreSQL database
// (pgx). It reads the catalog and, unless configured read-only, commits
// to it as they do: a new metadata file, then a compare-and-swap of the
// table's metadata_location.
package sqlcat

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// Catalog is a catalog.Catalog over a SQL catalog database. A table's row
// gives its current metadata file, which is read through the catalog's
// FileIO. A Catalog is safe for concurrent use.
type Catalog struct {
	name        string // the configuration's name, for messages
	catalogName string // the catalog_name column's value
	conn        *conn
	db          *sql.DB
	io          fileio.FileIO
	warehouse   string // PropWarehouse

	fileIO      FileIOFunc
	refresh     time.Duration
	maxMetadata int64
	cacheBytes  int64
	cache       *catalog.MetadataCache

	mu    sync.Mutex
	known schema
}

var _ catalog.Catalog = (*Catalog)(nil)

// FileIOFunc returns the FileIO that reads the files of a catalog
// configured by props (its warehouse, s3.*, adls.* ... settings).
type FileIOFunc func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error)

// Option configures a Catalog made by New.
type Option func(*Catalog)

// WithFileIO sets how the catalog's FileIO is built from its properties.
// The default reads local paths only (fileio.NewResolver).
func WithFileIO(f FileIOFunc) Option { return func(c *Catalog) { c.fileIO = f } }

// WithRefreshInterval sets how long a loaded table is served before its
// row is read again; 0 reads it on every load. The default is
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

// New returns the SQL catalog name configured by props: "uri" names the
// database (see PropURI), "jdbc.user" and "jdbc.password" may give its
// credentials, and the rows read are those whose catalog_name is name
// (or the "catalog_name" property). It connects to nothing: a database that
// is down fails the first call that needs it, so one catalog's outage
// cannot keep a server from starting. Close releases its connections.
func New(ctx context.Context, name string, props fileio.Properties, opts ...Option) (*Catalog, error) {
	cn, err := parseConn(props)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", name, err)
	}
	c := &Catalog{
		name:        name,
		catalogName: name,
		conn:        cn,
		refresh:     catalog.DefaultRefreshInterval,
		maxMetadata: catalog.DefaultMaxMetadataBytes,
		cacheBytes:  catalog.DefaultMetadataCacheBytes,
	}
	c.warehouse = strings.TrimRight(props.Get(PropWarehouse), "/")
	if v := props.Get(PropCatalogName); v != "" {
		c.catalogName = v
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
	switch cn.engine {
	case enginePostgres:
		c.db = stdlib.OpenDB(*cn.pg)
	default:
		if c.db, err = sql.Open("sqlite", cn.sqliteDSN); err != nil {
			return nil, fmt.Errorf("catalog %s: open %s: %w", name, cn.display, err)
		}
	}
	// A catalog serves short lookups: a few connections are plenty, and
	// idle ones are let go so that a restarted database is reached anew.
	c.db.SetMaxOpenConns(4)
	c.db.SetConnMaxIdleTime(time.Minute)
	return c, nil
}

// Name returns the catalog's name in the configuration.
func (c *Catalog) Name() string { return c.name }

// Close closes the catalog's database connections.
func (c *Catalog) Close() error { return c.db.Close() }

// ListTables returns every table of the catalog, sorted by name. Views and
// rows whose names cannot name a table (catalog.Identifier.Validate) are
// left out.
func (c *Catalog) ListTables(ctx context.Context) ([]catalog.Identifier, error) {
	s, err := c.schema(ctx)
	var rows [][2]string
	if err == nil {
		rows, err = c.tableRows(ctx, s)
	}
	if err != nil {
		return nil, c.dbError(ctx, "list tables", err)
	}
	ids := make([]catalog.Identifier, 0, len(rows))
	for _, r := range rows {
		id := append(splitNamespace(r[0]), r[1])
		if id.Validate() == nil {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b catalog.Identifier) int { return strings.Compare(a.String(), b.String()) })
	return ids, nil
}

// ListNamespaces returns the namespaces directly below parent (nil: the
// top-level ones), sorted: those that hold tables or views and those that
// only have properties, as PyIceberg's list_namespaces does.
func (c *Catalog) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	s, err := c.schema(ctx)
	var rows []string
	if err == nil {
		rows, err = c.namespaceRows(ctx, s)
	}
	if err != nil {
		return nil, c.dbError(ctx, "list namespaces", err)
	}
	seen := map[string]bool{}
	var out [][]string
	for _, r := range rows {
		ns := splitNamespace(r)
		if len(ns) <= len(parent) || !slices.Equal(ns[:len(parent)], parent) {
			continue
		}
		child := ns[:len(parent)+1]
		if key := strings.Join(child, "."); !seen[key] {
			seen[key] = true
			out = append(out, child)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(strings.Join(a, "."), strings.Join(b, ".")) })
	return out, nil
}

// LoadTable returns the current metadata of the table id names: its row's
// metadata_location, read through the catalog's FileIO. Loaded tables are
// cached (catalog.MetadataCache): within the refresh interval a table is
// served with no query; after it, its row is read again and the metadata
// file parsed anew only when the row names another.
func (c *Catalog) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("catalog %s: load table %s: %w", c.name, id, err)
	}
	namespace := strings.Join(id.Namespace(), ".")
	locate := func(ctx context.Context) (string, error) {
		s, err := c.schema(ctx)
		var loc string
		var ok bool
		if err == nil {
			loc, ok, err = c.metadataLocation(ctx, s, namespace, id.Name())
		}
		if err != nil {
			return "", c.dbError(ctx, "load table "+id.String(), err)
		}
		if !ok {
			return "", fmt.Errorf("catalog %s: table %s: %w", c.name, id, catalog.ErrTableNotFound)
		}
		return loc, nil
	}
	read := func(ctx context.Context, location string) (*catalog.Table, int64, error) {
		md, n, err := catalog.ReadMetadata(ctx, c.io, location, c.maxMetadata)
		if err != nil {
			return nil, 0, fmt.Errorf("catalog %s: table %s: %w", c.name, id, err)
		}
		t := &catalog.Table{
			Identifier:       id,
			MetadataLocation: location,
			Metadata:         md,
			IO:               c.io,
			Location:         md.Location,
		}
		// A table registered away from where it was written records its
		// old location: read it beside its metadata file.
		catalog.Relocate(ctx, t)
		return t, n, nil
	}
	return c.cache.Load(ctx, id.String(), locate, read)
}

// Refresh drops cached metadata so that the next LoadTable reads the
// table's row at once: of one table, or of all when id is nil.
func (c *Catalog) Refresh(id catalog.Identifier) {
	if id == nil {
		c.cache.Clear()
		return
	}
	c.cache.Drop(id.String())
}

// splitNamespace returns the levels of a namespace column ("a.b" → a, b);
// the empty namespace, where Java keeps top-level tables, has none.
func splitNamespace(ns string) catalog.Identifier {
	if ns == "" {
		return catalog.Identifier{}
	}
	return strings.Split(ns, ".")
}
