package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// loadTableResponse is the body of a load-table answer (LoadTableResult).
// Fields the client does not know are ignored, as the spec asks.
type loadTableResponse struct {
	MetadataLocation   string              `json:"metadata-location"`
	Metadata           json.RawMessage     `json:"metadata"`
	Config             map[string]string   `json:"config"`
	StorageCredentials []storageCredential `json:"storage-credentials"`
}

// storageCredential is one entry of storage-credentials: properties for
// the locations under prefix.
type storageCredential struct {
	Prefix string            `json:"prefix"`
	Config map[string]string `json:"config"`
}

// tableCache keeps each loaded table with its ETag.
type tableCache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	table   *catalog.Table
	etag    string
	checked time.Time // when the server last confirmed it
}

func cacheKey(id catalog.Identifier) string { return strings.Join(id, "\x00") }

func (tc *tableCache) get(id catalog.Identifier) *cacheEntry {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.entries[cacheKey(id)]
}

func (tc *tableCache) put(id catalog.Identifier, e *cacheEntry) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.entries[cacheKey(id)] = e
}

// Refresh drops cached tables so the next LoadTable asks the server
// unconditionally: one table, or all when id is nil.
func (c *Catalog) Refresh(id catalog.Identifier) {
	c.cache.mu.Lock()
	defer c.cache.mu.Unlock()
	if id == nil {
		clear(c.cache.entries)
		return
	}
	delete(c.cache.entries, cacheKey(id))
}

// LoadTable loads a table's current metadata.
//
// A table loaded less than the refresh interval ago is served from the
// cache with no request. After that it is revalidated with If-None-Match
// and its ETag: an unchanged table costs one 304. A table whose vended
// credentials are about to expire is loaded again unconditionally, which
// vends new ones.
func (c *Catalog) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if len(id) < 2 {
		return nil, fmt.Errorf("rest catalog %q: %w %q: a table needs a namespace", c.name, catalog.ErrInvalidIdentifier, id.String())
	}
	if err := c.configure(ctx); err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	now := c.now()
	cached := c.cache.get(id)
	if cached != nil && credentialsFresh(cached.table, now) {
		if now.Sub(cached.checked) < c.refresh {
			return cached.table, nil
		}
	} else {
		cached = nil
	}
	cl := call{
		method:   http.MethodGet,
		url:      c.base + "namespaces/" + c.encodeNamespace(id.Namespace()) + "/tables/" + url.PathEscape(id.Name()),
		what:     "load table " + id.String(),
		notFound: catalog.ErrTableNotFound,
		limit:    c.loadLimit(),
	}
	if strings.EqualFold(c.merged.Get("snapshot-loading-mode"), "refs") {
		cl.query = url.Values{"snapshots": {"refs"}}
	}
	if cached != nil && cached.etag != "" {
		cl.header = http.Header{"If-None-Match": {cached.etag}}
	}
	resp, err := c.send(ctx, cl)
	if err != nil {
		return nil, err
	}
	if resp.status == http.StatusNotModified {
		if cl.header == nil {
			return nil, c.errorf(cl, "%w: 304 Not Modified to an unconditional request", errProtocol)
		}
		c.cache.put(id, &cacheEntry{table: cached.table, etag: cached.etag, checked: now})
		return cached.table, nil
	}
	t, err := c.parseLoadTable(ctx, cl, id, resp.body)
	if err != nil {
		return nil, err
	}
	c.cache.put(id, &cacheEntry{table: t, etag: resp.header.Get("ETag"), checked: now})
	return t, nil
}

// loadSlackBytes is what a load-table body may hold besides the metadata:
// the config, the storage credentials, the field names.
const loadSlackBytes = 1 << 20

// loadLimit bounds a load-table body: the metadata bound and some slack,
// or no bound when the metadata has none.
func (c *Catalog) loadLimit() int64 {
	if c.maxMetadata <= 0 {
		return math.MaxInt64 - 1
	}
	return c.maxMetadata + loadSlackBytes
}

// parseLoadTable decodes a load-table body into a table.
func (c *Catalog) parseLoadTable(ctx context.Context, cl call, id catalog.Identifier, body []byte) (*catalog.Table, error) {
	var lt loadTableResponse
	if err := json.Unmarshal(body, &lt); err != nil {
		return nil, c.errorf(cl, "%w: malformed body: %v", errProtocol, err)
	}
	return c.table(ctx, cl, id, &lt)
}

// table builds the loaded table: its FileIO (from vended credentials when
// the answer has them), then its metadata, from the answer or else read
// from metadata-location.
func (c *Catalog) table(ctx context.Context, cl call, id catalog.Identifier, lt *loadTableResponse) (*catalog.Table, error) {
	if lt.MetadataLocation == "" && isNull(lt.Metadata) {
		return nil, c.errorf(cl, "%w: neither metadata nor metadata-location in the answer", errProtocol)
	}
	t := &catalog.Table{Identifier: id, MetadataLocation: lt.MetadataLocation, IO: c.io}
	var md *iceberg.TableMetadata
	var err error
	if !isNull(lt.Metadata) {
		if md, err = iceberg.ParseMetadata(lt.Metadata); err != nil {
			return nil, c.errorf(cl, "metadata: %w", err)
		}
	}
	location := lt.MetadataLocation
	if md != nil {
		location = md.Location
	}
	if vended := vendedProperties(lt, location); len(vended) > 0 {
		props := storageProperties(c.merged)
		for k, v := range vended {
			props[k] = v
		}
		if t.IO, err = c.newIO(ctx, props); err != nil {
			return nil, c.errorf(cl, "storage with vended credentials: %w", err)
		}
		t.StorageProperties = props
		t.CredentialsExpire = credentialsExpiry(props)
	}
	if md == nil {
		if md, _, err = catalog.ReadMetadata(ctx, t.IO, lt.MetadataLocation, c.maxMetadata); err != nil {
			return nil, c.errorf(cl, "%w", err)
		}
	}
	t.Metadata, t.Location = md, md.Location
	// A table registered away from where it was written records its old
	// location: read it beside its metadata file.
	catalog.Relocate(ctx, t)
	return t, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}
