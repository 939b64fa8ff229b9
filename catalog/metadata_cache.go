package catalog

import (
	"context"
	"time"
)

// MetadataCache keeps parsed tables between loads for a catalog that finds
// a table's current metadata location by a cheap lookup (a row of a SQL
// catalog, an answer of a REST catalog) and parses the file only when that
// location changed. It has the refresh semantics of Directory: within the
// refresh interval a table is served without any lookup; after it, one
// lookup, and a parse only for a new location. Parsed tables are bounded
// by the size of the metadata files they came from, least recently used
// dropped first. A MetadataCache is safe for concurrent use.
type MetadataCache struct {
	refresh time.Duration
	cache   *tableCache
}

// NewMetadataCache returns a cache that serves a table for refresh (0:
// looks up on every load) and keeps at most maxBytes of parsed metadata (0:
// keeps none). Catalogs pass DefaultRefreshInterval and
// DefaultMetadataCacheBytes unless configured otherwise.
func NewMetadataCache(refresh time.Duration, maxBytes int64) *MetadataCache {
	return &MetadataCache{refresh: max(refresh, 0), cache: newTableCache(max(maxBytes, 0))}
}

// Load returns the table cached under key while it is fresh. Otherwise it
// calls locate for the table's current metadata location and, when that is
// not the location of the cached table, read to load it from there, which
// returns the table and the bytes of metadata text it was parsed from.
// Errors of locate and read are returned as they are, and keep the stale
// entry out of use: the next Load looks up again.
func (c *MetadataCache) Load(ctx context.Context, key string,
	locate func(ctx context.Context) (string, error),
	read func(ctx context.Context, location string) (*Table, int64, error),
) (*Table, error) {
	now := time.Now()
	cached := c.cache.get(key)
	if cached != nil && now.Sub(cached.checked) < c.refresh {
		return cached.table, nil
	}
	location, err := locate(ctx)
	if err != nil {
		return nil, err
	}
	next := &cachedTable{checked: now}
	if cached != nil && cached.table.MetadataLocation == location {
		next.table, next.bytes = cached.table, cached.bytes
	} else if next.table, next.bytes, err = read(ctx, location); err != nil {
		return nil, err
	}
	c.cache.put(key, next)
	return next.table, nil
}

// Drop forgets the table cached under key, so that its next Load looks up
// its location at once.
func (c *MetadataCache) Drop(key string) { c.cache.drop(key) }

// Clear forgets every table.
func (c *MetadataCache) Clear() { c.cache.clear() }
