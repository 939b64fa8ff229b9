package pqcodec

import "encoding/binary"

// Bit-packed values (the RLE hybrid's bit-packed runs) come in groups of
// eight, least significant bit first, a group taking exactly width bytes.
// A kernel per width (unpack_kernels.go, generated) reads a group as a few
// little-endian words and cuts the values out with constant shifts and
// masks: with the width a constant the compiler emits neither the
// variable-shift fix-ups nor a loop per value.

//go:generate go run unpack_gen.go

// unpackGroups unpacks as many whole groups of w-bit values (1 <= w <= 32)
// as dst has room for and data holds, from byte-aligned bit offset bit on.
// It returns the values written and the largest of them.
func unpackGroups(dst []uint32, data []byte, bit, w int) (n int, hi uint32) {
	// A kernel reads max(w, 8) bytes from each group's start.
	p, read := bit>>3, max(w, 8)
	if bit&7 != 0 || len(data)-p < read {
		return 0, 0
	}
	groups := min(len(dst)/8, (len(data)-p-read)/w+1)
	if groups == 0 {
		return 0, 0
	}
	n = 8 * groups
	return n, unpackers[w](dst[:n], data[p:])
}

// unpackEach unpacks len(dst) w-bit values from bit offset bit on, one at a
// time, and returns the largest: the values before a group starts and
// after the last whole one. The values lie within data.
func unpackEach(dst []uint32, data []byte, bit, w int) (hi uint32) {
	mask := uint64(1)<<uint(w) - 1
	i := 0
	// A value of at most 32 bits, at most 7 bits into its first byte, lies
	// within the word loaded from that byte while eight bytes remain.
	for ; i < len(dst) && (bit>>3)+8 <= len(data); i++ {
		word := binary.LittleEndian.Uint64(data[bit>>3:])
		v := uint32(word >> (uint(bit) & 7) & mask)
		dst[i] = v
		hi = max(hi, v)
		bit += w
	}
	for ; i < len(dst); i++ {
		var v uint32
		for b := 0; b < w; b++ {
			p := bit + b
			v |= uint32(data[p>>3]>>(uint(p)&7)&1) << uint(b)
		}
		dst[i] = v
		hi = max(hi, v)
		bit += w
	}
	return hi
}
