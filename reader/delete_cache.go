package reader

import (
	"container/list"
	"context"
	"errors"
	"strconv"
	"sync"
)

// DefaultDeleteCacheBytes is the memory the equality delete cache may hold
// when WithDeleteCacheBytes is not given.
const DefaultDeleteCacheBytes = 256 << 20

// deleteCache keeps the key sets of equality delete files, shared by every
// task and every concurrent Read of a Reader: an equality delete file
// usually applies to many data files. Each set is loaded once even when
// many Reads ask for it at the same time: the first loads it and the
// others wait. Sets are evicted least recently used first once their
// estimated size passes the limit; a set in use stays valid after its
// eviction, since its users hold it.
type deleteCache struct {
	mu      sync.Mutex
	limit   int64
	size    int64
	entries map[string]*cacheEntry
	lru     list.List // of *cacheEntry, loaded ones only, most recent first
}

type cacheEntry struct {
	key  string
	done chan struct{} // closed when set or err is final
	set  *keySet
	err  error
	elem *list.Element
}

// deleteKey names the set of delete file d read as variant: by where the
// file really is (a task's paths are the planner's mapped locations, never
// the paths metadata records, which two tables may share for different
// files) and by its size, so that a file replaced at the same path is not
// taken for the one cached.
func deleteKey(d *DeleteFile, variant string) string {
	return d.Path + "\x00" + strconv.FormatInt(d.FileSize, 10) + "\x00" + variant
}

func newDeleteCache(limit int64) *deleteCache {
	return &deleteCache{limit: limit, entries: make(map[string]*cacheEntry)}
}

// get returns the set cached under key, calling load to build it if no
// one has. A load that fails is not cached; callers waiting for a load
// that their own context did not cancel try again themselves.
func (c *deleteCache) get(ctx context.Context, key string, load func(context.Context) (*keySet, error)) (*keySet, error) {
	for {
		c.mu.Lock()
		e, ok := c.entries[key]
		if !ok {
			e = &cacheEntry{key: key, done: make(chan struct{})}
			c.entries[key] = e
			c.mu.Unlock()
			return c.fill(ctx, e, load)
		}
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil {
			return e.set, nil
		}
		if !errors.Is(e.err, context.Canceled) && !errors.Is(e.err, context.DeadlineExceeded) {
			return nil, e.err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// fill runs load for entry e and publishes the outcome.
func (c *deleteCache) fill(ctx context.Context, e *cacheEntry, load func(context.Context) (*keySet, error)) (*keySet, error) {
	set, err := load(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.done)
	e.set, e.err = set, err
	if err != nil || set.bytes > c.limit {
		// Failed loads are retried by the next caller; a set larger than
		// the whole cache serves its callers but is not kept.
		delete(c.entries, e.key)
		return set, err
	}
	e.elem = c.lru.PushFront(e)
	c.size += set.bytes
	for c.size > c.limit {
		last := c.lru.Back()
		old := last.Value.(*cacheEntry)
		c.lru.Remove(last)
		delete(c.entries, old.key)
		c.size -= old.set.bytes
	}
	return set, nil
}
