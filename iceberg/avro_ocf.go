package iceberg

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/linkedin/goavro/v2"
)

// The container framing of Avro Object Container Files is read here rather
// than by goavro.OCFReader because goavro only knows the null, deflate and
// snappy codecs, while Iceberg writers also use zstandard (and the Avro spec
// allows bzip2). goavro decodes every datum.

const (
	avroSyncSize      = 16
	avroMaxHeaderItem = 64 << 20  // a metadata key or value
	avroMaxBlock      = 512 << 20 // one block, compressed or not
)

var avroMagic = []byte("Obj\x01")

// avroContainer reads the records of an Avro Object Container File.
type avroContainer struct {
	r         *bufio.Reader
	meta      map[string][]byte
	codecName string
	sync      [avroSyncSize]byte
	schema    *avroSchema
	codec     *goavro.Codec

	block     []byte // undecoded rest of the current block
	remaining int64  // records left in the current block
}

// openAvroContainer reads the container header: magic, metadata and sync
// marker; prepare then builds the decoder from the schema.
func openAvroContainer(r io.Reader) (*avroContainer, error) {
	c := &avroContainer{r: bufio.NewReader(r)}
	magic := make([]byte, len(avroMagic))
	if _, err := io.ReadFull(c.r, magic); err != nil || !bytes.Equal(magic, avroMagic) {
		return nil, fmt.Errorf("%w: not an Avro container file (magic %q)", ErrInvalidMetadata, magic)
	}
	meta, err := c.readMetadata()
	if err != nil {
		return nil, err
	}
	c.meta = meta
	if _, err := io.ReadFull(c.r, c.sync[:]); err != nil {
		return nil, fmt.Errorf("%w: avro header: sync marker: %v", ErrInvalidMetadata, err)
	}
	c.codecName = string(meta["avro.codec"])
	return c, nil
}

func (c *avroContainer) readMetadata() (map[string][]byte, error) {
	meta := map[string][]byte{}
	for {
		n, err := binary.ReadVarint(c.r)
		if err != nil {
			return nil, fmt.Errorf("%w: avro header: %v", ErrInvalidMetadata, err)
		}
		if n == 0 {
			return meta, nil
		}
		if n < 0 { // a negative count is followed by the block's byte size
			n = -n
			if _, err := binary.ReadVarint(c.r); err != nil {
				return nil, fmt.Errorf("%w: avro header: %v", ErrInvalidMetadata, err)
			}
		}
		for ; n > 0; n-- {
			k, err := c.readBytes()
			if err != nil {
				return nil, err
			}
			v, err := c.readBytes()
			if err != nil {
				return nil, err
			}
			meta[string(k)] = v
		}
	}
}

func (c *avroContainer) readBytes() ([]byte, error) {
	n, err := binary.ReadVarint(c.r)
	if err != nil || n < 0 || n > avroMaxHeaderItem {
		return nil, fmt.Errorf("%w: avro header: bad length %d (%v)", ErrInvalidMetadata, n, err)
	}
	b, err := readExactly(c.r, n)
	if err != nil {
		return nil, fmt.Errorf("%w: avro header: %v", ErrInvalidMetadata, err)
	}
	return b, nil
}

// readExactly reads n bytes, growing the buffer as data arrives rather than
// trusting a length read from a possibly damaged file.
func readExactly(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err == nil && int64(len(b)) != n {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// metadata returns the header's key/value pairs as strings.
func (c *avroContainer) metadata() map[string]string {
	out := make(map[string]string, len(c.meta))
	for k, v := range c.meta {
		out[k] = string(v)
	}
	return out
}

// prepare parses the writer's schema and builds the goavro codec.
func (c *avroContainer) prepare() error {
	raw, ok := c.meta["avro.schema"]
	if !ok {
		return fmt.Errorf("%w: avro header has no avro.schema", ErrInvalidMetadata)
	}
	s, err := parseAvroSchema(raw)
	if err != nil {
		return err
	}
	codec, err := newAvroCodec(string(raw))
	if err != nil {
		return fmt.Errorf("%w: avro schema: %v", ErrInvalidMetadata, err)
	}
	c.schema, c.codec = s, codec
	return nil
}

// newAvroCodec builds a goavro codec, turning a panic inside goavro (it has
// a few on malformed schemas) into an error.
func newAvroCodec(schema string) (codec *goavro.Codec, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("goavro: %v", r)
		}
	}()
	return goavro.NewCodec(schema)
}

// next returns the next record's native value, or io.EOF after the last.
func (c *avroContainer) next() (v any, err error) {
	for c.remaining == 0 {
		if err := c.readBlock(); err != nil {
			return nil, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: avro datum: goavro: %v", ErrInvalidMetadata, r)
		}
	}()
	v, rest, err := c.codec.NativeFromBinary(c.block)
	if err != nil {
		return nil, fmt.Errorf("%w: avro datum: %v", ErrInvalidMetadata, err)
	}
	c.block = rest
	c.remaining--
	return v, nil
}

func (c *avroContainer) readBlock() error {
	count, err := binary.ReadVarint(c.r)
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("%w: avro block: %v", ErrInvalidMetadata, err)
	}
	size, err := binary.ReadVarint(c.r)
	if err != nil || count < 0 || size < 0 || size > avroMaxBlock {
		return fmt.Errorf("%w: avro block: %d records in %d bytes (%v)", ErrInvalidMetadata, count, size, err)
	}
	data, err := readExactly(c.r, size)
	if err != nil {
		return fmt.Errorf("%w: avro block truncated: %v", ErrInvalidMetadata, err)
	}
	var sync [avroSyncSize]byte
	if _, err := io.ReadFull(c.r, sync[:]); err != nil || sync != c.sync {
		return fmt.Errorf("%w: avro block: sync marker mismatch", ErrInvalidMetadata)
	}
	if c.block, err = avroDecompress(c.codecName, data); err != nil {
		return fmt.Errorf("%w: avro block (%s): %v", ErrInvalidMetadata, c.codecName, err)
	}
	c.remaining = count
	return nil
}

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(avroMaxBlock))
})

// avroDecompress undoes a block codec from the Avro spec.
func avroDecompress(codec string, data []byte) ([]byte, error) {
	switch codec {
	case "", "null":
		return data, nil
	case "deflate": // raw RFC 1951, no zlib header
		return readAllLimited(flate.NewReader(bytes.NewReader(data)))
	case "snappy": // the compressed bytes, then a big-endian CRC-32 of the result
		if len(data) < 4 {
			return nil, errors.New("short snappy block")
		}
		out, err := snappy.Decode(nil, data[:len(data)-4])
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(data[len(data)-4:]) {
			return nil, errors.New("snappy block checksum mismatch")
		}
		return out, nil
	case "zstandard":
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		return d.DecodeAll(data, nil)
	case "bzip2":
		return readAllLimited(bzip2.NewReader(bytes.NewReader(data)))
	}
	return nil, fmt.Errorf("unsupported codec %q", codec)
}

func readAllLimited(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, avroMaxBlock+1))
	if err == nil && len(out) > avroMaxBlock {
		err = errors.New("block too large")
	}
	return out, err
}
