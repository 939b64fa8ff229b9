package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// ErrCorrupt marks a column chunk whose pages contradict themselves or the
// file's metadata.
var ErrCorrupt = errors.New("corrupt parquet column chunk")

// valueKind is how a physical type's values are laid out in Arrow.
type valueKind int

const (
	kindFixed   valueKind = iota // width bytes per value
	kindBool                     // one bit per value
	kindBinary                   // int32 offsets and bytes
	kindDecimal                  // physWidth bytes per value widened to 16
)

// ColumnReader decodes one column chunk of a flat column into Arrow
// arrays, a batch of rows at a time. It is not safe for concurrent use.
type ColumnReader struct {
	mem     memory.Allocator
	out     arrow.DataType // the array type Read returns
	values  arrow.DataType // out's value type (out itself unless a dictionary)
	dictOut bool
	kind    valueKind
	width   int // bytes per Arrow value for kindFixed and kindDecimal
	// physWidth is the stored width of a decimal: 4 (INT32), 8 (INT64)
	// or a FIXED_LEN_BYTE_ARRAY's length, which is big-endian.
	physWidth int
	bigEndian bool
	phys      parquet.Type
	maxDef    int16
	codec     compress.Compression

	src        *pageSource
	valuesLeft int64 // values the chunk still holds beyond the open page
	decoded    []byte
	dict       *dictionary

	page      page
	scratch   []uint32 // dictionary indices of a run; BIT_PACKED levels
	pageValid []byte   // the open page's validity bits
	boolBits  []byte   // RLE booleans of a run
	keys      []int32  // dictionary indices of a run's rows, nulls included
	avgBinary int      // bytes per binary value in the last batch, to size the next
	maxBatch  int      // SetMaxBatchBytes's bound; 0: Arrow's
	lens      []uint32 // DELTA_BYTE_ARRAY suffix lengths of a run
	prev      []byte   // DELTA_BYTE_ARRAY: the page's last value read
	fixed     []uint64 // encoded decimals of a run, before they are widened

	nest *nesting // a nested leaf's levels (levels.go); nil for a flat column
}

// page is the state of the open data page.
type page struct {
	left    int    // values not yet read
	valid   []byte // the page's validity bits, from bit at on; nil: all valid
	at      int
	enc     int32
	plain   []byte     // PLAIN values not yet read
	boolBit int        // bit offset into plain of the next PLAIN boolean
	idx     rleDecoder // dictionary indices, or RLE booleans

	ints  deltaDecoder // DELTA_BINARY_PACKED values
	delta deltaBytes   // DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY values
	split splitStreams // BYTE_STREAM_SPLIT values
}

// NewColumnReader returns a reader of column chunk cc of col in a file of
// md, read from r, or from chunk when the chunk's bytes are already in
// memory (as [ChunkRange] places them). out must pass [Supported].
func NewColumnReader(mem memory.Allocator, r io.ReaderAt, chunk []byte, md *metadata.FileMetaData,
	cc *metadata.ColumnChunkMetaData, col *schema.Column, out arrow.DataType) (*ColumnReader, error) {
	if !Supported(cc, col, out) {
		return nil, fmt.Errorf("column %s: chunk of %s as %s is not decoded here", col.Path(), col.PhysicalType(), out)
	}
	return newColumnReader(mem, r, chunk, md, cc, col, out)
}

// newColumnReader is NewColumnReader once the chunk is known to be
// covered, flat or nested.
func newColumnReader(mem memory.Allocator, r io.ReaderAt, chunk []byte, md *metadata.FileMetaData,
	cc *metadata.ColumnChunkMetaData, col *schema.Column, out arrow.DataType) (*ColumnReader, error) {
	c := &ColumnReader{mem: mem, out: out, values: out, phys: col.PhysicalType(), maxDef: col.MaxDefinitionLevel(), codec: cc.Compression()}
	if d, ok := out.(*arrow.DictionaryType); ok {
		c.dictOut, c.values = true, d.ValueType
	}
	switch col.PhysicalType() {
	case parquet.Types.Boolean:
		c.kind = kindBool
	case parquet.Types.Int32, parquet.Types.Float:
		c.kind, c.width = kindFixed, 4
	case parquet.Types.Int64, parquet.Types.Double:
		c.kind, c.width = kindFixed, 8
	case parquet.Types.FixedLenByteArray:
		c.kind, c.width = kindFixed, col.TypeLength()
	case parquet.Types.ByteArray:
		c.kind = kindBinary
	}
	if c.values.ID() == arrow.DECIMAL128 {
		c.physWidth, c.bigEndian = c.width, col.PhysicalType() == parquet.Types.FixedLenByteArray
		c.kind, c.width = kindDecimal, 16
	}
	off, n := ChunkRange(md, cc)
	if chunk != nil && int64(len(chunk)) < n {
		n = int64(len(chunk))
	}
	if chunk != nil {
		chunk = chunk[:n]
	}
	if cc.NumValues() < 0 {
		return nil, fmt.Errorf("%w: %d values", ErrCorrupt, cc.NumValues())
	}
	c.src = newPageSource(r, chunk, off, n)
	c.valuesLeft = cc.NumValues()
	return c, nil
}

