package inflate

import "encoding/binary"

const (
	// fastInSlack is how many input bytes the fast loop needs left: a
	// refill loads eight at once, after the up to seven that an iteration
	// consumes.
	fastInSlack = 8 + 7
	// fastOutSlack is how much output room the fast loop needs: three
	// literals or a longest match, plus the up to 7 bytes an 8-byte-wide
	// copy writes past it.
	fastOutSlack = maxMatchLen + 8
)

// patternStride[d] is the least multiple of d of 8 or more, for d < 8.
var patternStride = [8]int{0, 8, 8, 9, 8, 10, 12, 14}

// decodeFast decodes symbols while at least fastInSlack input bytes and
// fastOutSlack bytes of output room remain, without checking either per
// read or write, and reports whether it reached the end of the block.
//
// Each iteration starts with at least 56 bits in the buffer, which covers
// up to three literals (3 x 15 bits), or the longest literal/length code
// with its extra bits (15 + 5) plus the longest distance code with its
// extra bits (15 + 13). Bits of a symbol are dropped as soon as its table
// entry is known, and its extra bits are read from a saved copy of the
// buffer, so the next lookup need not wait for the symbol's value.
func (d *decoder) decodeFast(t *tables) (end bool, err error) {
	src, out := d.src, d.out
	pos, op := d.pos, d.op
	bits, nbits := d.bits, d.nbits

	// refill loads 8 bytes above the valid bits and counts the whole
	// bytes that fit; the bits of a partly fitting byte are loaded again by
	// the next refill, which ORs in the same values.
	refill := func() {
		bits |= binary.LittleEndian.Uint64(src[pos:]) << (nbits & 63)
		pos += int(63-nbits) >> 3
		nbits |= 56
	}
loop:
	for {
		// Count the iterations that surely stay in bounds, rather than
		// checking both ends in each: an iteration refills once,
		// advancing at most 7 bytes, and writes at most one match.
		inRoom, outRoom := len(src)-8-pos, len(out)-fastOutSlack-op
		if inRoom < 7 || outRoom < 0 {
			break
		}
		iters := min(inRoom/7, outRoom/maxMatchLen+1)
		refill()
		e := t.lit[bits&(1<<litLenBits-1)]
		for ; iters > 0; iters-- {
			if e&entrySub != 0 {
				e = t.lit[subIndex(e, bits, litLenBits)]
			}
			saved := bits
			n := uint(e & 63) // bits 5 and 6 are 0: this is e & entryBitsMask
			bits >>= n
			nbits -= n

			if int32(e) < 0 {
				// Up to three literal entries (of one or two literals
				// each) per refill. The next entry is looked up with at
				// least 11 valid bits, a root table index; a subtable
				// pointer waits for the refill. Each writes two bytes,
				// the second overwritten later when it is no literal.
				for lits := 1; ; lits++ {
					out[op+1] = byte(e >> (entryValueShift + 8))
					out[op] = byte(e >> entryValueShift)
					op += 1 + int(e>>entryPairShift&1)
					e = t.lit[bits&(1<<litLenBits-1)]
					if lits == 3 || int32(e) >= 0 {
						break
					}
					n = uint(e & 63)
					bits >>= n
					nbits -= n
				}
				refill()
				continue
			}

			if e&entryExcept != 0 {
				if e&entryEOB != 0 {
					end = true
					break loop
				}
				err = corrupt(whyLitLenSymbol, int64(pos)*8-int64(nbits)-int64(e&entryBitsMask), int64(len(src))*8)
				break loop
			}
			length := int(entryValue(e, saved))

			e = t.dist[bits&(1<<distBits-1)]
			if e&entrySub != 0 {
				e = t.dist[subIndex(e, bits, distBits)]
			}
			if e&entryExcept != 0 {
				err = corrupt(whyDistanceSymbol, int64(pos)*8-int64(nbits), int64(len(src))*8)
				break loop
			}
			saved = bits
			n = uint(e & 63)
			bits >>= n
			nbits -= n
			distance := int(entryValue(e, saved))
			if distance > op {
				err = corrupt(whyDistanceTooFar, int64(pos)*8-int64(nbits)-int64(e&entryBitsMask), int64(len(src))*8)
				break loop
			}
			refill()

			from := op - distance
			switch {
			case distance >= 8:
				// Eight bytes at a time: each load reads only bytes
				// already written, the source being 8 or more behind.
				// The first 16 go unconditionally, so the loop, and a
				// mispredicted exit from it, is left to long matches.
				binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[from:]))
				binary.LittleEndian.PutUint64(out[op+8:], binary.LittleEndian.Uint64(out[from+8:]))
				for i := 16; i < length; i += 8 {
					binary.LittleEndian.PutUint64(out[op+i:], binary.LittleEndian.Uint64(out[from+i:]))
				}
			case distance == 1:
				// A run of one byte, the commonest overlapping copy.
				v := uint64(out[from]) * 0x0101010101010101
				binary.LittleEndian.PutUint64(out[op:], v)
				binary.LittleEndian.PutUint64(out[op+8:], v)
				for i := 16; i < length; i += 8 {
					binary.LittleEndian.PutUint64(out[op+i:], v)
				}
			default:
				// A pattern of 2 to 7 bytes: eight bytes one at a time,
				// each after the byte it repeats, then eight at a time
				// from a whole number of patterns (8 or more bytes) back.
				// Iceberg manifests have many: runs of small varints.
				// (Separate statements: a tuple assignment would read
				// all eight before writing any.)
				o, f := out[op:op+8], out[from:from+8]
				o[0] = f[0]
				o[1] = f[1]
				o[2] = f[2]
				o[3] = f[3]
				o[4] = f[4]
				o[5] = f[5]
				o[6] = f[6]
				o[7] = f[7]
				back := patternStride[distance]
				for i := 8; i < length; i += 8 {
					binary.LittleEndian.PutUint64(out[op+i:], binary.LittleEndian.Uint64(out[op+i-back:]))
				}
			}
			op += length
			e = t.lit[bits&(1<<litLenBits-1)]
		}
	}
	// Locals rather than fields in the loop let the compiler keep them in
	// registers; a deferred store would pin them to memory.
	d.pos, d.op, d.bits, d.nbits = pos, op, bits, nbits
	return end, err
}
