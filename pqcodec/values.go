package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batch is the Arrow buffers one Read fills. Every byte a result holds is
// written by the decoder, null slots with zeros, so that memory an
// allocator recycles never reaches a client.
type batch struct {
	n        int
	validBuf *memory.Buffer // nil for a required column
	valid    []byte
	nulls    int
	valsBuf  *memory.Buffer // fixed values, booleans or dictionary indices
	vals     []byte
	offsBuf  *memory.Buffer
	offs     []int32
	dataBuf  *memory.Buffer
	data     []byte // dataBuf's capacity
	dlen     int
	maxData  int // bound of dlen (SetMaxBatchBytes)
}

func (c *ColumnReader) newBatch(n int) (*batch, error) {
	if n < 0 || int64(n) > c.valuesLeft+int64(c.page.left) {
		return nil, fmt.Errorf("%w: %d values asked of a chunk with %d left", ErrCorrupt, n, c.valuesLeft+int64(c.page.left))
	}
	b := &batch{maxData: c.maxBatchBytes()}
	if c.maxDef > 0 {
		b.validBuf = memory.NewResizableBuffer(c.mem)
	}
	switch {
	case c.dictOut, c.kind == kindFixed, c.kind == kindDecimal, c.kind == kindBool:
		b.valsBuf = memory.NewResizableBuffer(c.mem)
	default:
		b.offsBuf = memory.NewResizableBuffer(c.mem)
		b.dataBuf = memory.NewResizableBuffer(c.mem)
		b.dataBuf.Reserve(min(max(c.avgBinary, 8)*n, b.maxData))
		b.data = b.dataBuf.Buf()
	}
	b.resize(c, n)
	return b, nil
}

// resize makes the batch n values long, keeping the values it holds: a
// nested leaf's batch learns its length a page at a time. Validity bits
// and booleans past the kept values are cleared, as every byte a result
// holds is written here.
func (b *batch) resize(c *ColumnReader, n int) {
	old := b.n
	b.n = n
	if b.validBuf != nil {
		keep := int(bitutil.BytesForBits(int64(old)))
		b.validBuf.Resize(int(bitutil.BytesForBits(int64(n))))
		b.valid = b.validBuf.Bytes()
		if keep < len(b.valid) {
			clear(b.valid[keep:])
		}
	}
	switch {
	case c.dictOut:
		b.valsBuf.Resize(4 * n)
	case c.kind == kindFixed, c.kind == kindDecimal:
		b.valsBuf.Resize(c.width * n)
	case c.kind == kindBool:
		keep := int(bitutil.BytesForBits(int64(old)))
		b.valsBuf.Resize(int(bitutil.BytesForBits(int64(n))))
		if vals := b.valsBuf.Bytes(); keep < len(vals) {
			clear(vals[keep:])
		}
	default:
		b.offsBuf.Resize(4 * (n + 1))
		b.offs = arrow.Int32Traits.CastFromBytes(b.offsBuf.Bytes())
		if old == 0 {
			b.offs[0] = 0
		}
	}
	if b.valsBuf != nil {
		b.vals = b.valsBuf.Bytes()
	}
}

func (b *batch) release() {
	for _, buf := range []*memory.Buffer{b.validBuf, b.valsBuf, b.offsBuf, b.dataBuf} {
		if buf != nil {
			buf.Release()
		}
	}
}

