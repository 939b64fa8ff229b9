package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Skip moves past the next n values of the chunk without landing them in
// Arrow buffers: rows that a filter on other columns has already ruled
// out (late materialisation). Dictionary indices and RLE booleans are
// stepped over run by run, PLAIN values by their widths or length
// prefixes; a value encoding with no way to step over is decoded into a
// scratch batch and dropped. The page structure is checked as closely as
// a Read checks it; only the dictionary indices of the skipped values
// are not compared with the dictionary's length, since none is looked up.
func (c *ColumnReader) Skip(n int) error {
	if n < 0 {
		return fmt.Errorf("skip %d values", n)
	}
	for n > 0 {
		if c.page.left == 0 {
			skipped, err := c.nextPageSkipping(n)
			if err != nil {
				return err
			}
			n -= skipped
			continue
		}
		k := min(c.page.left, n)
		if err := c.skipRun(k); err != nil {
			return err
		}
		c.page.left -= k
		n -= k
	}
	return nil
}

// nextPageSkipping opens the next data page, reading the dictionary page
// on its way, after stepping over whole data pages of at most n values in
// all without decompressing them: a Skip of many rows costs their pages'
// headers. It returns the values stepped over.
func (c *ColumnReader) nextPageSkipping(n int) (skipped int, err error) {
	for {
		h, body, err := c.src.next()
		if errors.Is(err, io.EOF) {
			return skipped, fmt.Errorf("%w: the chunk ends with %d values still stated", ErrCorrupt, c.valuesLeft)
		}
		if errors.As(err, new(readError)) {
			return skipped, err
		}
		if err != nil {
			return skipped, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		switch h.typ {
		case pageDictionary:
			if err := c.readDictionary(h, body); err != nil {
				return skipped, fmt.Errorf("%w: dictionary page: %v", ErrCorrupt, err)
			}
		case pageData, pageDataV2:
			// A flat column's page holds one value per row, nulls included.
			k := int(h.numValues)
			whole := (h.typ == pageData && h.hasData) || (h.typ == pageDataV2 && h.hasDataV2)
			if whole && k > 0 && int64(k) <= c.valuesLeft && k <= n-skipped {
				c.valuesLeft -= int64(k)
				if skipped += k; skipped == n {
					return skipped, nil
				}
				continue
			}
			if err := c.openDataPage(h, body); err != nil {
				return skipped, fmt.Errorf("%w: data page: %v", ErrCorrupt, err)
			}
			if c.page.left > 0 || c.nest != nil && len(c.nest.def) > 0 {
				return skipped, nil
			}
		default:
			// Index pages, and page types written after this reader, carry
			// no values.
		}
	}
}

// skipRun steps over the next k values of the open page.
func (c *ColumnReader) skipRun(k int) error {
	if !c.canSkip() {
		b, err := c.newBatch(k)
		if err != nil {
			return err
		}
		defer b.release()
		return c.readRun(b, 0, k)
	}
	present := c.presentIn(c.page.at, k)
	c.page.at += k
	switch {
	case c.page.enc == encPlainDictionary || c.page.enc == encRLEDictionary:
		if c.dict == nil {
			if present > 0 {
				return fmt.Errorf("%w: dictionary indices without a dictionary", ErrCorrupt)
			}
			return nil
		}
		if err := c.page.idx.skip(present); err != nil {
			return fmt.Errorf("%w: dictionary indices: %v", ErrCorrupt, err)
		}
	case c.page.enc == encRLE:
		if err := c.page.idx.skip(present); err != nil {
			return fmt.Errorf("%w: RLE booleans: %v", ErrCorrupt, err)
		}
	case c.kind == kindBool:
		if c.page.boolBit+present > 8*len(c.page.plain) {
			return fmt.Errorf("%w: PLAIN page holds %d booleans, %d more asked", ErrCorrupt, 8*len(c.page.plain)-c.page.boolBit, present)
		}
		c.page.boolBit += present
	case c.kind == kindBinary:
		src := c.page.plain
		for range present {
			if len(src) < 4 {
				return fmt.Errorf("%w: PLAIN value's length runs past the page", ErrCorrupt)
			}
			l := int(binary.LittleEndian.Uint32(src))
			if l < 0 || l > len(src)-4 {
				return fmt.Errorf("%w: PLAIN value of %d bytes runs past the page", ErrCorrupt, l)
			}
			src = src[4+l:]
		}
		c.page.plain = src
	default:
		w := c.width
		if c.kind == kindDecimal {
			w = c.physWidth
		}
		need := w * present
		if need > len(c.page.plain) {
			return fmt.Errorf("%w: PLAIN page holds %d bytes, %d values of %d bytes need %d", ErrCorrupt, len(c.page.plain), present, w, need)
		}
		c.page.plain = c.page.plain[need:]
	}
	return nil
}

// canSkip reports whether the open page's value encoding can be stepped
// over without decoding: dictionary indices, RLE booleans and PLAIN
// values, whose reading is all in the page state.
func (c *ColumnReader) canSkip() bool {
	switch c.page.enc {
	case encPlainDictionary, encRLEDictionary:
		return true
	case encRLE:
		return c.kind == kindBool
	case encPlain:
		return !c.dictOut
	}
	return false
}

// skip steps over the next n values.
func (d *rleDecoder) skip(n int) error {
	for n > 0 {
		if d.rleLeft == 0 && d.bpLeft == 0 {
			if err := d.nextRun(); err != nil {
				return err
			}
		}
		if d.rleLeft > 0 {
			k := min(d.rleLeft, n)
			d.rleLeft -= k
			n -= k
			continue
		}
		k := min(d.bpLeft, n)
		d.bpBit += k * int(d.width)
		d.bpLeft -= k
		n -= k
	}
	return nil
}
