// Package inflate decodes raw DEFLATE streams (RFC 1951) held whole in
// memory, as Avro's "deflate" codec stores them in Iceberg manifests and
// manifest lists.
//
// Knowing both the whole input and the whole output up front lets the
// decoder do what a streaming io.Reader cannot: load eight input bytes at a
// time into a 64-bit bit buffer, copy matches straight out of the output
// instead of a 32 KiB window, and run a loop without end-of-buffer checks
// while plenty of input and output remain, the approach of libdeflate.
package inflate

import (
	"encoding/binary"
	"math"
	"sync"
)

// Decode decodes the raw DEFLATE stream in src into the memory of dst
// (whose contents are discarded; it may be nil) and returns the output,
// which has a new backing array when dst is too small. Decoding may write
// anywhere in dst's capacity, and dst must not overlap src. Bytes after the
// final block are ignored. Errors wrap ErrCorrupt; those for input that
// ends too early also wrap io.ErrUnexpectedEOF.
func Decode(dst, src []byte) ([]byte, error) {
	return DecodeLimit(dst, src, math.MaxInt)
}

// DecodeLimit is Decode for output of at most limit bytes: it fails with an
// error wrapping ErrTooLarge as soon as the stream would produce more, so a
// small hostile input cannot exhaust memory (a DEFLATE stream can inflate
// about 1000 times). A negative limit counts as 0.
func DecodeLimit(dst, src []byte, limit int) ([]byte, error) {
	d := decoders.Get().(*decoder)
	defer func() {
		d.src, d.out = nil, nil // hold no caller memory in the pool
		decoders.Put(d)
	}()
	limit = max(limit, 0)
	d.src, d.pos, d.bits, d.nbits = src, 0, 0, 0
	d.out, d.op, d.limit = dst[:cap(dst)], 0, limit
	if len(d.out) > limit {
		d.out = d.out[:limit]
	}
	if len(d.out) == 0 {
		d.out = make([]byte, min(d.guess(), limit))
	}
	if err := d.decode(); err != nil {
		return nil, err
	}
	return d.out[:d.op], nil
}

// decoders keeps decoders for reuse: each holds 12 KiB of tables, which
// would otherwise be zeroed on every call and outgrow a new goroutine's
// first stack. Every table is rebuilt before it is read.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// minGuess is the least output capacity decoding allocates.
const minGuess = 1024

// guess is the least output capacity to allocate: manifests deflate 2.5 to
// 10 times, and starting at 4x avoids most regrowth without holding much
// more than the result.
func (d *decoder) guess() int {
	return max(4*len(d.src), minGuess)
}

// decoder is the state of one Decode call. The Huffman block loops copy the
// bit reader and output position into locals, where the compiler can keep
// them in registers, and store them back when they return.
type decoder struct {
	src []byte
	// pos is the next byte of src to load into bits. The slow refill may
	// move it past len(src), feeding zero bytes: only consuming them is an
	// error, and that is checked on every slow refill and at the end.
	pos   int
	bits  uint64 // unconsumed bits, next bit lowest
	nbits uint   // how many of bits are valid; bits above may hold later input bits

	out   []byte // the output buffer at its full length
	op    int    // bytes of out produced so far
	limit int

	lens    [maxLitLenDyn + maxDistDyn]uint8
	dyn     tables // for the current dynamic block
	precode [precodeSize]uint32
}

// decode runs the block loop of RFC 1951 section 3.2.3.
func (d *decoder) decode() error {
	for {
		if err := d.refillSlow(); err != nil {
			return err
		}
		final := d.bits&1 != 0
		typ := d.bits >> 1 & 3
		d.consume(3)
		var err error
		switch typ {
		case 0:
			err = d.storedBlock()
		case 1:
			err = d.huffmanBlock(fixedTables())
		case 2:
			if err = d.readDynamicTables(); err == nil {
				err = d.huffmanBlock(&d.dyn)
			}
		default:
			err = d.corrupt(whyBlockType)
		}
		if err != nil {
			return err
		}
		if final {
			if d.bitOffset() > d.inputBits() {
				return d.corrupt(whyTruncated)
			}
			return nil
		}
	}
}

// bitOffset is how many input bits have been consumed.
func (d *decoder) bitOffset() int64 {
	return int64(d.pos)*8 - int64(d.nbits)
}

func (d *decoder) inputBits() int64 { return int64(len(d.src)) * 8 }

func (d *decoder) corrupt(why string) error {
	return corrupt(why, d.bitOffset(), d.inputBits())
}

// refillSlow tops the bit buffer up to 49-56 bits, enough for a length and
// distance with their extra bits (20 + 28), a byte at a time with zero bytes
// past the end of the input, and fails once any of those zero bits has been
// consumed. It leaves nbits below 64, as the fast loop's refill needs.
func (d *decoder) refillSlow() error {
	if d.bitOffset() > d.inputBits() {
		return d.corrupt(whyTruncated)
	}
	for d.nbits <= 48 {
		if d.pos < len(d.src) {
			d.bits |= uint64(d.src[d.pos]) << d.nbits
		}
		d.pos++
		d.nbits += 8
	}
	return nil
}

// consume drops n bits, which the caller has checked are there.
func (d *decoder) consume(n uint) {
	d.bits >>= n
	d.nbits -= n
}

// storedBlock copies a stored block (RFC 1951 section 3.2.4): skip to a
// byte boundary, then LEN, its ones' complement NLEN, and LEN raw bytes.
func (d *decoder) storedBlock() error {
	d.consume(d.nbits & 7)
	// The bit buffer holds whole bytes now; give them back to the input.
	d.pos -= int(d.nbits >> 3)
	d.bits, d.nbits = 0, 0
	if d.pos+4 > len(d.src) {
		return d.corrupt(whyTruncated)
	}
	n := int(binary.LittleEndian.Uint16(d.src[d.pos:]))
	if ^uint16(n) != binary.LittleEndian.Uint16(d.src[d.pos+2:]) {
		return d.corrupt(whyStoredLen)
	}
	d.pos += 4
	if n > len(d.src)-d.pos {
		return d.corrupt(whyTruncated)
	}
	if err := d.reserve(n); err != nil {
		return err
	}
	d.op += copy(d.out[d.op:], d.src[d.pos:d.pos+n])
	d.pos += n
	return nil
}

// reserve makes room for n more output bytes, doubling the buffer so that
// the fast loop, which wants slack past the next match, can run again.
func (d *decoder) reserve(n int) error {
	need := d.op + n
	if need <= len(d.out) {
		return nil
	}
	if need > d.limit || need < d.op {
		return tooLarge(d.limit)
	}
	size := max(2*len(d.out), need+fastOutSlack, d.guess())
	if size > d.limit || size < 0 {
		size = d.limit
	}
	out := make([]byte, size)
	copy(out, d.out[:d.op])
	d.out = out
	return nil
}
