package manifest

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// avroContainer adapts an internal/avro container to manifest decoding: it
// finds the compiled form of the writer's schema in a process-wide cache,
// hands out blocks of records to decode, and wraps every error in
// ErrInvalidMetadata.
type avroContainer struct {
	c      *avro.Container
	schema *compiledSchema
}

// openAvroContainer reads the container header: magic, metadata and sync
// marker; prepare then finds the schema.
func openAvroContainer(r io.Reader) (*avroContainer, error) {
	c, err := avro.Open(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", iceberg.ErrInvalidMetadata, err)
	}
	return &avroContainer{c: c}, nil
}

// metadata returns the header's key/value pairs as strings.
func (c *avroContainer) metadata() map[string]string { return c.c.Metadata() }

// meta returns one header value, "" when absent.
func (c *avroContainer) meta(key string) string {
	v, _ := c.c.MetadataValue(key)
	return string(v)
}

// prepare finds (or parses and caches) the writer's schema.
func (c *avroContainer) prepare() error {
	raw, err := c.c.SchemaJSON()
	if err != nil {
		return fmt.Errorf("%w: %v", iceberg.ErrInvalidMetadata, err)
	}
	c.schema = schemas.get(raw)
	return c.schema.err
}

// offset is the file offset of the next block.
func (c *avroContainer) offset() int64 { return c.c.Offset() }

// release hands the container's block memory back for reuse; nothing
// decoded may alias it.
func (c *avroContainer) release() { c.c.Release() }

// nextBlock returns the next block's record count and bytes (valid until
// the next call), or io.EOF after the last.
func (c *avroContainer) nextBlock() (int, []byte, error) {
	n, data, err := c.c.ReadBlock()
	if err == io.EOF {
		return 0, nil, err
	}
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", iceberg.ErrInvalidMetadata, err)
	}
	if n > int64(len(data)) {
		// Every manifest or manifest list record takes at least a byte.
		return 0, nil, fmt.Errorf("%w: block of %d records in %d bytes", iceberg.ErrInvalidMetadata, n, len(data))
	}
	return int(n), data, nil
}

// compiledSchema is a writer's schema, parsed once, with the decoding
// layouts compiled from it: the manifest list layout, and a manifest
// layout per partition type (which decides how partition values convert).
// Writers use few distinct schemas (one per table, partition spec and
// library version), so a table's thousands of manifests share one.
type compiledSchema struct {
	parse  sync.Once
	schema *avro.Schema
	err    error

	mu        sync.Mutex
	manifests map[string]manifestLayoutResult

	listOnce sync.Once
	list     *manifestListLayout
	listErr  error
}

type manifestLayoutResult struct {
	l   *manifestLayout
	err error
}

// Bounds of the caches, which only a process reading very many tables or
// specs reaches; past them a cache starts afresh.
const (
	maxCachedSchemas          = 512
	maxCachedLayoutsPerSchema = 64
)

// manifestLayout returns the manifest layout for a partition type.
func (cs *compiledSchema) manifestLayout(pt *iceberg.StructType) (*manifestLayout, error) {
	key := partitionTypeKey(pt)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if res, ok := cs.manifests[key]; ok {
		return res.l, res.err
	}
	l, err := newManifestLayout(cs.schema, pt)
	if cs.manifests == nil || len(cs.manifests) >= maxCachedLayoutsPerSchema {
		cs.manifests = map[string]manifestLayoutResult{}
	}
	cs.manifests[key] = manifestLayoutResult{l, err}
	return l, err
}

// listLayout returns the manifest list layout.
func (cs *compiledSchema) listLayout() (*manifestListLayout, error) {
	cs.listOnce.Do(func() { cs.list, cs.listErr = newManifestListLayout(cs.schema) })
	return cs.list, cs.listErr
}

// partitionTypeKey identifies a partition type by what layouts depend on:
// each field's id, name and type.
func partitionTypeKey(pt *iceberg.StructType) string {
	if pt == nil {
		return "\x00"
	}
	var b strings.Builder
	for _, f := range pt.Fields {
		b.WriteString(strconv.Itoa(f.ID))
		b.WriteByte(0)
		b.WriteString(f.Name)
		b.WriteByte(0)
		if f.Type != nil {
			b.WriteString(f.Type.String())
		}
		b.WriteByte(1)
	}
	return b.String()
}

// schemaCache maps a schema's JSON text to its compiled form.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*compiledSchema
}

var schemas schemaCache

func (c *schemaCache) get(raw []byte) *compiledSchema {
	c.mu.Lock()
	cs, ok := c.m[string(raw)]
	if !ok {
		if c.m == nil || len(c.m) >= maxCachedSchemas {
			c.m = map[string]*compiledSchema{}
		}
		cs = &compiledSchema{}
		c.m[string(raw)] = cs
	}
	c.mu.Unlock()
	// A plan reads a table's manifests in parallel and they share one
	// schema: the first to come parses it and the others wait for it
	// rather than each parsing their own copy.
	cs.parse.Do(func() {
		if cs.schema, cs.err = avro.ParseSchema(raw); cs.err != nil {
			cs.err = fmt.Errorf("%w: %v", iceberg.ErrInvalidMetadata, cs.err)
		}
	})
	return cs
}
