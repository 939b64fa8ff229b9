package manifest

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"io"
	"sort"

	"github.com/linkedin/goavro/v2"
)

// blockRecords is how many records go in one Avro block.
const blockRecords = 1000

// countingWriter counts the bytes written through it: a manifest's length
// goes in its manifest-list entry.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// container is an Avro object container file being written, with records
// buffered into deflate-compressed blocks (Iceberg Java's default codec).
//
// goavro encodes the records, but the container framing is written here:
// goavro's OCF writer puts the codec's schema in the header, and the codec
// must be built from a schema whose decimals are plain fixed types,
// because goavro encodes a zero decimal as a single byte whatever the
// fixed size (goavro v2.15 toSignedFixedBytes). Decimal values are
// therefore given to goavro as bytes already sign-extended to the fixed
// size, and the header carries the true schema, logical types included.
type container struct {
	out     *countingWriter
	codec   *goavro.Codec
	sync    [16]byte
	records int64
	block   []byte
	packed  bytes.Buffer
	deflate *flate.Writer
}

// avroMagic opens every Avro object container file.
var avroMagic = []byte{'O', 'b', 'j', 1}

func newContainer(w io.Writer, schemas avroSchema, meta map[string]string) (*container, error) {
	codec, err := goavro.NewCodec(schemas.codec)
	if err != nil {
		return nil, err
	}
	c := &container{out: &countingWriter{w: w}, codec: codec}
	if _, err := rand.Read(c.sync[:]); err != nil {
		return nil, err
	}
	all := make(map[string]string, len(meta)+2)
	for k, v := range meta {
		all[k] = v
	}
	all["avro.schema"] = schemas.header
	all["avro.codec"] = "deflate"
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Spec (Avro, Object Container Files): the magic, the metadata as an
	// Avro map<bytes> (one block of entries, then a zero count), the sync
	// marker.
	h := append([]byte(nil), avroMagic...)
	h = binary.AppendVarint(h, int64(len(keys)))
	for _, k := range keys {
		h = appendBytes(h, []byte(k))
		h = appendBytes(h, []byte(all[k]))
	}
	h = binary.AppendVarint(h, 0)
	h = append(h, c.sync[:]...)
	if _, err := c.out.Write(h); err != nil {
		return nil, err
	}
	return c, nil
}

// appendBytes appends an Avro bytes or string value: zig-zag length, data.
// (encoding/binary's varints are Avro's zig-zag longs.)
func appendBytes(b, v []byte) []byte {
	return append(binary.AppendVarint(b, int64(len(v))), v...)
}

func (c *container) append(rec map[string]any) error {
	b, err := c.codec.BinaryFromNative(c.block, rec)
	if err != nil {
		return err
	}
	c.block = b
	c.records++
	if c.records >= blockRecords {
		return c.flush()
	}
	return nil
}

// flush writes the buffered records as one block: count, size, the
// deflated records, the sync marker.
func (c *container) flush() error {
	if c.records == 0 {
		return nil
	}
	c.packed.Reset()
	if c.deflate == nil {
		w, err := flate.NewWriter(&c.packed, flate.DefaultCompression)
		if err != nil {
			return err
		}
		c.deflate = w
	} else {
		c.deflate.Reset(&c.packed)
	}
	if _, err := c.deflate.Write(c.block); err != nil {
		return err
	}
	if err := c.deflate.Close(); err != nil {
		return err
	}
	h := binary.AppendVarint(nil, c.records)
	h = binary.AppendVarint(h, int64(c.packed.Len()))
	if _, err := c.out.Write(h); err != nil {
		return err
	}
	if _, err := c.out.Write(c.packed.Bytes()); err != nil {
		return err
	}
	if _, err := c.out.Write(c.sync[:]); err != nil {
		return err
	}
	c.records, c.block = 0, c.block[:0]
	return nil
}
