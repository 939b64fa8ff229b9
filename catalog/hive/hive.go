// Package hive is the Hive Metastore catalog: Iceberg tables kept as
// metastore tables whose metadata_location parameter names their current
// metadata file, as Iceberg Java's HiveCatalog and PyIceberg's HiveCatalog
// keep them. Namespaces are the metastore's databases (one level). It is a
// pointer.Catalog whose Store speaks the metastore's Thrift API
// (catalog/hive/hms); a commit swaps the parameter under a metastore lock,
// or, on Hive 4, by the metastore's own compare-and-swap (see Swap).
package hive

import (
	"context"
	"fmt"
	"time"

	"github.com/iceflight/iceflight/catalog/hive/hms"
	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
)

// Catalog is a catalog.Catalog over a Hive Metastore: a pointer.Catalog
// whose Store is the metastore. It is safe for concurrent use.
type Catalog struct {
	*pointer.Catalog
}

// Option configures a Catalog made by New.
type Option = pointer.Option

// FileIOFunc returns the FileIO that reads the files of a catalog
// configured by props.
type FileIOFunc = pointer.FileIOFunc

// WithFileIO sets how the catalog's FileIO is built from its properties.
// The default reads local paths only (fileio.NewResolver).
func WithFileIO(f FileIOFunc) Option { return pointer.WithFileIO(f) }

// WithRefreshInterval sets how long a loaded table is served before its
// metastore entry is read again; 0 reads it on every load. The default is
// catalog.DefaultRefreshInterval.
func WithRefreshInterval(d time.Duration) Option { return pointer.WithRefreshInterval(d) }

// WithMaxMetadataBytes bounds a table's metadata file, after
// decompression; 0 or less sets no bound. The default is
// catalog.DefaultMaxMetadataBytes.
func WithMaxMetadataBytes(n int64) Option { return pointer.WithMaxMetadataBytes(n) }

// WithMetadataCacheBytes bounds the parsed metadata kept between loads.
// The default is catalog.DefaultMetadataCacheBytes.
func WithMetadataCacheBytes(n int64) Option { return pointer.WithMetadataCacheBytes(n) }

// New returns the Hive catalog name configured by props (see the Prop
// constants; "warehouse", "read-only" and the storage settings as every
// pointer catalog reads them). It connects to nothing: a metastore that is
// down fails the first call that needs it. Close releases its connections.
func New(ctx context.Context, name string, props fileio.Properties, opts ...Option) (*Catalog, error) {
	cfg, err := parseConfig(props)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", name, err)
	}
	s := newStore(cfg)
	pc, err := pointer.New(ctx, name, s, props, opts...)
	if err != nil {
		s.Close()
		return nil, err
	}
	return &Catalog{pc}, nil
}

// store is the metastore, the pointer.Store of a Catalog.
type store struct {
	cfg   config
	pool  *hms.Pool
	user  string // owner of new tables and databases, user of locks
	host  string // hostname of locks
	agent string // agentInfo of locks: which process holds one
	locks tableLocks
}

var _ pointer.Store = (*store)(nil)

func newStore(cfg config) *store {
	return &store{
		cfg:   cfg,
		pool:  hms.NewPool(hms.Config{Addrs: cfg.addrs, Size: cfg.poolSize, CallTimeout: cfg.callTimeout}),
		user:  currentUser(),
		host:  hostname(),
		agent: "iceflight-" + randomID(),
	}
}

// Close closes the metastore connections.
func (s *store) Close() error { return s.pool.Close() }
