package inflate

// precodeOrder is the order in which a dynamic block header gives the code
// lengths of the code length alphabet, RFC 1951 section 3.2.7.
var precodeOrder = [numPrecode]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// readDynamicTables reads the header of a block compressed with dynamic
// Huffman codes (RFC 1951 section 3.2.7) and builds d.dyn.
func (d *decoder) readDynamicTables() error {
	if err := d.refillSlow(); err != nil {
		return err
	}
	nlit := int(d.bits&31) + 257
	ndist := int(d.bits>>5&31) + 1
	nclen := int(d.bits>>10&15) + 4
	if nlit > maxLitLenDyn || ndist > maxDistDyn {
		return d.corrupt(whyTooManyCodes)
	}
	d.consume(14)

	var clens [numPrecode]uint8
	for _, s := range precodeOrder[:nclen] {
		if d.nbits < 3 {
			if err := d.refillSlow(); err != nil {
				return err
			}
		}
		clens[s] = uint8(d.bits & 7)
		d.consume(3)
	}
	// zlib accepts no incomplete code length code: every such header
	// fails later in compress/flate too (a single code repeats one length
	// for all symbols, which cannot give a valid literal/length code).
	if why := buildTable(d.precode[:], precodeBits, clens[:], precodePayload[:], false); why != "" {
		return d.corrupt(why)
	}

	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		// One symbol takes at most 7 code bits and 7 extra bits.
		if d.nbits < 14 {
			if err := d.refillSlow(); err != nil {
				return err
			}
		}
		e := d.precode[d.bits&(precodeSize-1)]
		d.consume(uint(e & entryBitsMask))
		sym := uint8(e >> entryValueShift)
		if sym < 16 {
			lens[i] = sym
			i++
			continue
		}
		var rep int
		var val uint8
		switch sym {
		case 16: // copy the previous length 3-6 times
			if i == 0 {
				return d.corrupt(whyRepeatFirst)
			}
			rep, val = 3+int(d.bits&3), lens[i-1]
			d.consume(2)
		case 17: // 3-10 zeros
			rep = 3 + int(d.bits&7)
			d.consume(3)
		default: // 18: 11-138 zeros
			rep = 11 + int(d.bits&127)
			d.consume(7)
		}
		if rep > len(lens)-i {
			return d.corrupt(whyRepeatOverflow)
		}
		for range rep {
			lens[i] = val
			i++
		}
	}
	// Every block ends with the end-of-block symbol, so it must have a
	// code; zlib checks this here rather than failing at the block's end.
	if lens[endOfBlock] == 0 {
		return d.corrupt(whyNoEndOfBlock)
	}
	if why := buildTable(d.dyn.lit[:], litLenBits, lens[:nlit], litLenPayload[:], true); why != "" {
		return d.corrupt(why)
	}
	pairLiterals(&d.dyn.lit, lens[:nlit])
	if why := buildTable(d.dyn.dist[:], distBits, lens[nlit:], distPayload[:], true); why != "" {
		return d.corrupt(why)
	}
	return nil
}
