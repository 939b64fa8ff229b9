package catalog

import (
	"container/list"
	"sync"
	"time"
)

// DefaultMetadataCacheBytes bounds the parsed metadata a Directory keeps by
// default. A table's parsed metadata is estimated by its metadata file's
// size (the parse shares the file's text), so this holds a few tables with
// a million snapshots, or thousands of ordinary ones.
const DefaultMetadataCacheBytes = 1 << 30

// cachedTable is a parsed table, the bytes it is estimated to hold, the
// identity of the metadata file it was parsed from, and when that file was
// last looked up.
type cachedTable struct {
	table   *Table
	bytes   int64
	stamp   fileStamp
	checked time.Time
}

// tableCache holds parsed tables by name within a byte bound, dropping the
// least recently used first: without a bound, every table ever loaded (and
// each one's whole snapshot history) would stay resident for the life of
// the process. It is safe for concurrent use.
type tableCache struct {
	mu    sync.Mutex
	max   int64 // 0 keeps nothing
	bytes int64
	lru   list.List // of *cacheItem, most recently used at the front
	items map[string]*list.Element
}

type cacheItem struct {
	key string
	t   *cachedTable
}

func newTableCache(max int64) *tableCache {
	return &tableCache{max: max, items: map[string]*list.Element{}}
}

// get returns the table cached under key, or nil, and marks it used.
func (c *tableCache) get(key string) *cachedTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheItem).t
}

// put caches t under key, replacing what was there, then drops the least
// recently used tables until the cache fits its bound. A table larger than
// the whole bound is not kept.
func (c *tableCache) put(key string, t *cachedTable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	if t.bytes > c.max {
		return
	}
	c.items[key] = c.lru.PushFront(&cacheItem{key: key, t: t})
	c.bytes += t.bytes
	for c.bytes > c.max {
		c.removeLocked(c.lru.Back().Value.(*cacheItem).key)
	}
}

// drop removes the table cached under key, if any.
func (c *tableCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
}

// clear removes every table.
func (c *tableCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.items)
	c.lru.Init()
	c.bytes = 0
}

// size returns the number of tables and their estimated bytes.
func (c *tableCache) size() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.bytes
}

func (c *tableCache) removeLocked(key string) {
	e, ok := c.items[key]
	if !ok {
		return
	}
	c.lru.Remove(e)
	delete(c.items, key)
	c.bytes -= e.Value.(*cacheItem).t.bytes
}
