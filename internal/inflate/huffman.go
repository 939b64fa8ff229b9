package inflate

import (
	"math/bits"
	"sync"
)

// A decode table maps the next few input bits to an entry that tells what
// they code and how many bits to consume, so one lookup replaces walking
// the Huffman tree a bit at a time. Codes longer than the table's root bits
// go through a subtable that the root entry points to.
//
// Entry layout (uint32):
//
//	bits  0-4   bits to consume: code length plus any extra bits, so one
//	            shift consumes both (for a subtable pointer: the subtable's
//	            index width)
//	bits  8-11  code length alone, to find where the extra bits start
//	bits 12-27  value: literal byte (two for a pair: first in 12-19),
//	            length or distance base, precode symbol, or subtable start
//	bit  28     end of block (with entryExcept), or a pair of literals
//	            (with entryLiteral)
//	bit  29     subtable pointer (with entryExcept)
//	bit  30     exceptional: subtable pointer, end of block or invalid code
//	bit  31     literal, so a sign test finds the commonest case
const (
	entryLiteral = 1 << 31
	entryExcept  = 1 << 30
	entrySub     = 1 << 29
	entryEOB     = 1 << 28
	entryPair    = 1 << entryPairShift

	entryPairShift = 28

	entryValueShift = 12
	entryValueMask  = 0xFFFF
	entryBitsMask   = 31

	// entryInvalid marks bit patterns no symbol codes, and the symbols
	// RFC 1951 reserves (literal/length 286-287, distance 30-31).
	entryInvalid = entryExcept
)

// Root table sizes: libdeflate's choice of 11 and 8 bits keeps nearly every
// code in one lookup while the tables still fit in L1 cache. The sizes with
// subtables are the worst case over all complete codes, found by zlib's
// examples/enough.c ("enough 288 11 15" and "enough 32 8 15").
const (
	litLenBits      = 11
	litLenTableSize = 2342
	distBits        = 8
	distTableSize   = 402
	precodeBits     = 7 // the longest code length code (3 bits of length)
	precodeSize     = 1 << precodeBits

	maxCodeLen   = 15
	numLitLen    = 288 // including the two reserved symbols
	numDist      = 32  // including the two reserved symbols
	numPrecode   = 19
	endOfBlock   = 256
	maxMatchLen  = 258
	maxLitLenDyn = 286 // HLIT + 257 may not exceed this (RFC 1951 3.2.7)
	maxDistDyn   = 30
)

