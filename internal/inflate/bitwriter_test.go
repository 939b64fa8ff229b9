package inflate

import (
	"bytes"
	"compress/flate"
	"io"
	"math/bits"
)

// bitWriter builds DEFLATE streams by hand for tests: fields least
// significant bit first, Huffman codes most significant bit first (RFC 1951
// section 3.1.1).
type bitWriter struct {
	buf   []byte
	nbits uint
}

// bits writes the n low bits of v.
func (w *bitWriter) bits(v uint64, n uint) {
	for range n {
		if w.nbits%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		w.buf[len(w.buf)-1] |= byte(v&1) << (w.nbits % 8)
		v >>= 1
		w.nbits++
	}
}

// code writes a Huffman code of n bits.
func (w *bitWriter) code(c uint32, n uint) {
	w.bits(uint64(bits.Reverse32(c)>>(32-n)), n)
}

// align pads to a byte boundary with zero bits.
func (w *bitWriter) align() {
	w.nbits = (w.nbits + 7) &^ 7
}

// bytes returns the stream so far.
func (w *bitWriter) bytes() []byte { return w.buf }

// canonical returns the canonical Huffman codes for lens (RFC 1951 section
// 3.2.2), written out from the RFC's algorithm.
func canonical(lens []uint8) []uint32 {
	var count [16]uint32
	for _, n := range lens {
		count[n]++
	}
	count[0] = 0
	var next [16]uint32
	code := uint32(0)
	for n := 1; n < 16; n++ {
		code = (code + count[n-1]) << 1
		next[n] = code
	}
	codes := make([]uint32, len(lens))
	for s, n := range lens {
		if n != 0 {
			codes[s] = next[n]
			next[n]++
		}
	}
	return codes
}

// fixedCode writes literal/length symbol s with the fixed code of RFC 1951
// section 3.2.6.
func (w *bitWriter) fixedCode(s int) {
	switch {
	case s < 144:
		w.code(uint32(0x30+s), 8)
	case s < 256:
		w.code(uint32(0x190+s-144), 9)
	case s < 280:
		w.code(uint32(s-256), 7)
	default:
		w.code(uint32(0xC0+s-280), 8)
	}
}

// fixedMatch writes a match with fixed codes: the length symbol and extra
// bits, then the 5-bit distance code and its extra bits.
func (w *bitWriter) fixedMatch(length, distance int) {
	i := len(lengthBase) - 1
	for int(lengthBase[i]) > length {
		i--
	}
	w.fixedCode(257 + i)
	w.bits(uint64(length-int(lengthBase[i])), uint(lengthExtra[i]))
	j := len(distBase) - 1
	for int(distBase[j]) > distance {
		j--
	}
	w.code(uint32(j), 5)
	w.bits(uint64(distance-int(distBase[j])), uint(distExtra[j]))
}

// testPrecodeLens is a complete code length code used by dynamicHeader:
// 13 symbols of 4 bits and the rarely needed lengths 10-15 at 5 bits.
var testPrecodeLens = func() []uint8 {
	l := make([]uint8, numPrecode)
	for s := range l {
		l[s] = 4
		if s >= 10 && s <= 15 {
			l[s] = 5
		}
	}
	return l
}()

// dynamicHeader writes the header of a dynamic block (after BFINAL and
// BTYPE) for the given code lengths, each written as a plain length with
// precode (testPrecodeLens when nil). It returns the literal/length and
// distance codes for writing the data.
func (w *bitWriter) dynamicHeader(litLens, distLens, precode []uint8) (lit, dist []uint32) {
	if precode == nil {
		precode = testPrecodeLens
	}
	w.bits(uint64(len(litLens)-257), 5)
	w.bits(uint64(len(distLens)-1), 5)
	w.bits(numPrecode-4, 4)
	for _, s := range precodeOrder {
		w.bits(uint64(precode[s]), 3)
	}
	pc := canonical(precode)
	for _, n := range append(append([]uint8{}, litLens...), distLens...) {
		w.code(pc[n], uint(precode[n]))
	}
	return canonical(litLens), canonical(distLens)
}

// stdlibDecode decodes with Go's compress/flate, the independent
// implementation these tests take as truth.
func stdlibDecode(src []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(src))
	defer r.Close()
	return io.ReadAll(r)
}
