package avro

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/linkedin/goavro/v2"
)

// ErrInvalid marks bytes that are not a well-formed Avro container file.
var ErrInvalid = errors.New("invalid avro container")

// ErrTooLarge marks a block larger, compressed or not, than the container's
// bound (see SetMaxBlock).
var ErrTooLarge = errors.New("avro block too large")

const (
	syncSize      = 16
	maxHeaderItem = 64 << 20  // a metadata key or value
	maxBlock      = 512 << 20 // one block, compressed or not
)

var magic = []byte("Obj\x01")

// Container reads the records of an Avro Object Container File in order.
// It is not safe for concurrent use.
type Container struct {
	r        *bufio.Reader
	counter  *countingReader
	meta     map[string][]byte
	codec    string
	sync     [syncSize]byte
	dec      *goavro.Codec
	physical bool

	// A block is read when the sync marker before it starts in
	// [start, end); end < 0 means no end.
	start, end int64

	maxBlock int64 // the most bytes a block may take, compressed or not
	size     int64 // the file's length when r tells it (Size), else -1

	block     []byte // undecoded rest of the current block
	raw, out  []byte // memory ReadBlock reuses
	remaining int64  // records left in the current block
	next      int64  // file row position of the next record in the block
	syncAt    int64  // offset of the sync marker before the next block
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// offset is the file offset of the next byte the container will read.
func (c *Container) offset() int64 { return c.counter.n - int64(c.r.Buffered()) }

// Offset returns the file offset of the next byte the container will read:
// after Open, the start of the first block.
func (c *Container) Offset() int64 { return c.offset() }

// Open reads the container header (magic, metadata and sync marker) from r.
// It decodes no further; the datum decoder is built by the first Next.
// When r has a Size method (io.SectionReader, bytes.Reader), a length read
// from the file that runs past its end is an error before it is read.
func Open(r io.Reader) (*Container, error) {
	counter := &countingReader{r: r}
	c := &Container{r: bufio.NewReader(counter), counter: counter, end: -1, maxBlock: maxBlock, size: -1}
	if s, ok := r.(interface{ Size() int64 }); ok {
		c.size = s.Size()
	}
	m := make([]byte, len(magic))
	if _, err := io.ReadFull(c.r, m); err != nil || !bytes.Equal(m, magic) {
		// The bytes read are not named: the file may be anything at all.
		return nil, fmt.Errorf("%w: not an Avro container file (no Avro magic at its start)", ErrInvalid)
	}
	meta, err := c.readMetadata()
	if err != nil {
		return nil, err
	}
	c.meta = meta
	c.syncAt = c.offset()
	if _, err := io.ReadFull(c.r, c.sync[:]); err != nil {
		return nil, fmt.Errorf("%w: header: sync marker: %v", ErrInvalid, err)
	}
	c.codec = string(meta["avro.codec"])
	return c, nil
}

// DecodePhysical makes Next return every value as its underlying Avro
// type, ignoring logical types: a date as int32 days, a timestamp as int64
// ticks, a decimal as its two's-complement bytes, a uuid as its string or
// fixed bytes. It must be called before the first Next.
func (c *Container) DecodePhysical() { c.physical = true }

// SetRange restricts reading to a split of the file, as Avro's own readers
// split files: a block is read when the sync marker that precedes it
// starts at an offset in [start, end). Row positions still count the
// records of the blocks skipped. It must be called before the first Next.
func (c *Container) SetRange(start, end int64) { c.start, c.end = start, end }

// SetMaxBlock lowers the bound on a block's bytes, compressed or
// decompressed, from its default of 512 MiB; a larger block is an error
// wrapping ErrTooLarge. Values of 0 or less, or above the default, keep the
// default.
func (c *Container) SetMaxBlock(n int64) {
	if n > 0 && n < maxBlock {
		c.maxBlock = n
	}
}

// Position returns the file row position (0-based, counting every record
// of the file) of the record the last Next returned.
func (c *Container) Position() int64 { return c.next - 1 }

func (c *Container) readMetadata() (map[string][]byte, error) {
	meta := map[string][]byte{}
	for {
		n, err := binary.ReadVarint(c.r)
		if err != nil {
			return nil, fmt.Errorf("%w: header: %v", ErrInvalid, err)
		}
		if n == 0 {
			return meta, nil
		}
		if n < 0 { // a negative count is followed by the block's byte size
			n = -n
			if _, err := binary.ReadVarint(c.r); err != nil {
				return nil, fmt.Errorf("%w: header: %v", ErrInvalid, err)
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

func (c *Container) readBytes() ([]byte, error) {
	n, err := binary.ReadVarint(c.r)
	if err != nil || n < 0 || n > maxHeaderItem || c.pastEnd(n) {
		return nil, fmt.Errorf("%w: header: bad length %d (%v)", ErrInvalid, n, err)
	}
	b, err := readExactly(c.r, nil, n)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrInvalid, err)
	}
	return b, nil
}

// pastEnd reports whether n more bytes run past the end of a file of
// known size.
func (c *Container) pastEnd(n int64) bool { return c.size >= 0 && n > c.size-c.offset() }

// readExactly reads n bytes into dst's memory when it is large enough,
// else into memory grown as data arrives rather than trusting a length read
// from a possibly damaged file.
func readExactly(r io.Reader, dst []byte, n int64) ([]byte, error) {
	if n <= int64(cap(dst)) {
		b := dst[:n]
		_, err := io.ReadFull(r, b)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return b, err
	}
	b := dst[:0]
	for int64(len(b)) < n {
		chunk := int(min(n-int64(len(b)), 1<<20))
		b = slices.Grow(b, chunk)
		m, err := io.ReadFull(r, b[len(b):len(b)+chunk])
		b = b[:len(b)+m]
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// Metadata returns the header's key/value pairs as strings.
func (c *Container) Metadata() map[string]string {
	out := make(map[string]string, len(c.meta))
	for k, v := range c.meta {
		out[k] = string(v)
	}
	return out
}

// MetadataValue returns one header value and whether it is present.
func (c *Container) MetadataValue(key string) ([]byte, bool) {
	v, ok := c.meta[key]
	return v, ok
}

// SchemaJSON returns the writer's schema, the header's "avro.schema".
func (c *Container) SchemaJSON() ([]byte, error) {
	raw, ok := c.meta["avro.schema"]
	if !ok {
		return nil, fmt.Errorf("%w: header has no avro.schema", ErrInvalid)
	}
	return raw, nil
}

// Codec returns the block codec named in the header ("" means null).
func (c *Container) Codec() string { return c.codec }

// prepare builds the goavro codec from the writer's schema.
func (c *Container) prepare() error {
	raw, err := c.SchemaJSON()
	if err != nil {
		return err
	}
	if c.physical {
		if raw, err = withoutLogicalTypes(raw); err != nil {
			return err
		}
	}
	codec, err := newCodec(string(raw))
	if err != nil {
		return fmt.Errorf("%w: schema: %v", ErrInvalid, err)
	}
	c.dec = codec
	return nil
}

// newCodec builds a goavro codec, turning a panic inside goavro (it has a
// few on malformed schemas) into an error.
func newCodec(schema string) (codec *goavro.Codec, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("goavro: %v", r)
		}
	}()
	return goavro.NewCodec(schema)
}

// Next returns the next record as a goavro native value (a record is a
// map[string]any, a non-null union branch a one-key map naming the branch),
// or io.EOF after the last record.
func (c *Container) Next() (v any, err error) {
	if c.dec == nil {
		if err := c.prepare(); err != nil {
			return nil, err
		}
	}
	for c.remaining == 0 {
		if err := c.readBlock(); err != nil {
			return nil, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: datum: goavro: %v", ErrInvalid, r)
		}
	}()
	v, rest, err := c.dec.NativeFromBinary(c.block)
	if err != nil {
		return nil, fmt.Errorf("%w: datum: %v", ErrInvalid, err)
	}
	c.block = rest
	c.remaining--
	c.next++
	return v, nil
}

// ReadBlock returns the next block in the range: its record count and its
// records' bytes, decompressed, for callers that decode records themselves
// with a Decoder; io.EOF after the last block. The bytes stay valid until
// the next ReadBlock, which reuses their memory. ReadBlock and Next do not
// mix on one Container.
func (c *Container) ReadBlock() (int64, []byte, error) {
	if c.raw == nil && c.out == nil {
		if b, ok := blockPool.Get().(*blockBuffers); ok {
			c.raw, c.out = b.raw, b.out
		}
	}
	for {
		at := c.syncAt
		count, data, err := c.readRawBlock(c.raw)
		if err != nil {
			return 0, nil, err
		}
		c.raw = data
		if at < c.start {
			c.next += count
			continue
		}
		if c.end >= 0 && at >= c.end {
			return 0, nil, io.EOF
		}
		out, err := c.decompress(c.out, data)
		if err != nil {
			return 0, nil, err
		}
		if c.codec != "" && c.codec != "null" { // else out is data itself
			c.out = out
		}
		c.next += count
		return count, out, nil
	}
}

// blockBuffers is the memory ReadBlock reads and decompresses blocks into,
// kept across containers: a process that reads thousands of manifests
// would otherwise allocate two buffers of the size of a block for each.
type blockBuffers struct{ raw, out []byte }

var blockPool sync.Pool

// maxPooledBuffer bounds the buffers kept in the pool, so that one huge
// file does not pin its memory for the life of the process.
const maxPooledBuffer = 4 << 20

// Release hands the memory of the blocks ReadBlock returned back for other
// containers to reuse; those bytes must no longer be used. The Container
// must not be used after Release.
func (c *Container) Release() {
	if cap(c.raw) <= maxPooledBuffer && cap(c.out) <= maxPooledBuffer && (c.raw != nil || c.out != nil) {
		blockPool.Put(&blockBuffers{raw: c.raw[:0], out: c.out[:0]})
	}
	c.raw, c.out = nil, nil
}

// readBlock reads the next block that lies in the range, skipping the
// others without decompressing them.
func (c *Container) readBlock() error {
	for {
		at := c.syncAt
		count, data, err := c.readRawBlock(nil)
		if err != nil {
			return err
		}
		if at < c.start {
			c.next += count
			continue
		}
		if c.end >= 0 && at >= c.end {
			return io.EOF
		}
		if c.block, err = c.decompress(nil, data); err != nil {
			return err
		}
		c.remaining = count
		return nil
	}
}

// readRawBlock reads one block's record count and compressed bytes, and
// the sync marker after it.
func (c *Container) readRawBlock(dst []byte) (int64, []byte, error) {
	count, err := binary.ReadVarint(c.r)
	if err == io.EOF {
		return 0, nil, io.EOF
	}
	if err != nil {
		return 0, nil, fmt.Errorf("%w: block: %v", ErrInvalid, err)
	}
	size, err := binary.ReadVarint(c.r)
	if err != nil || count < 0 || size < 0 {
		return 0, nil, fmt.Errorf("%w: block: %d records in %d bytes (%v)", ErrInvalid, count, size, err)
	}
	if c.pastEnd(size) {
		return 0, nil, fmt.Errorf("%w: block at offset %d of %d bytes runs past the end of the file (%d bytes)", ErrInvalid, c.syncAt, size, c.size)
	}
	if size > c.maxBlock {
		return 0, nil, fmt.Errorf("%w: block at offset %d of %d bytes, more than %d", ErrTooLarge, c.syncAt, size, c.maxBlock)
	}
	data, err := readExactly(c.r, dst, size)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: block truncated: %v", ErrInvalid, err)
	}
	c.syncAt = c.offset()
	var sync [syncSize]byte
	if _, err := io.ReadFull(c.r, sync[:]); err != nil || sync != c.sync {
		return 0, nil, fmt.Errorf("%w: block: sync marker mismatch", ErrInvalid)
	}
	return count, data, nil
}
