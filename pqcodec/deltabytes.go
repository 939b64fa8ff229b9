package pqcodec

import (
	"fmt"
	"math"
)

// DELTA_LENGTH_BYTE_ARRAY (Parquet encodings, Delta-length byte array)
// stores byte arrays as their lengths, a DELTA_BINARY_PACKED sequence,
// then all their bytes one after another. DELTA_BYTE_ARRAY (Delta Strings,
// also called front coding) stores each value as the length of the prefix
// it shares with the value before it, a DELTA_BINARY_PACKED sequence, then
// the rest of it, the suffixes, as DELTA_LENGTH_BYTE_ARRAY; a page's first
// value has no value before it, so its prefix is empty. Both cover
// BYTE_ARRAY, and DELTA_BYTE_ARRAY FIXED_LEN_BYTE_ARRAY too, where every
// value's prefix and suffix add up to the type's length.

// deltaBytes is the open page of either encoding.
type deltaBytes struct {
	prefixes deltaDecoder // DELTA_BYTE_ARRAY's prefix lengths
	lengths  deltaDecoder // value lengths, or DELTA_BYTE_ARRAY's suffix lengths
	bytes    []byte       // the bytes of the values (suffixes) not yet read
	prevLen  int          // length of the page's last value read, in ColumnReader.prev
}

// openDeltaLength opens a DELTA_LENGTH_BYTE_ARRAY page, or the suffixes of
// a DELTA_BYTE_ARRAY page, of n values of which present are not null.
func (p *deltaBytes) openDeltaLength(data []byte, present, n int) error {
	if err := p.lengths.reset(data, 32, n); err != nil {
		return fmt.Errorf("lengths: %w", err)
	}
	if p.lengths.total < present {
		return fmt.Errorf("%d lengths for %d values", p.lengths.total, present)
	}
	end, err := p.lengths.end()
	if err != nil {
		return fmt.Errorf("lengths: %w", err)
	}
	p.bytes = data[end:]
	return nil
}

// openDeltaByteArray opens a DELTA_BYTE_ARRAY page of n values of which
// present are not null.
func (p *deltaBytes) openDeltaByteArray(data []byte, present, n int) error {
	if err := p.prefixes.reset(data, 32, n); err != nil {
		return fmt.Errorf("prefix lengths: %w", err)
	}
	if p.prefixes.total < present {
		return fmt.Errorf("%d prefix lengths for %d values", p.prefixes.total, present)
	}
	end, err := p.prefixes.end()
	if err != nil {
		return fmt.Errorf("prefix lengths: %w", err)
	}
	return p.openDeltaLength(data[end:], present, n)
}

// lengthsOf decodes the next len(dst) lengths of d, each a non-negative
// INT32.
func lengthsOf(d *deltaDecoder, dst []uint32, what string) error {
	if err := deltaDecode(d, dst); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for _, l := range dst {
		if l > math.MaxInt32 {
			return fmt.Errorf("%s: a length of %d", what, int32(l))
		}
	}
	return nil
}

// readDeltaLength copies the run's present DELTA_LENGTH_BYTE_ARRAY values
// into b: their bytes lie one after another in the page, so one copy
// moves them all.
func (c *ColumnReader) readDeltaLength(b *batch, pos, k, present int) error {
	p := &c.page.delta
	lens := c.uint32Scratch(present)
	if err := lengthsOf(&p.lengths, lens, "lengths"); err != nil {
		return fmt.Errorf("%w: DELTA_LENGTH_BYTE_ARRAY %v", ErrCorrupt, err)
	}
	total := 0
	for _, l := range lens {
		total += int(l) // at most 2^31 lengths below 2^31
	}
	if total > len(p.bytes) {
		return fmt.Errorf("%w: DELTA_LENGTH_BYTE_ARRAY values of %d bytes in a page of %d left", ErrCorrupt, total, len(p.bytes))
	}
	if err := b.grow(total); err != nil {
		return err
	}
	at := b.dlen
	copy(b.data[at:], p.bytes[:total])
	p.bytes = p.bytes[total:]
	offs := b.offs[pos+1 : pos+k+1]
	j := 0
	for i := range offs {
		if b.isValid(pos + i) {
			at += int(lens[j])
			j++
		}
		offs[i] = int32(at)
	}
	b.dlen = at
	return nil
}

