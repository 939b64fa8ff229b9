package pqwrite

import (
	"encoding/binary"
	"math/bits"
)

// The RLE/bit-packing hybrid (Parquet encodings, "Run Length Encoding /
// Bit-Packing Hybrid") carries definition levels and dictionary indices.
// A run starts with a ULEB128 header: count<<1 for a run of one repeated
// value, stored in ceil(width/8) little-endian bytes; groups<<1|1 for
// groups of eight values bit-packed least significant bit first. Only the
// last group of a stream may hold padding, since readers know the number
// of values from the page header.

// minRepeat is the shortest run written as a repeated run: shorter ones
// cost less bit-packed among their neighbours.
const minRepeat = 8

// bitWidth returns the bits needed for dictionary indices below n, as
// arrow-go and Arrow C++ size them (at least 1 once there is an entry).
func bitWidth(n int) int {
	switch n {
	case 0:
		return 0
	case 1:
		return 1
	}
	return bits.Len32(uint32(n - 1))
}

// appendHybrid appends vals, each below 1<<width, in the hybrid encoding.
func appendHybrid[T uint8 | uint32](dst []byte, vals []T, width int) []byte {
	lit := 0 // start of the values not yet written, to be bit-packed
	for i := 0; i < len(vals); {
		v := vals[i]
		j := i + 1
		for j < len(vals) && vals[j] == v {
			j++
		}
		run := j - i
		if run < minRepeat {
			i = j
			continue
		}
		// Bit-packed groups hold eight values: lend the run's first values
		// to the pending literals until they fill whole groups.
		if pad := (8 - (i-lit)%8) % 8; pad > 0 {
			if run-pad < minRepeat {
				i = j
				continue
			}
			i += pad
			run -= pad
		}
		if i > lit {
			dst = appendPacked(dst, vals[lit:i], width)
		}
		dst = binary.AppendUvarint(dst, uint64(run)<<1)
		for b := 0; b < (width+7)/8; b++ {
			dst = append(dst, byte(uint32(v)>>(8*b)))
		}
		i = j
		lit = j
	}
	if lit < len(vals) {
		dst = appendPacked(dst, vals[lit:], width)
	}
	return dst
}

// appendPacked appends vals as one bit-packed run, the last group padded
// with zeros.
func appendPacked[T uint8 | uint32](dst []byte, vals []T, width int) []byte {
	groups := (len(vals) + 7) / 8
	dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
	if width == 0 {
		return dst
	}
	start := len(dst)
	dst = append(dst, make([]byte, groups*width)...)
	out := dst[start:]
	switch width {
	case 1:
		packBits(out, vals)
		return dst
	case 8:
		for i, v := range vals {
			out[i] = byte(v)
		}
		return dst
	}
	var acc uint64
	nbits, pos := 0, 0
	for _, v := range vals {
		acc |= uint64(v) << nbits
		nbits += width
		for nbits >= 8 {
			out[pos] = byte(acc)
			pos++
			acc >>= 8
			nbits -= 8
		}
	}
	if nbits > 0 {
		out[pos] = byte(acc)
	}
	return dst
}

// packBits packs values of width 1 eight to a byte.
func packBits[T uint8 | uint32](out []byte, vals []T) {
	i := 0
	for ; i+8 <= len(vals); i += 8 {
		v := vals[i : i+8 : i+8]
		out[i/8] = byte(v[0]) | byte(v[1])<<1 | byte(v[2])<<2 | byte(v[3])<<3 |
			byte(v[4])<<4 | byte(v[5])<<5 | byte(v[6])<<6 | byte(v[7])<<7
	}
	if i < len(vals) {
		var b byte
		for k, v := range vals[i:] {
			b |= byte(v) << k
		}
		out[i/8] = b
	}
}

// appendRepeated appends n copies of v as one repeated run.
func appendRepeated(dst []byte, v uint32, n, width int) []byte {
	dst = binary.AppendUvarint(dst, uint64(n)<<1)
	for b := 0; b < (width+7)/8; b++ {
		dst = append(dst, byte(v>>(8*b)))
	}
	return dst
}