// Length and distance bases and extra bit counts, RFC 1951 section 3.2.5.
var (
	lengthBase = [29]uint16{
		3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
		35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{
		0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
		3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase = [30]uint16{
		1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint8{
		0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
		7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// Per-symbol entries without the code length, which buildTable adds. The
// low bits hold the extra bit count so that adding the code length gives
// the total to consume.
var litLenPayload, distPayload, precodePayload = func() (l [numLitLen]uint32, d [numDist]uint32, p [numPrecode]uint32) {
	for s := range 256 {
		l[s] = entryLiteral | uint32(s)<<entryValueShift
	}
	l[endOfBlock] = entryExcept | entryEOB
	for i := range lengthBase {
		l[257+i] = uint32(lengthBase[i])<<entryValueShift | uint32(lengthExtra[i])
	}
	l[286], l[287] = entryInvalid, entryInvalid
	for i := range distBase {
		d[i] = uint32(distBase[i])<<entryValueShift | uint32(distExtra[i])
	}
	d[30], d[31] = entryInvalid, entryInvalid
	for s := range p {
		p[s] = uint32(s) << entryValueShift
	}
	return l, d, p
}()

// buildTable fills table for the canonical Huffman code whose code lengths
// are lens (RFC 1951 section 3.2.2), with rootBits bits of direct lookup.
// It returns "" or the reason the lengths are invalid. Like zlib's
// inflate_table, it rejects an oversubscribed set of lengths, and an
// incomplete one unless allowSingle is set and the code has no symbol or a
// single one-bit symbol: an encoder writes such a code for a block with no
// distances (or, for literal/length, a block that only ends), and zlib and
// Go's compress/flate accept it. Unused bit patterns decode as invalid.
func buildTable(table []uint32, rootBits uint, lens []uint8, payload []uint32, allowSingle bool) string {
	var count [maxCodeLen + 1]int
	for _, n := range lens {
		count[n]++
	}
	count[0] = 0
	left := 1
	maxLen := 0
	for n := 1; n <= maxCodeLen; n++ {
		left = left<<1 - count[n]
		if left < 0 {
			return whyOversubscribed
		}
		if count[n] > 0 {
			maxLen = n
		}
	}
	rootSize := 1 << rootBits
	if left > 0 {
		if !allowSingle || maxLen > 1 {
			return whyIncomplete
		}
		// The doubling below spreads these over the unused patterns.
		table[0], table[1] = entryInvalid, entryInvalid
	}

	// Symbols sorted by code length then value, which is the order of
	// their canonical codes.
	var offs, next [maxCodeLen + 2]int
	for n := 1; n <= maxCodeLen; n++ {
		offs[n+1] = offs[n] + count[n]
	}
	var sorted [numLitLen]uint16
	for s, n := range lens {
		if n != 0 {
			sorted[offs[n]] = uint16(s)
			offs[n]++
		}
	}
	code := 0
	for n := 1; n <= maxCodeLen; n++ {
		code = (code + count[n-1]) << 1
		next[n] = code
	}

	// Root entries, by doubling: once the first 2^n entries hold every
	// code of up to n bits, copying them up gives the first 2^(n+1) the
	// same, and each code of n+1 bits then takes one entry. This writes a
	// code's entry once, not 2^(rootBits-n) times in a loop whose exit
	// mispredicts per symbol.
	//
	// DEFLATE packs Huffman codes most significant bit first into a
	// least-significant-bit-first stream, so tables are indexed by the
	// code reversed.
	si := 0
	for n, size := 1, 2; n <= int(rootBits); n, size = n+1, size*2 {
		if n > 1 {
			copy(table[size/2:size], table[:size/2])
		}
		for range count[n] {
			s := sorted[si]
			si++
			rev := int(bits.Reverse16(uint16(next[n]))) >> (16 - n)
			next[n]++
			table[rev] = payload[s] + uint32(n) + uint32(n)<<8
		}
	}

	used := rootSize // table entries taken by the root and subtables so far
	prefix := -1     // root index of the current subtable
	var subStart, subBits int
	for _, s := range sorted[si:offs[maxCodeLen]] {
		n := int(lens[s])
		rev := int(bits.Reverse16(uint16(next[n]))) >> (16 - n)
		next[n]++
		e := payload[s] + uint32(n) + uint32(n)<<8
		if p := rev & (rootSize - 1); p != prefix {
			// A new subtable, sized to hold every remaining code that
			// shares this root prefix: codes come in canonical order, so
			// they are the next ones, and the shortest comes first.
			prefix = p
			subBits = n - int(rootBits)
			room := 1 << subBits
			for subBits+int(rootBits) < maxLen {
				room -= count[subBits+int(rootBits)]
				if room <= 0 {
					break
				}
				subBits++
				room <<= 1
			}
			subStart = used
			used += 1 << subBits
			if used > len(table) {
				return whyTableOverflow
			}
			table[p] = entryExcept | entrySub | uint32(subStart)<<entryValueShift | uint32(subBits)
		}
		for i := rev >> rootBits; i < 1<<subBits; i += 1 << (n - int(rootBits)) {
			table[subStart+i] = e
		}
		count[n]--
	}
	return ""
}

// pairLiterals gives each root entry of a literal/length table whose bits
// hold two whole literal codes one entry for both, so text-like data, whose
// literal codes are short, decodes two bytes per lookup. lens are the code
// lengths the table was just built from.
func pairLiterals(table *[litLenTableSize]uint32, lens []uint8) {
	var count [maxCodeLen + 1]int
	shortest := maxCodeLen
	for s, n := range lens {
		count[n]++
		if s < 256 && n != 0 && int(n) < shortest {
			shortest = int(n)
		}
	}
	if 2*shortest > litLenBits {
		return // no two literals fit, as with near-random bytes
	}
	// After a first code of n bits, the next code starts at root index
	// k < 2^(litLenBits-n); note what the (unpaired) entries there hold:
	// a literal and its code length, or a length too long to pair.
	var second [1 << (litLenBits - 1)]uint32
	for k := range second[:1<<(litLenBits-shortest)] {
		e := table[k]
		second[k] = (e>>entryValueShift&0xFF)<<(entryValueShift+8) | e&entryBitsMask
		if int32(e) >= 0 {
			second[k] = litLenBits
		}
	}
	// Canonical codes (RFC 1951 section 3.2.2); literals are the lowest
	// symbols, so they take the first codes of each length.
	var next [maxCodeLen + 1]int
	count[0] = 0
	code := 0
	for n := 1; n <= maxCodeLen; n++ {
		code = (code + count[n-1]) << 1
		next[n] = code
	}
	for s, n := range lens[:256] {
		if n == 0 {
			continue
		}
		rev := int(bits.Reverse16(uint16(next[n]))) >> (16 - n)
		next[n]++
		if int(n) > litLenBits-shortest {
			continue
		}
		first := entryLiteral | entryPair | uint32(s)<<entryValueShift | uint32(n)
		for k, x := range second[:1<<(litLenBits-n)] {
			if uint32(n)+x&entryBitsMask <= litLenBits {
				table[rev+k<<n] = first + x
			}
		}
	}
}

// tables are the decode tables of one block. One struct for both lets the
// fast loop address them from a single register.
type tables struct {
	lit  [litLenTableSize]uint32
	dist [distTableSize]uint32
}

// fixedTables are the decode tables for the fixed Huffman codes of RFC 1951
// section 3.2.6, built once on first use.
var fixedTables = sync.OnceValue(func() *tables {
	var lens [numLitLen]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	// The fixed codes are complete, so building cannot fail.
	t := new(tables)
	buildTable(t.lit[:], litLenBits, lens[:], litLenPayload[:], false)
	var dlens [numDist]uint8
	for i := range dlens {
		dlens[i] = 5
	}
	buildTable(t.dist[:], distBits, dlens[:], distPayload[:], false)
	return t
})