// Release frees the dictionary the reader holds.
func (c *ColumnReader) Release() {
	if c.dict != nil {
		c.dict.release()
		c.dict = nil
	}
}

// Read returns the next n values of the chunk as an array of the reader's
// type. Asking for more values than the chunk holds is an error.
func (c *ColumnReader) Read(n int) (arrow.Array, error) {
	b, err := c.newBatch(n)
	if err != nil {
		return nil, err
	}
	defer b.release()
	for pos := 0; pos < n; {
		if c.page.left == 0 {
			if err := c.nextPage(); err != nil {
				return nil, err
			}
			continue
		}
		k := min(c.page.left, n-pos)
		if err := c.readRun(b, pos, k); err != nil {
			return nil, err
		}
		c.page.left -= k
		pos += k
	}
	return b.finish(c)
}

// nextPage opens the next data page, reading the dictionary page on its way.
func (c *ColumnReader) nextPage() error {
	_, err := c.nextPageSkipping(0)
	return err
}

func (c *ColumnReader) openDataPage(h pageHeader, body []byte) error {
	if (h.typ == pageData && !h.hasData) || (h.typ == pageDataV2 && !h.hasDataV2) {
		return errors.New("page header lacks its data page header")
	}
	if h.numValues < 0 || int64(h.numValues) > c.valuesLeft {
		return fmt.Errorf("page of %d values where the chunk has %d left", h.numValues, c.valuesLeft)
	}
	n := int(h.numValues)
	c.page = page{left: n, enc: h.encoding}
	// levels is a v2 page's level sections, which are never compressed;
	// a v1 page's levels lead its (decompressed) values.
	var levels, values []byte
	if h.typ == pageDataV2 {
		if h.repLen != 0 && c.nest == nil {
			return fmt.Errorf("repetition levels (%d bytes) in a flat column", h.repLen)
		}
		ll := int64(h.repLen) + int64(h.defLen)
		if h.repLen < 0 || h.defLen < 0 || ll > int64(len(body)) || ll > int64(h.uncompressedSize) {
			return fmt.Errorf("levels of %d+%d bytes in a page of %d", h.repLen, h.defLen, len(body))
		}
		levels, values = body[:ll], body[ll:]
		if h.isCompressed {
			var err error
			if values, err = c.decompress(values, int(int64(h.uncompressedSize)-ll)); err != nil {
				return err
			}
		} else if int64(len(values)) != int64(h.uncompressedSize)-ll {
			return fmt.Errorf("uncompressed page holds %d bytes, its header says %d", len(values), int64(h.uncompressedSize)-ll)
		}
	} else {
		var err error
		if values, err = c.decompress(body, int(h.uncompressedSize)); err != nil {
			return err
		}
	}
	c.valuesLeft -= int64(n)
	if c.nest != nil {
		var err error
		if values, err = c.openLevels(h, n, levels, values); err != nil {
			return err
		}
		return c.openValues(values)
	}
	if c.maxDef == 0 {
		return c.openValues(values)
	}
	if h.typ == pageDataV2 {
		if err := c.rleValidity(levels, n); err != nil {
			return err
		}
		return c.openValues(values)
	}
	switch h.defEnc {
	case encRLE:
		l, err := levelsLength(values)
		if err != nil {
			return err
		}
		if err := c.rleValidity(values[4:4+l], n); err != nil {
			return err
		}
		values = values[4+l:]
	case encBitPacked:
		l := (n + 7) / 8
		if l > len(values) {
			return errors.New("bit-packed definition levels run past the page")
		}
		if err := c.bitPackedValidity(values[:l], n); err != nil {
			return err
		}
		values = values[l:]
	default:
		return fmt.Errorf("definition levels in encoding %d", h.defEnc)
	}
	return c.openValues(values)
}

// levelsLength reads the 4-byte little-endian length that leads a v1
// page's RLE levels, checked against the bytes that follow it.
func levelsLength(data []byte) (int, error) {
	if len(data) < 4 {
		return 0, errors.New("levels' length runs past the page")
	}
	l := int(binary.LittleEndian.Uint32(data))
	if l < 0 || l > len(data)-4 {
		return 0, fmt.Errorf("levels of %d bytes in a page of %d", l, len(data))
	}
	return l, nil
}