// finish returns the batch as an array; the batch's buffers are still
// released by the caller.
func (b *batch) finish(c *ColumnReader) (arrow.Array, error) {
	valid := b.validBuf
	if b.nulls == 0 {
		valid = nil
	}
	var bufs []*memory.Buffer
	switch {
	case c.dictOut:
		idx := array.NewData(arrow.PrimitiveTypes.Int32, b.n, []*memory.Buffer{valid, b.valsBuf}, nil, b.nulls, 0)
		defer idx.Release()
		indices := array.MakeFromData(idx)
		defer indices.Release()
		return array.NewDictionaryArray(c.out, indices, c.dict.arrayOrEmpty(c.mem, c.values)), nil
	case c.kind == kindBinary:
		b.dataBuf.ResizeNoShrink(b.dlen)
		if b.n > 0 {
			c.avgBinary = b.dlen/b.n + 1
		}
		bufs = []*memory.Buffer{valid, b.offsBuf, b.dataBuf}
	default:
		bufs = []*memory.Buffer{valid, b.valsBuf}
	}
	d := array.NewData(c.out, b.n, bufs, nil, b.nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// arrayOrEmpty returns the dictionary as an array, or an empty one for a
// chunk whose values are all null and that wrote no dictionary page.
func (d *dictionary) arrayOrEmpty(mem memory.Allocator, vt arrow.DataType) arrow.Array {
	if d == nil {
		return emptyDictionary(mem, vt)
	}
	return d.array(mem, vt)
}

func emptyDictionary(mem memory.Allocator, vt arrow.DataType) arrow.Array {
	return array.MakeArrayOfNull(mem, vt, 0)
}

// isValid reports whether row i of the batch holds a value.
func (b *batch) isValid(i int) bool { return b.valid == nil || bitutil.BitIsSet(b.valid, i) }

func (c *ColumnReader) readFixed(b *batch, pos, k, present int) error {
	w := c.width
	out := b.vals[w*pos : w*(pos+k)]
	if c.page.enc == encPlain && c.kind == kindDecimal {
		return c.readDecimals(b, out, pos, k, present)
	}
	if c.page.enc == encPlain {
		need := w * present
		if need > len(c.page.plain) {
			return fmt.Errorf("%w: PLAIN page holds %d bytes, %d values of %d bytes need %d", ErrCorrupt, len(c.page.plain), present, w, need)
		}
		src := c.page.plain[:need]
		c.page.plain = c.page.plain[need:]
		if present == k {
			copy(out, src)
			return nil
		}
		for i := range k {
			o := out[w*i : w*(i+1)]
			if b.isValid(pos + i) {
				copy(o, src[:w])
				src = src[w:]
			} else {
				clear(o)
			}
		}
		return nil
	}
	if isEncoded(c.page.enc) {
		return c.readEncodedFixed(b, out, pos, k, present)
	}
	return c.readDictFixed(b, out, pos, k, present)
}

// readDecimals widens the next present PLAIN decimals into out's 16-byte
// slots, zeros in the null ones.
func (c *ColumnReader) readDecimals(b *batch, out []byte, pos, k, present int) error {
	pw := c.physWidth
	need := pw * present
	if need > len(c.page.plain) {
		return fmt.Errorf("%w: PLAIN page holds %d bytes, %d decimals of %d bytes need %d", ErrCorrupt, len(c.page.plain), present, pw, need)
	}
	src := c.page.plain[:need]
	c.page.plain = c.page.plain[need:]
	c.widenRun(b, out, src, pos, k)
	return nil
}

// widenRun widens the run's present decimals, stored one after another in
// src, into out's 16-byte slots, zeros in the null ones.
func (c *ColumnReader) widenRun(b *batch, out, src []byte, pos, k int) {
	pw := c.physWidth
	for i := range k {
		o := out[16*i : 16*(i+1)]
		if b.isValid(pos + i) {
			c.widenDecimal(o, src[:pw])
			src = src[pw:]
		} else {
			clear(o)
		}
	}
}

// widenDecimal writes one stored decimal as Arrow's 16-byte little-endian
// two's complement.
func (c *ColumnReader) widenDecimal(dst, src []byte) {
	var lo, hi uint64
	switch {
	case !c.bigEndian && len(src) == 4:
		v := int64(int32(binary.LittleEndian.Uint32(src)))
		lo, hi = uint64(v), uint64(v>>63)
	case !c.bigEndian:
		v := int64(binary.LittleEndian.Uint64(src))
		lo, hi = uint64(v), uint64(v>>63)
	default:
		var be [16]byte
		if len(src) > 0 && src[0]&0x80 != 0 {
			for i := range be {
				be[i] = 0xff
			}
		}
		copy(be[16-len(src):], src)
		hi, lo = binary.BigEndian.Uint64(be[:8]), binary.BigEndian.Uint64(be[8:])
	}
	binary.LittleEndian.PutUint64(dst, lo)
	binary.LittleEndian.PutUint64(dst[8:], hi)
}

// castSlice views an Arrow buffer's bytes as values of T: Arrow's
// allocators align buffers to 64 bytes.
func castSlice[T uint32 | uint64](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(zero)))
}

