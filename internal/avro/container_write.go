package avro

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// DefaultBlockRecords is how many records make a block when
// ContainerWriterOptions leave BlockRecords at 0.
const DefaultBlockRecords = 1000

// ContainerWriterOptions describe the container file a ContainerWriter
// writes.
type ContainerWriterOptions struct {
	// Schema is the writer's schema as JSON, the header's "avro.schema".
	Schema string
	// Codec is the block codec, the header's "avro.codec": "null" (or "",
	// written as "null") or "deflate".
	Codec string
	// Metadata holds the header's other keys. Keys that start with "avro."
	// are Avro's own and are refused.
	Metadata map[string]string
	// BlockRecords is how many records make a block; 0 means
	// DefaultBlockRecords.
	BlockRecords int
}

// ContainerWriter writes an Avro Object Container File (Avro spec, "Object
// Container Files"): the header (magic, metadata with the schema and codec,
// a random sync marker), then the records the caller appends, already in
// Avro's binary encoding (see Encoder), gathered into blocks that are each
// compressed with the codec and followed by the sync marker.
//
// goavro's OCFWriter is not used: it takes goavro's native values and
// encodes them with a codec of the schema in the header, so it cannot frame
// records encoded here. Container reads what ContainerWriter writes. A
// ContainerWriter is not safe for concurrent use.
type ContainerWriter struct {
	out          io.Writer
	n            int64 // bytes written to out
	codec        string
	blockRecords int
	sync         [syncSize]byte
	records      int    // records in block
	block        []byte // the records of the block being gathered
	packed       bytes.Buffer
	deflate      *flate.Writer
	err          error // the first write error: the file is unusable after it
}

// NewContainerWriter validates the options and writes the container's
// header to w.
func NewContainerWriter(w io.Writer, opts ContainerWriterOptions) (*ContainerWriter, error) {
	codec := opts.Codec
	switch codec {
	case "":
		codec = "null"
	case "null", "deflate":
	default:
		return nil, fmt.Errorf("avro container: codec %q is not null or deflate", codec)
	}
	if opts.Schema == "" {
		return nil, errors.New("avro container: no schema")
	}
	if opts.BlockRecords < 0 {
		return nil, fmt.Errorf("avro container: %d records a block", opts.BlockRecords)
	}
	c := &ContainerWriter{out: w, codec: codec, blockRecords: opts.BlockRecords}
	if c.blockRecords == 0 {
		c.blockRecords = DefaultBlockRecords
	}
	if _, err := rand.Read(c.sync[:]); err != nil {
		return nil, err
	}
	meta := make(map[string]string, len(opts.Metadata)+2)
	for k, v := range opts.Metadata {
		if strings.HasPrefix(k, "avro.") {
			return nil, fmt.Errorf("avro container: metadata key %q is reserved", k)
		}
		meta[k] = v
	}
	meta["avro.schema"] = opts.Schema
	meta["avro.codec"] = codec
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// The magic, the metadata as an Avro map<bytes> (one block of entries,
	// then a zero count), the sync marker.
	var h Encoder
	h.Fixed(magic)
	h.BlockCount(len(keys))
	for _, k := range keys {
		h.String(k)
		h.String(meta[k])
	}
	h.BlockCount(0)
	h.Fixed(c.sync[:])
	if err := c.write(h.Encoded()); err != nil {
		return nil, err
	}
	return c, nil
}

// Size returns the bytes written so far: after Close, the file's length.
func (c *ContainerWriter) Size() int64 { return c.n }

// Append adds one record, given in Avro's binary encoding of the schema, to
// the block being gathered; a block that reaches its record count is
// written out.
func (c *ContainerWriter) Append(record []byte) error {
	if c.err != nil {
		return c.err
	}
	c.block = append(c.block, record...)
	c.records++
	if c.records >= c.blockRecords {
		return c.Flush()
	}
	return nil
}

// Flush writes the records gathered since the last block as one block: the
// record count, the byte size, the compressed records, the sync marker.
// With no records gathered it writes nothing.
func (c *ContainerWriter) Flush() error {
	if c.err != nil || c.records == 0 {
		return c.err
	}
	data, err := c.compress(c.block)
	if err != nil {
		c.err = fmt.Errorf("avro container: %s block: %w", c.codec, err)
		return c.err
	}
	var h Encoder
	h.Long(int64(c.records))
	h.Long(int64(len(data)))
	if err := c.write(h.Encoded()); err != nil {
		return err
	}
	if err := c.write(data); err != nil {
		return err
	}
	if err := c.write(c.sync[:]); err != nil {
		return err
	}
	c.records, c.block = 0, c.block[:0]
	return nil
}

// Close writes the last block. It does not close the underlying writer.
func (c *ContainerWriter) Close() error { return c.Flush() }

// compress applies the block codec.
func (c *ContainerWriter) compress(block []byte) ([]byte, error) {
	if c.codec != "deflate" {
		return block, nil
	}
	c.packed.Reset()
	if c.deflate == nil {
		w, err := flate.NewWriter(&c.packed, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		c.deflate = w
	} else {
		c.deflate.Reset(&c.packed)
	}
	if _, err := c.deflate.Write(block); err != nil {
		return nil, err
	}
	if err := c.deflate.Close(); err != nil {
		return nil, err
	}
	return c.packed.Bytes(), nil
}

// write writes b to the file, keeping the first error.
func (c *ContainerWriter) write(b []byte) error {
	n, err := c.out.Write(b)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	return err
}