// rleValidity decodes a page's definition levels into its validity bits,
// leaving valid nil when every value is present.
func (c *ColumnReader) rleValidity(levels []byte, n int) error {
	bits := c.validityScratch(n)
	d := rleDecoder{}
	if err := d.reset(levels, 1); err != nil {
		return err
	}
	ones, err := d.decodeBits(bits, 0, n)
	if err != nil {
		return fmt.Errorf("definition levels: %w", err)
	}
	if ones < n {
		c.page.valid = bits
	}
	return nil
}

func (c *ColumnReader) bitPackedValidity(levels []byte, n int) error {
	bits := c.validityScratch(n)
	lv := c.uint32Scratch(n)
	if err := bitPackedLevels(levels, 1, n, lv); err != nil {
		return err
	}
	for i, v := range lv {
		bitutil.SetBitTo(bits, i, v == 1)
	}
	if bitutil.CountSetBits(bits, 0, n) < n {
		c.page.valid = bits
	} else {
		c.page.valid = nil
	}
	return nil
}

func (c *ColumnReader) validityScratch(n int) []byte {
	nb := int(bitutil.BytesForBits(int64(n)))
	if cap(c.pageValid) < nb {
		c.pageValid = make([]byte, nb)
	}
	return c.pageValid[:nb]
}

func (c *ColumnReader) uint32Scratch(n int) []uint32 {
	if cap(c.scratch) < n {
		c.scratch = make([]uint32, n)
	}
	return c.scratch[:n]
}

// openValues prepares the value section of the open page.
func (c *ColumnReader) openValues(values []byte) error {
	switch c.page.enc {
	case encPlain:
		if c.dictOut {
			return errors.New("PLAIN page in a chunk read as a dictionary")
		}
		c.page.plain = values
		return nil
	case encPlainDictionary, encRLEDictionary:
		if c.dict == nil {
			return errors.New("dictionary-encoded page before any dictionary page")
		}
		if len(values) == 0 {
			if c.page.left > 0 && c.presentIn(0, c.page.left) > 0 {
				return errors.New("dictionary indices missing")
			}
			return c.page.idx.reset(nil, 0)
		}
		return c.page.idx.reset(values[1:], int(values[0]))
	case encRLE:
		if c.kind != kindBool {
			return fmt.Errorf("RLE values of a non-boolean column")
		}
		if len(values) < 4 {
			return errors.New("RLE booleans' length runs past the page")
		}
		l := int(uint32(values[0]) | uint32(values[1])<<8 | uint32(values[2])<<16 | uint32(values[3])<<24)
		if l < 0 || l > len(values)-4 {
			return fmt.Errorf("RLE booleans of %d bytes in %d", l, len(values)-4)
		}
		return c.page.idx.reset(values[4:4+l], 1)
	}
	if isEncoded(c.page.enc) {
		return c.openEncoded(values)
	}
	return fmt.Errorf("value encoding %d is not decoded here", c.page.enc)
}

// presentIn returns how many of the open page's values at [from, from+k)
// are not null.
func (c *ColumnReader) presentIn(from, k int) int {
	if c.page.valid == nil {
		return k
	}
	return bitutil.CountSetBits(c.page.valid, from, k)
}

func (c *ColumnReader) decompress(src []byte, size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("page of %d bytes", size)
	}
	out, err := decompress(c.codec, c.decoded, src, size)
	if err != nil {
		return nil, err
	}
	if c.codec != compress.Codecs.Uncompressed {
		c.decoded = out
	}
	return out, nil
}

// readRun decodes the next k values of the open page into b from row pos.
func (c *ColumnReader) readRun(b *batch, pos, k int) error {
	from := int(c.pageValuesRead())
	present := k
	if b.valid != nil {
		if c.page.valid == nil {
			bitutil.SetBitsTo(b.valid, int64(pos), int64(k), true)
		} else {
			bitutil.CopyBitmap(c.page.valid, from, k, b.valid, pos)
			present = bitutil.CountSetBits(b.valid, pos, k)
		}
		b.nulls += k - present
	}
	c.page.at += k
	if c.dictOut {
		return c.readIndices(b, pos, k, present)
	}
	switch c.kind {
	case kindFixed, kindDecimal:
		return c.readFixed(b, pos, k, present)
	case kindBool:
		return c.readBools(b, pos, k, present)
	default:
		return c.readBinary(b, pos, k, present)
	}
}

// pageValuesRead is how many of the open page's values were read before.
func (c *ColumnReader) pageValuesRead() int { return c.page.at }
