package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// The RLE/bit-packing hybrid (Parquet encodings: RLE) carries definition
// levels, dictionary indices and v2 booleans: a run header varint whose low
// bit says whether a run of one repeated value (its count in the other
// bits, the value in ceil(width/8) little-endian bytes) or groups of eight
// values bit-packed least significant bit first follow.

var errRunPastEnd = errors.New("RLE run runs past the end of its data")

// rleDecoder reads values of one bit width from hybrid-encoded bytes.
type rleDecoder struct {
	data  []byte
	pos   int
	width uint
	mask  uint64

	rleLeft int    // values left in the current repeated run
	rleVal  uint32 // its value
	bpLeft  int    // values left in the current bit-packed run
	bpBit   int    // bit offset of the next bit-packed value within data
	bpStart int    // bit offset of the current bit-packed run's first value
}

func (d *rleDecoder) reset(data []byte, width int) error {
	if width < 0 || width > 32 {
		return fmt.Errorf("RLE bit width %d", width)
	}
	*d = rleDecoder{data: data, width: uint(width), mask: 1<<uint(width) - 1}
	return nil
}

// nextRun reads the next run header.
func (d *rleDecoder) nextRun() error {
	h, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		if n == 0 {
			return errRunPastEnd
		}
		return errors.New("RLE run header overflows")
	}
	d.pos += n
	if h&1 == 1 {
		groups := h >> 1
		if groups == 0 || groups > uint64(len(d.data)) {
			return errRunPastEnd
		}
		bytes := int(groups) * int(d.width)
		// A writer may end the last run short of its stated groups (the
		// spec lets the final group be padded, and some writers cut it):
		// the values that fit are readable, the rest are an error when
		// asked for.
		avail := len(d.data) - d.pos
		vals := int(groups) * 8
		if bytes > avail {
			if d.width == 0 {
				return errRunPastEnd
			}
			vals = avail * 8 / int(d.width)
			bytes = avail
		}
		d.bpLeft = vals
		d.bpBit = d.pos * 8
		d.bpStart = d.bpBit
		d.pos += bytes
		return nil
	}
	count := h >> 1
	if count == 0 || count > 1<<31 {
		return fmt.Errorf("RLE run of %d values", count)
	}
	nb := int(d.width+7) / 8
	if nb > len(d.data)-d.pos {
		return errRunPastEnd
	}
	var v uint32
	for i := range nb {
		v |= uint32(d.data[d.pos+i]) << (8 * i)
	}
	if uint64(v) > d.mask {
		return fmt.Errorf("RLE value %d does not fit %d bits", v, d.width)
	}
	d.pos += nb
	d.rleLeft = int(count)
	d.rleVal = v
	return nil
}

// unpack writes the next len(dst) bit-packed values of the current run,
// len(dst) <= d.bpLeft, and returns the largest of them: dictionary
// indices are checked against the dictionary by that one number, with no
// second pass over them.
func (d *rleDecoder) unpack(dst []uint32) (hi uint32) {
	w := int(d.width)
	if w == 0 {
		clear(dst)
		d.bpLeft -= len(dst)
		return 0
	}
	bit := d.bpBit
	// Groups of eight values start on byte boundaries, counted from the
	// run's start; a read that stopped inside a group (a run of rows with
	// nulls asks for any number of values) finishes that group one value
	// at a time.
	lead := min((8-(bit-d.bpStart)/w%8)%8, len(dst))
	hi = unpackEach(dst[:lead], d.data, bit, w)
	bit += lead * w
	n, ghi := unpackGroups(dst[lead:], d.data, bit, w)
	bit += n * w
	hi = max(hi, ghi, unpackEach(dst[lead+n:], d.data, bit, w))
	d.bpBit = bit + (len(dst)-lead-n)*w
	d.bpLeft -= len(dst)
	return hi
}

// decode fills dst with the next len(dst) values and returns the largest.
// A repeated run's value is compared once, however long the run.
func (d *rleDecoder) decode(dst []uint32) (hi uint32, err error) {
	for len(dst) > 0 {
		if d.rleLeft == 0 && d.bpLeft == 0 {
			if err := d.nextRun(); err != nil {
				return hi, err
			}
		}
		if d.rleLeft > 0 {
			k := min(d.rleLeft, len(dst))
			v := d.rleVal
			for i := range dst[:k] {
				dst[i] = v
			}
			hi = max(hi, v)
			d.rleLeft -= k
			dst = dst[k:]
			continue
		}
		k := min(d.bpLeft, len(dst))
		hi = max(hi, d.unpack(dst[:k]))
		dst = dst[k:]
	}
	return hi, nil
}

// decodeBits writes the next n values of a width-1 stream as bits of dst
// from bit offset at, and returns how many were 1. It serves definition
// levels of flat optional columns, whose level 1 means present, and
// hybrid-encoded booleans.
func (d *rleDecoder) decodeBits(dst []byte, at, n int) (ones int, err error) {
	if d.width != 1 {
		return 0, fmt.Errorf("bit stream of width %d", d.width)
	}
	for n > 0 {
		if d.rleLeft == 0 && d.bpLeft == 0 {
			if err := d.nextRun(); err != nil {
				return ones, err
			}
		}
		if d.rleLeft > 0 {
			k := min(d.rleLeft, n)
			bitutil.SetBitsTo(dst, int64(at), int64(k), d.rleVal == 1)
			if d.rleVal == 1 {
				ones += k
			}
			d.rleLeft -= k
			at += k
			n -= k
			continue
		}
		k := min(d.bpLeft, n)
		bitutil.CopyBitmap(d.data, d.bpBit, k, dst, at)
		ones += bitutil.CountSetBits(dst, at, k)
		d.bpBit += k
		d.bpLeft -= k
		at += k
		n -= k
	}
	return ones, nil
}

// bitPackedLevels reads the deprecated BIT_PACKED level encoding: n values
// of width bits, most significant bit first, with no run headers.
func bitPackedLevels(data []byte, width, n int, dst []uint32) error {
	if (n*width+7)/8 > len(data) {
		return errRunPastEnd
	}
	bit := 0
	for i := range n {
		var v uint32
		for b := 0; b < width; b++ {
			p := bit + b
			v = v<<1 | uint32(data[p>>3]>>(7-uint(p)&7)&1)
		}
		dst[i] = v
		bit += width
	}
	return nil
}