// frontCoded decodes the prefix and suffix lengths of the run's present
// DELTA_BYTE_ARRAY values, checks each prefix against the value before it
// and the suffixes against the page, and returns them with the bytes the
// values take together (which may be many times the page: a long value
// repeated costs a few bits a copy), or 2^31 when they take more.
func (c *ColumnReader) frontCoded(present int) (prefixes, suffixes []uint32, total int, err error) {
	p := &c.page.delta
	prefixes = c.uint32Scratch(present)
	if cap(c.lens) < present {
		c.lens = make([]uint32, present)
	}
	suffixes = c.lens[:present]
	if err := lengthsOf(&p.prefixes, prefixes, "prefix lengths"); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: DELTA_BYTE_ARRAY %v", ErrCorrupt, err)
	}
	if err := lengthsOf(&p.lengths, suffixes, "suffix lengths"); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: DELTA_BYTE_ARRAY %v", ErrCorrupt, err)
	}
	prev, suffixBytes := p.prevLen, 0
	for j, pre := range prefixes {
		if int(pre) > prev {
			return nil, nil, 0, fmt.Errorf("%w: DELTA_BYTE_ARRAY prefix of %d bytes after a value of %d", ErrCorrupt, pre, prev)
		}
		suffixBytes += int(suffixes[j])
		if suffixBytes > len(p.bytes) {
			return nil, nil, 0, fmt.Errorf("%w: DELTA_BYTE_ARRAY suffixes run past the page", ErrCorrupt)
		}
		// prev is at most the page's first value and its suffixes, so
		// total, kept just past 2^31 (more than a batch holds), cannot
		// overflow.
		prev = int(pre) + int(suffixes[j])
		total = min(total+prev, math.MaxInt32+1)
	}
	return prefixes, suffixes, total, nil
}

// readDeltaByteArray rebuilds the run's present DELTA_BYTE_ARRAY values in
// b, each from the value before it (in b, or kept from the run before) and
// its suffix.
func (c *ColumnReader) readDeltaByteArray(b *batch, pos, k, present int) error {
	prefixes, suffixes, total, err := c.frontCoded(present)
	if err != nil {
		return err
	}
	if err := b.grow(total); err != nil {
		return err
	}
	p := &c.page.delta
	data, at := b.data, b.dlen
	prev := c.prev[:p.prevLen]
	offs := b.offs[pos+1 : pos+k+1]
	j := 0
	for i := range offs {
		if b.isValid(pos + i) {
			start := at
			at += copy(data[at:], prev[:prefixes[j]])
			s := int(suffixes[j])
			at += copy(data[at:], p.bytes[:s])
			p.bytes = p.bytes[s:]
			// The value lies before the next one's start: the copies
			// never overlap.
			prev = data[start:at]
			j++
		}
		offs[i] = int32(at)
	}
	b.dlen = at
	c.keepPrev(prev)
	return nil
}

// decodeFrontCoded rebuilds the next len(dst)/width present values of a
// DELTA_BYTE_ARRAY page of FIXED_LEN_BYTE_ARRAY values into dst.
func (c *ColumnReader) decodeFrontCoded(dst []byte, width int) error {
	n := len(dst) / width
	prefixes, suffixes, _, err := c.frontCoded(n)
	if err != nil {
		return err
	}
	p := &c.page.delta
	prev := c.prev[:p.prevLen]
	for j := range n {
		if int(prefixes[j])+int(suffixes[j]) != width {
			return fmt.Errorf("%w: DELTA_BYTE_ARRAY value of %d+%d bytes in a column of %d", ErrCorrupt, prefixes[j], suffixes[j], width)
		}
		o := dst[j*width : (j+1)*width]
		at := copy(o, prev[:prefixes[j]])
		copy(o[at:], p.bytes[:suffixes[j]])
		p.bytes = p.bytes[suffixes[j]:]
		prev = o
	}
	c.keepPrev(prev)
	return nil
}

// keepPrev keeps a copy of the run's last value, the prefixes' source for
// the next run of the page.
func (c *ColumnReader) keepPrev(v []byte) {
	c.prev = append(c.prev[:0], v...)
	c.page.delta.prevLen = len(v)
}
