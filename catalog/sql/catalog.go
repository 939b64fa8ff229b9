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
	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
)

// Catalog is a catalog.Catalog over a SQL catalog database: a
// pointer.Catalog whose Store is the database's iceberg_tables and
// iceberg_namespace_properties. A table's row gives its current metadata
// file, which is read through the catalog's FileIO. A Catalog is safe for
// concurrent use.
type Catalog struct {
	*pointer.Catalog
}

// store is the catalog database, the pointer.Store of a Catalog.
type store struct {
	catalogName string // the catalog_name column's value
	conn        *conn
	db          *sql.DB

	mu    sync.Mutex
	known schema
}

var _ pointer.Store = (*store)(nil)

// FileIOFunc returns the FileIO that reads the files of a catalog
// configured by props (its warehouse, s3.*, adls.* ... settings).
type FileIOFunc = pointer.FileIOFunc

// Option configures a Catalog made by New.
type Option = pointer.Option

// WithFileIO sets how the catalog's FileIO is built from its properties.
// The default reads local paths only (fileio.NewResolver).
func WithFileIO(f FileIOFunc) Option { return pointer.WithFileIO(f) }

// WithRefreshInterval sets how long a loaded table is served before its
// row is read again; 0 reads it on every load. The default is
// catalog.DefaultRefreshInterval.
func WithRefreshInterval(d time.Duration) Option { return pointer.WithRefreshInterval(d) }

// WithMaxMetadataBytes bounds a table's metadata file, after
// decompression (catalog.ReadMetadata); 0 or less sets no bound. The
// default is catalog.DefaultMaxMetadataBytes.
func WithMaxMetadataBytes(n int64) Option { return pointer.WithMaxMetadataBytes(n) }

// WithMetadataCacheBytes bounds the parsed metadata kept between loads (see
// catalog.MetadataCache). The default is catalog.DefaultMetadataCacheBytes.
func WithMetadataCacheBytes(n int64) Option { return pointer.WithMetadataCacheBytes(n) }

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
	s := &store{catalogName: name, conn: cn}
	if v := props.Get(PropCatalogName); v != "" {
		s.catalogName = v
	}
	switch cn.engine {
	case enginePostgres:
		s.db = stdlib.OpenDB(*cn.pg)
	default:
		if s.db, err = sql.Open("sqlite", cn.sqliteDSN); err != nil {
			return nil, fmt.Errorf("catalog %s: open %s: %w", name, cn.display, err)
		}
	}
	// A catalog serves short lookups: a few connections are plenty, and
	// idle ones are let go so that a restarted database is reached anew.
	s.db.SetMaxOpenConns(4)
	s.db.SetConnMaxIdleTime(time.Minute)
	pc, err := pointer.New(ctx, name, s, props, opts...)
	if err != nil {
		s.db.Close()
		return nil, err
	}
	return &Catalog{pc}, nil
}

// Close closes the catalog's database connections.
func (c *store) Close() error { return c.db.Close() }

// Tables returns every table of the catalog (views excluded).
func (c *store) Tables(ctx context.Context) ([]catalog.Identifier, error) {
	s, err := c.schema(ctx)
	var rows [][2]string
	if err == nil {
		rows, err = c.tableRows(ctx, s)
	}
	if err != nil {
		return nil, c.dbError(ctx, err)
	}
	ids := make([]catalog.Identifier, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, append(splitNamespace(r[0]), r[1]))
	}
	return ids, nil
}

// ListNamespaces returns the namespaces directly below parent (nil: the
// top-level ones), sorted: those that hold tables or views and those that
// only have properties, as PyIceberg's list_namespaces does.
func (c *store) ListNamespaces(ctx context.Context, parent []string) ([][]string, error) {
	s, err := c.schema(ctx)
	var rows []string
	if err == nil {
		rows, err = c.namespaceRows(ctx, s)
	}
	if err != nil {
		return nil, c.dbError(ctx, err)
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

// Locate returns the metadata_location of the table's row.
func (c *store) Locate(ctx context.Context, id catalog.Identifier) (string, error) {
	s, err := c.schema(ctx)
	var loc string
	var ok bool
	if err == nil {
		loc, ok, err = c.metadataLocation(ctx, s, strings.Join(id.Namespace(), "."), id.Name())
	}
	if err != nil {
		return "", c.dbError(ctx, err)
	}
	if !ok {
		return "", catalog.ErrTableNotFound
	}
	return loc, nil
}

// splitNamespace returns the levels of a namespace column ("a.b" → a, b);
// the empty namespace, where Java keeps top-level tables, has none.
func splitNamespace(ns string) catalog.Identifier {
	if ns == "" {
		return catalog.Identifier{}
	}
	return strings.Split(ns, ".")
}
