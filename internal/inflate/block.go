package inflate

// huffmanBlock decodes the data of a block compressed with Huffman codes
// (RFC 1951 section 3.2.5) up to and including its end-of-block symbol. The
// fast loop does nearly all the work; decodeSlow takes over one symbol at a
// time near the end of the input or of the output buffer, where it can
// check each read and grow the buffer.
func (d *decoder) huffmanBlock(t *tables) error {
	for {
		if d.pos <= len(d.src)-fastInSlack && d.op <= len(d.out)-fastOutSlack {
			end, err := d.decodeFast(t)
			if end || err != nil {
				return err
			}
		}
		end, err := d.decodeSlow(t)
		if end || err != nil {
			return err
		}
	}
}

// decodeSlow decodes one literal/length symbol (and the distance of a
// match) with every check in place, and reports whether it ended the block.
func (d *decoder) decodeSlow(t *tables) (bool, error) {
	if err := d.refillSlow(); err != nil {
		return false, err
	}
	e := t.lit[d.bits&(1<<litLenBits-1)]
	if e&entrySub != 0 {
		e = t.lit[subIndex(e, d.bits, litLenBits)]
	}
	if int32(e) < 0 {
		n := 1 + int(e>>entryPairShift&1) // a pair of literals?
		if err := d.reserve(n); err != nil {
			return false, err
		}
		d.out[d.op] = byte(e >> entryValueShift)
		if n == 2 {
			d.out[d.op+1] = byte(e >> (entryValueShift + 8))
		}
		d.op += n
		d.consume(uint(e & entryBitsMask))
		return false, nil
	}
	if e&entryExcept != 0 {
		if e&entryEOB != 0 {
			d.consume(uint(e & entryBitsMask))
			return true, nil
		}
		return false, d.corrupt(whyLitLenSymbol)
	}
	length := int(entryValue(e, d.bits))
	d.consume(uint(e & entryBitsMask))

	e = t.dist[d.bits&(1<<distBits-1)]
	if e&entrySub != 0 {
		e = t.dist[subIndex(e, d.bits, distBits)]
	}
	if e&entryExcept != 0 {
		return false, d.corrupt(whyDistanceSymbol)
	}
	distance := int(entryValue(e, d.bits))
	if distance > d.op {
		// No preset dictionary: Avro blocks are independent streams.
		return false, d.corrupt(whyDistanceTooFar)
	}
	d.consume(uint(e & entryBitsMask))
	if err := d.reserve(length); err != nil {
		return false, err
	}
	// Byte by byte, so a copy overlapping its own output (distance less
	// than length) repeats the pattern as RFC 1951 section 3.2.3 requires.
	out := d.out[d.op-distance : d.op+length]
	for i := range length {
		out[distance+i] = out[i]
	}
	d.op += length
	return false, nil
}

// subIndex is where in the table a code longer than rootBits bits has its
// entry, given the root entry e pointing to its subtable.
func subIndex(e uint32, bits uint64, rootBits uint) int {
	return int(e>>entryValueShift&entryValueMask) + int(bits>>rootBits&(1<<(e&entryBitsMask)-1))
}

// entryValue is the length or distance a table entry e decodes to: its base
// plus the extra bits that follow the code in bits.
func entryValue(e uint32, bits uint64) uint32 {
	extra := uint32(bits&(1<<(e&entryBitsMask)-1)) >> (e >> 8 & 15)
	return e>>entryValueShift&entryValueMask + extra
}
