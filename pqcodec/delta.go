package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// DELTA_BINARY_PACKED (Parquet encodings, Delta Encoding) stores integers
// as a header, <block size in values> <miniblocks per block> <total value
// count> <first value>, the first two and the count ULEB128 and the first
// value zigzag ULEB128, then blocks of the deltas between consecutive
// values: <min delta, zigzag ULEB128> <one bit width byte per miniblock>
// <the miniblocks>, each miniblock the deltas less min delta bit-packed
// least significant bit first in the miniblock's width. The block size is
// a multiple of 128 and a miniblock's values a multiple of 32, so every
// miniblock starts and ends on a byte boundary. Arithmetic wraps in the
// physical type's two's complement; adding in 64 bits and keeping the low
// 32 gives the same INT32 values.
//
// The last block's unneeded miniblocks keep their bit width bytes (any
// value) but have no bodies; the last needed miniblock is padded to its
// full length.

// maxDeltaBlock bounds a block's stated size in values. Writers use 128
// (parquet-mr, Arrow C++, arrow-go) to a few thousand; nothing is sized by
// it, but it keeps the arithmetic on it far from overflow.
const maxDeltaBlock = 1 << 20

var errDeltaPastEnd = errors.New("DELTA_BINARY_PACKED data runs past the end of its page")

// deltaDecoder streams the values of one DELTA_BINARY_PACKED sequence. It
// decodes only what it is asked for, so a page's values are never held
// whole: a sequence of equal values takes a few bytes a block however many
// values it states.
type deltaDecoder struct {
	data     []byte
	pos      int // the next unread byte: a block header, or the open miniblock's end
	maxWidth int // 32 for INT32 values, 64 for INT64

	miniblocks int // miniblocks per block
	miniSize   int // values per miniblock
	total      int // values the sequence states

	left     int    // values not yet returned
	started  bool   // the first value was returned
	last     uint64 // the value returned last
	minDelta uint64
	widths   []byte // bit widths of the open block's miniblocks
	mini     int    // index of the open miniblock in its block
	miniLeft int    // deltas of the open miniblock not yet returned
	width    int    // bit width of the open miniblock
	bit      int    // bit offset in data of the open miniblock's next delta
}

// reset starts decoding the sequence at the head of data. It holds at most
// maxCount values (the page's values), each of at most maxWidth bits.
func (d *deltaDecoder) reset(data []byte, maxWidth, maxCount int) error {
	*d = deltaDecoder{data: data, maxWidth: maxWidth}
	blockSize, err := d.uvarint()
	if err != nil {
		return fmt.Errorf("block size: %w", err)
	}
	if blockSize == 0 || blockSize%128 != 0 || blockSize > maxDeltaBlock {
		return fmt.Errorf("DELTA_BINARY_PACKED block of %d values", blockSize)
	}
	miniblocks, err := d.uvarint()
	if err != nil {
		return fmt.Errorf("miniblock count: %w", err)
	}
	if miniblocks == 0 || blockSize%miniblocks != 0 || (blockSize/miniblocks)%32 != 0 {
		return fmt.Errorf("DELTA_BINARY_PACKED block of %d values in %d miniblocks", blockSize, miniblocks)
	}
	total, err := d.uvarint()
	if err != nil {
		return fmt.Errorf("value count: %w", err)
	}
	if total > uint64(maxCount) {
		return fmt.Errorf("DELTA_BINARY_PACKED sequence of %d values in a page of %d", total, maxCount)
	}
	first, err := d.uvarint()
	if err != nil {
		return fmt.Errorf("first value: %w", err)
	}
	d.miniblocks, d.miniSize = int(miniblocks), int(blockSize/miniblocks)
	d.total, d.left = int(total), int(total)
	d.last = unzigzag(first)
	// The first miniblock opened also opens the first block.
	d.mini = d.miniblocks - 1
	return nil
}

// uvarint reads a ULEB128 number.
func (d *deltaDecoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.data[d.pos:])
	if n == 0 {
		return 0, errDeltaPastEnd
	}
	if n < 0 {
		return 0, errors.New("varint overflows 64 bits")
	}
	d.pos += n
	return v, nil
}

// unzigzag maps a zigzag-encoded number to its two's complement bits.
func unzigzag(u uint64) uint64 { return (u >> 1) ^ -(u & 1) }

