package planner

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/iceflight/iceflight/internal/panics"
)

// DefaultCacheBytes bounds the manifest cache when no size is given.
const DefaultCacheBytes = 256 << 20

// cache is a byte-bounded LRU of decoded manifest lists and manifests.
// Both are immutable once written, so an entry never goes stale; keys
// name the table and the file's real location and length (see cacheKey).
type cache struct {
	mu       sync.Mutex
	capacity int64
	size     int64
	order    *list.List // front = most recently used
	entries  map[string]*list.Element
	loads    singleflight.Group

	hits, misses int64
}

type cacheEntry struct {
	key   string
	value any
	size  int64
}

func newCache(capacity int64) *cache {
	return &cache{capacity: capacity, order: list.New(), entries: map[string]*list.Element{}}
}

// get returns the cached value for key, or loads it once however many
// callers ask at the same time. A value larger than the whole cache is
// returned but not kept.
func (c *cache) get(ctx context.Context, key string, load func(context.Context) (any, int64, error)) (any, bool, error) {
	return c.getFitting(ctx, key, "", nil, true, func(ctx context.Context, _ any) (any, int64, error) { return load(ctx) })
}

// getFitting is get for values that come in variants, such as a manifest
// decoded with the metrics of some columns only: a cached value is a hit
// when fits accepts it (nil accepts any). Otherwise load builds one, given
// the cached value that did not fit (nil when there is none) so it can
// build a value that serves both, and the result replaces it, unless keep
// is false: a value read once and never again is served from the cache
// when it is there but not added. Callers asking for the same variant of a
// key share one load.
func (c *cache) getFitting(ctx context.Context, key, variant string, fits func(any) bool, keep bool,
	load func(ctx context.Context, prev any) (any, int64, error)) (any, bool, error) {
	if c == nil || c.capacity <= 0 {
		v, _, err := load(ctx, nil)
		return v, false, err
	}
	var prev any
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		prev = el.Value.(*cacheEntry).value
		if fits == nil || fits(prev) {
			c.order.MoveToFront(el)
			c.hits++
			c.mu.Unlock()
			return prev, true, nil
		}
	}
	c.misses++
	c.mu.Unlock()
	ch := c.loads.DoChan(key+"\x00"+variant, func() (v any, err error) {
		// DoChan re-panics a load's panic on a goroutine of its own, where
		// no recover reaches: the load recovers it here and fails its
		// callers instead.
		defer panics.Recover(&err, "planner cache load")
		// Other callers may wait on this load: one caller going away must
		// not fail theirs, and the work is bounded (one file).
		v, size, err := load(context.WithoutCancel(ctx), prev)
		if err != nil {
			return nil, err
		}
		if keep {
			c.put(key, v, size)
		}
		return v, nil
	})
	// Storage that hangs holds the load, never the callers: each waits
	// only as long as its own context lasts.
	select {
	case r := <-ch:
		return r.Val, false, r.Err
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// put keeps v under key, replacing what was there, and evicts the least
// recently used values beyond the capacity.
func (c *cache) put(key string, v any, size int64) {
	if size > c.capacity {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*cacheEntry)
		c.size += size - e.size
		e.value, e.size = v, size
		c.order.MoveToFront(el)
	} else {
		c.entries[key] = c.order.PushFront(&cacheEntry{key: key, value: v, size: size})
		c.size += size
	}
	for c.size > c.capacity {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.entries, e.key)
		c.size -= e.size
	}
}

// CacheStats reports the manifest cache's use.
type CacheStats struct {
	Entries       int   `json:"entries"`
	Bytes         int64 `json:"bytes"`
	CapacityBytes int64 `json:"capacity_bytes"`
	Hits          int64 `json:"hits"`
	Misses        int64 `json:"misses"`
}

func (c *cache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: len(c.entries), Bytes: c.size, CapacityBytes: c.capacity, Hits: c.hits, Misses: c.misses}
}

// cacheKey names a cached file of a table: by the table and by where the
// file really is (its mapped location, see Table.locate), not by the
// location recorded in metadata. Two tables may record the same paths (a
// copy of a table, or a hostile one) for files that are not the same:
// keyed by recorded path, one table's manifests were served to the other.
// The recorded length tells a rewritten file from the one cached.
func cacheKey(kind, table, mapped string, length int64) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s", kind, length, table, mapped)
}
