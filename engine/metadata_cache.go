package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// metadataCacheEntries is how many metadata files a process keeps for the
// unit tickets it redeems: the tables being read at once, a few.
const metadataCacheEntries = 16

// metadataCache keeps the table metadata files that unit tickets (a
// metadata table's, a change stream's, a manifest group's) read, so that
// the tickets of one plan parse their table's metadata once per process,
// not once each: a large table's is megabytes. A metadata file never
// changes once written, so an entry is never stale; the oldest goes first.
type metadataCache struct {
	max   int
	mu    sync.Mutex
	byLoc map[string]*metadataEntry
	order []string
}

// metadataEntry is one metadata file, read once by whoever asked first.
type metadataEntry struct {
	once sync.Once
	md   *iceberg.TableMetadata
	err  error
}

func newMetadataCache(n int) *metadataCache {
	return &metadataCache{max: n, byLoc: map[string]*metadataEntry{}}
}

// ticketMetadata returns the metadata file ticket t names, read through
// rd's storage: the file the coordinator planned on (tickets name where it
// is, not where it was written). Only a verified ticket gets here, and its
// signature vouches for the location, so a cached file is served to any
// ticket naming it. A failed read is not kept.
func (e *Engine) ticketMetadata(ctx context.Context, rd *reader.Reader, t *iceflightv1.Ticket) (*iceberg.TableMetadata, error) {
	c := e.metadata
	c.mu.Lock()
	ent, ok := c.byLoc[t.MetadataLocation]
	if !ok {
		ent = &metadataEntry{}
		c.byLoc[t.MetadataLocation] = ent
		c.order = append(c.order, t.MetadataLocation)
		if len(c.order) > c.max {
			delete(c.byLoc, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	ent.once.Do(func() {
		ent.md, _, ent.err = catalog.ReadMetadata(ctx, rd.FileIO(), t.MetadataLocation, catalog.DefaultMaxMetadataBytes)
	})
	if ent.err != nil {
		c.forget(t.MetadataLocation, ent)
		return nil, fmt.Errorf("table %s: %w", t.Table, ent.err)
	}
	return ent.md, nil
}

// forget drops ent, a failed read, so that the next ticket tries again.
func (c *metadataCache) forget(loc string, ent *metadataEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byLoc[loc] != ent {
		return
	}
	delete(c.byLoc, loc)
	for i, l := range c.order {
		if l == loc {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}