func (c *ColumnReader) readBools(b *batch, pos, k, present int) error {
	var src []byte
	var at int
	if c.page.enc == encRLE {
		nb := int(bitutil.BytesForBits(int64(present)))
		if cap(c.boolBits) < nb {
			c.boolBits = make([]byte, nb)
		}
		src = c.boolBits[:nb]
		if _, err := c.page.idx.decodeBits(src, 0, present); err != nil {
			return fmt.Errorf("%w: RLE booleans: %v", ErrCorrupt, err)
		}
	} else {
		src, at = c.page.plain, c.page.boolBit
		if at+present > 8*len(src) {
			return fmt.Errorf("%w: PLAIN page holds %d booleans, %d more asked", ErrCorrupt, 8*len(src)-at, present)
		}
		c.page.boolBit += present
	}
	if present == k {
		bitutil.CopyBitmap(src, at, k, b.vals, pos)
		return nil
	}
	for i := range k {
		set := false
		if b.isValid(pos + i) {
			set = bitutil.BitIsSet(src, at)
			at++
		}
		bitutil.SetBitTo(b.vals, pos+i, set)
	}
	return nil
}

// ErrTooLarge marks a batch whose variable-length values would pass the
// reader's bound (SetMaxBatchBytes, and Arrow's int32 offsets in any case):
// a legitimate file can ask it of a batch of huge values, a hostile one of
// a few bytes, with DELTA_BYTE_ARRAY values that share long prefixes.
var ErrTooLarge = errors.New("parquet batch too large")

// SetMaxBatchBytes bounds the bytes of variable-length values that one
// Read may return; n <= 0 leaves the bound Arrow's, 2 GiB.
func (c *ColumnReader) SetMaxBatchBytes(n int64) {
	c.maxBatch = 0
	if n > 0 && n < math.MaxInt32 {
		c.maxBatch = int(n)
	}
}

func (c *ColumnReader) maxBatchBytes() int {
	if c.maxBatch > 0 {
		return c.maxBatch
	}
	return math.MaxInt32
}

// grow makes room for add more bytes of binary values, growing the buffer
// by doubling but never past the batch's bound.
func (b *batch) grow(add int) error {
	need := b.dlen + add
	if need > b.maxData || need < b.dlen {
		return fmt.Errorf("%w: a batch's binary values pass %d bytes", ErrTooLarge, b.maxData)
	}
	if need > len(b.data) {
		b.dataBuf.ResizeNoShrink(b.dlen)
		b.dataBuf.Reserve(min(max(need, 2*len(b.data)), b.maxData))
		b.data = b.dataBuf.Buf()
	}
	return nil
}

func (c *ColumnReader) readBinary(b *batch, pos, k, present int) error {
	switch c.page.enc {
	case encPlain:
		return c.readPlainBinary(b, pos, k, present)
	case encDeltaLength:
		return c.readDeltaLength(b, pos, k, present)
	case encDeltaByteArray:
		return c.readDeltaByteArray(b, pos, k, present)
	}
	return c.readDictBinary(b, pos, k, present)
}

// readPlainBinary copies PLAIN byte arrays, each a 4-byte length and the
// bytes. The page bounds what the run can copy, so the data buffer grows
// at most once a run; short values move as one 16-byte word where the
// page and the buffer have the room, with no call to memmove.
func (c *ColumnReader) readPlainBinary(b *batch, pos, k, present int) error {
	src := c.page.plain
	// Room for the rest of the page at once where the batch's bound allows
	// it; a value past the room grows the buffer, or fails, on its own.
	if err := b.grow(max(min(len(src)-4*present, b.maxData-b.dlen-16), 0) + 16); err != nil {
		return err
	}
	data, at := b.data, b.dlen
	offs := b.offs
	for i := range k {
		if b.isValid(pos + i) {
			if len(src) < 4 {
				return fmt.Errorf("%w: PLAIN value's length runs past the page", ErrCorrupt)
			}
			l := int(binary.LittleEndian.Uint32(src))
			if l < 0 || l > len(src)-4 {
				return fmt.Errorf("%w: PLAIN value of %d bytes runs past the page", ErrCorrupt, l)
			}
			if l > len(data)-at {
				b.dlen = at
				if err := b.grow(l + 16); err != nil {
					return err
				}
				data = b.data
			}
			if l <= 16 && len(src) >= 20 && len(data)-at >= 16 {
				*(*[16]byte)(data[at:]) = *(*[16]byte)(src[4:])
				at += l
			} else {
				at += copy(data[at:], src[4:4+l])
			}
			src = src[4+l:]
		}
		offs[pos+i+1] = int32(at)
	}
	b.dlen = at
	c.page.plain = src
	return nil
}