// nextMiniblock opens the next miniblock, and the next block when the open
// one is done; d.left > 0 and the first value was returned.
func (d *deltaDecoder) nextMiniblock() error {
	d.mini++
	if d.mini == d.miniblocks {
		u, err := d.uvarint()
		if err != nil {
			return fmt.Errorf("min delta: %w", err)
		}
		d.minDelta = unzigzag(u)
		if d.miniblocks > len(d.data)-d.pos {
			return errDeltaPastEnd
		}
		d.widths = d.data[d.pos : d.pos+d.miniblocks]
		d.pos += d.miniblocks
		d.mini = 0
	}
	w := int(d.widths[d.mini])
	if w > d.maxWidth {
		return fmt.Errorf("DELTA_BINARY_PACKED bit width %d for values of %d bits", w, d.maxWidth)
	}
	// A miniblock of 32k values of w bits takes exactly 4kw bytes.
	body := d.miniSize / 8 * w
	if body > len(d.data)-d.pos {
		return errDeltaPastEnd
	}
	d.width, d.bit = w, 8*d.pos
	d.pos += body
	d.miniLeft = min(d.miniSize, d.left)
	return nil
}

// end returns the offset in data of the first byte past the sequence: the
// start of what follows it in DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
// pages. d must be freshly reset; it is not changed.
func (d *deltaDecoder) end() (int, error) {
	s := *d
	if s.left > 0 {
		s.left--
	}
	// Each pass takes a miniblock's width byte, so the loop ends within
	// len(data) passes whatever the stated count.
	for s.left > 0 {
		if err := s.nextMiniblock(); err != nil {
			return 0, err
		}
		s.left -= s.miniLeft
	}
	return s.pos, nil
}

// deltaDecode writes the next len(dst) values of d's sequence into dst,
// each truncated to T: INT32 values wrap at 32 bits.
func deltaDecode[T uint32 | uint64](d *deltaDecoder, dst []T) error {
	if len(dst) > d.left {
		return fmt.Errorf("%d DELTA_BINARY_PACKED values asked of a sequence with %d left", len(dst), d.left)
	}
	if len(dst) > 0 && !d.started {
		dst[0] = T(d.last)
		dst = dst[1:]
		d.started = true
		d.left--
	}
	for len(dst) > 0 {
		if d.miniLeft == 0 {
			if err := d.nextMiniblock(); err != nil {
				return err
			}
		}
		k := min(d.miniLeft, len(dst))
		d.last = unpackDeltas(dst[:k], d.data, d.bit, d.width, d.minDelta, d.last)
		d.bit += k * d.width
		d.miniLeft -= k
		d.left -= k
		dst = dst[k:]
	}
	return nil
}

// unpackDeltas decodes len(dst) deltas of width bits from bit offset bit
// of data, each plus minDelta, as a running sum from last, and returns the
// final sum. The miniblock's body lies within data.
func unpackDeltas[T uint32 | uint64](dst []T, data []byte, bit, width int, minDelta, last uint64) uint64 {
	if width == 0 {
		for i := range dst {
			last += minDelta
			dst[i] = T(last)
		}
		return last
	}
	// A shift by 64 is 0 in Go, so width 64 gives the mask of all ones.
	mask := uint64(1)<<uint(width) - 1
	i := 0
	// A delta of up to 57 bits lies within the 8 bytes from its first one,
	// whatever its bit offset there; the loop stops while 8 remain.
	if width <= 57 {
		for ; i < len(dst) && bit>>3+8 <= len(data); i++ {
			v := binary.LittleEndian.Uint64(data[bit>>3:]) >> uint(bit&7) & mask
			last += v + minDelta
			dst[i] = T(last)
			bit += width
		}
	}
	for ; i < len(dst); i++ {
		last += readBits(data, bit, width) + minDelta
		dst[i] = T(last)
		bit += width
	}
	return last
}

// readBits returns the width bits (at most 64) of data from bit offset
// bit, least significant first, reading only the bytes that hold them.
func readBits(data []byte, bit, width int) uint64 {
	p, s := bit>>3, uint(bit&7)
	n := (int(s) + width + 7) / 8
	v := uint64(data[p]) >> s
	for j := 1; j < n; j++ {
		v |= uint64(data[p+j]) << (8*uint(j) - s)
	}
	if width < 64 {
		v &= 1<<uint(width) - 1
	}
	return v
}
