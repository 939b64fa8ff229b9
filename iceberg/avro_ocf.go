package iceberg

import (
	"fmt"
	"io"

	"github.com/iceflight/iceflight/internal/avro"
)

// avroContainer adapts an internal/avro container to manifest decoding: it
// keeps the header metadata at hand, parses the writer's schema with the
// Iceberg "field-id" properties that goavro drops, and wraps every error in
// ErrInvalidMetadata.
type avroContainer struct {
	c      *avro.Container
	meta   map[string]string
	schema *avroSchema
}

// openAvroContainer reads the container header: magic, metadata and sync
// marker; prepare then parses the schema.
func openAvroContainer(r io.Reader) (*avroContainer, error) {
	c, err := avro.Open(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	return &avroContainer{c: c, meta: c.Metadata()}, nil
}

// metadata returns the header's key/value pairs as strings.
func (c *avroContainer) metadata() map[string]string { return c.meta }

// prepare parses the writer's schema.
func (c *avroContainer) prepare() error {
	raw, err := c.c.SchemaJSON()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	s, err := parseAvroSchema(raw)
	if err != nil {
		return err
	}
	c.schema = s
	return nil
}

// next returns the next record's native value, or io.EOF after the last.
func (c *avroContainer) next() (any, error) {
	v, err := c.c.Next()
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	return v, err
}
