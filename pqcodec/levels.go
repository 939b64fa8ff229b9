package pqcodec

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A nested leaf (a column under a list, a map or an optional struct) has
// definition and repetition levels, one pair per level whether or not it
// holds a value. Its reader decodes a page's levels when it opens the page
// and serves its value decoders with value slots instead of levels: a
// level holds a slot of the leaf's Arrow array when its definition level
// reaches slotDef, the level at which the leaf's nearest repeated ancestor
// holds an element, and the slot is valid when the level is the column's
// maximum. The value section of the page then decodes exactly as a flat
// column's, one slot per value. FieldReader reads a nested leaf a record
// at a time (a repetition level of 0 starts one) and builds the lists and
// structs above it from the levels it hands back.

// nesting is a nested leaf reader's level state.
type nesting struct {
	maxRep  int16
	slotDef int16
	def     []int16 // the open page's levels
	rep     []int16
	at      int // the open page's next level

	// The last batch's levels, for the arrays built above the leaf.
	defs, reps []int16
	perRecord  int // slots per record in the last batch, rounded up
}

// newLeafReader returns a reader of a nested leaf's column chunk, whose
// levels at or past slotDef hold value slots.
func newLeafReader(mem memory.Allocator, r io.ReaderAt, md *metadata.FileMetaData, cc *metadata.ColumnChunkMetaData,
	col *schema.Column, out arrow.DataType, slotDef int16) (*ColumnReader, error) {
	c, err := newColumnReader(mem, r, nil, md, cc, col, out)
	if err != nil {
		return nil, err
	}
	c.nest = &nesting{maxRep: col.MaxRepetitionLevel(), slotDef: slotDef, perRecord: 1}
	return c, nil
}

// openLevels decodes the levels of a data page of n levels, v2's from
// their own sections, v1's from the head of data, and returns the value
// section. It leaves the page's slots and their validity in c.page.
func (c *ColumnReader) openLevels(h pageHeader, n int, v2levels, data []byte) ([]byte, error) {
	nt := c.nest
	nt.def, nt.rep, nt.at = grown(nt.def, n), grown(nt.rep, n), 0
	if h.typ == pageDataV2 {
		if err := c.decodeLevels(encRLE, v2levels[:h.repLen], nt.maxRep, nt.rep, "repetition"); err != nil {
			return nil, err
		}
		if err := c.decodeLevels(encRLE, v2levels[h.repLen:], c.maxDef, nt.def, "definition"); err != nil {
			return nil, err
		}
	} else {
		var err error
		if data, err = c.v1Levels(h.repEnc, data, nt.maxRep, nt.rep, "repetition"); err != nil {
			return nil, err
		}
		if data, err = c.v1Levels(h.defEnc, data, c.maxDef, nt.def, "definition"); err != nil {
			return nil, err
		}
	}
	// The page's slots and their validity, as a flat page's values.
	valid := c.validityScratch(n)
	slots, nulls := 0, 0
	for _, d := range nt.def {
		if d >= nt.slotDef {
			bitutil.SetBitTo(valid, slots, d == c.maxDef)
			if d != c.maxDef {
				nulls++
			}
			slots++
		}
	}
	c.page.left = slots
	if nulls > 0 {
		c.page.valid = valid
	}
	return data, nil
}

// v1Levels decodes one level section that leads a v1 page's data, in the
// encoding the page header names, and returns the data after it.
func (c *ColumnReader) v1Levels(enc int32, data []byte, maxLevel int16, dst []int16, what string) ([]byte, error) {
	if maxLevel == 0 {
		clear(dst)
		return data, nil
	}
	switch enc {
	case encRLE:
		l, err := levelsLength(data)
		if err != nil {
			return nil, fmt.Errorf("%s levels: %w", what, err)
		}
		return data[4+l:], c.decodeLevels(enc, data[4:4+l], maxLevel, dst, what)
	case encBitPacked:
		l := (len(dst)*levelWidth(maxLevel) + 7) / 8
		if l > len(data) {
			return nil, fmt.Errorf("bit-packed %s levels run past the page", what)
		}
		return data[l:], c.decodeLevels(enc, data[:l], maxLevel, dst, what)
	}
	return nil, fmt.Errorf("%s levels in encoding %d", what, enc)
}

// levelBlock is how many levels are decoded into scratch at a time.
const levelBlock = 1024

// decodeLevels decodes len(dst) levels of at most maxLevel, RLE-hybrid or
// BIT_PACKED (enc), from data.
func (c *ColumnReader) decodeLevels(enc int32, data []byte, maxLevel int16, dst []int16, what string) error {
	if maxLevel == 0 {
		clear(dst)
		return nil
	}
	w := levelWidth(maxLevel)
	var d rleDecoder
	if err := d.reset(data, w); err != nil {
		return err
	}
	for done := 0; done < len(dst); {
		m := min(levelBlock, len(dst)-done)
		if enc == encBitPacked {
			// BIT_PACKED has no runs: the whole section at once.
			m = len(dst)
		}
		buf := c.uint32Scratch(m)
		var hi uint32
		if enc == encBitPacked {
			if err := bitPackedLevels(data, w, m, buf); err != nil {
				return fmt.Errorf("%s levels: %w", what, err)
			}
			for _, v := range buf {
				hi = max(hi, v)
			}
		} else {
			var err error
			if hi, err = d.decode(buf); err != nil {
				return fmt.Errorf("%s levels: %w", what, err)
			}
		}
		if hi > uint32(maxLevel) {
			return fmt.Errorf("%s level %d past the column's maximum %d", what, hi, maxLevel)
		}
		out := dst[done : done+m]
		for i, v := range buf {
			out[i] = int16(v)
		}
		done += m
	}
	return nil
}

// levelWidth is the bit width of levels of at most maxLevel.
func levelWidth(maxLevel int16) int { return bits.Len16(uint16(maxLevel)) }

// grown returns s with length n, reallocated only when too small.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// readRecords returns the value slots of the next rows records of a
// nested leaf, leaving their levels in c.nest.defs and c.nest.reps.
func (c *ColumnReader) readRecords(rows int) (arrow.Array, error) {
	nt := c.nest
	nt.defs, nt.reps = nt.defs[:0], nt.reps[:0]
	est := int(min(int64(rows)*int64(nt.perRecord), c.valuesLeft+int64(c.page.left)))
	b, err := c.newBatch(est)
	if err != nil {
		return nil, err
	}
	defer b.release()
	slots, err := c.records(rows, b)
	if err != nil {
		return nil, err
	}
	b.resize(c, slots)
	if rows > 0 {
		nt.perRecord = (slots + rows - 1) / rows
	}
	return b.finish(c)
}

// skipRecords steps over the next rows records of a nested leaf.
func (c *ColumnReader) skipRecords(rows int) error {
	_, err := c.records(rows, nil)
	return err
}

// records reads the next rows records of a nested leaf into b, or steps
// over them when b is nil, a page at a time, and returns their slots. A
// record ends where the next starts, which a page may leave to the next
// one: a page that ends at the last record asked for is followed by a
// look at the next page's first level.
func (c *ColumnReader) records(rows int, b *batch) (int, error) {
	nt := c.nest
	started, pos := 0, 0
	for {
		if nt.at == len(nt.def) {
			if started == rows && (nt.maxRep == 0 || c.valuesLeft == 0) {
				return pos, nil
			}
			if c.valuesLeft == 0 {
				return pos, fmt.Errorf("%w: the chunk ends after %d of %d records", ErrCorrupt, started, rows)
			}
			if err := c.nextPage(); err != nil {
				return pos, err
			}
			continue
		}
		from, end := nt.at, nt.at
		if nt.maxRep == 0 {
			end = from + min(rows-started, len(nt.def)-from)
			started += end - from
		} else {
			for ; end < len(nt.def); end++ {
				if nt.rep[end] != 0 && started == 0 {
					return pos, fmt.Errorf("%w: a record's levels before its start (repetition level %d)", ErrCorrupt, nt.rep[end])
				}
				if nt.rep[end] == 0 {
					if started == rows {
						break
					}
					started++
				}
			}
		}
		k := 0
		for _, d := range nt.def[from:end] {
			if d >= nt.slotDef {
				k++
			}
		}
		if k > c.page.left {
			return pos, fmt.Errorf("%w: %d value slots in a page of %d", ErrCorrupt, k, c.page.left)
		}
		if b != nil {
			nt.defs = append(nt.defs, nt.def[from:end]...)
			nt.reps = append(nt.reps, nt.rep[from:end]...)
			if pos+k > b.n {
				b.resize(c, max(pos+k, 2*b.n))
			}
			if err := c.readRun(b, pos, k); err != nil {
				return pos, err
			}
		} else if err := c.skipRun(k); err != nil {
			return pos, err
		}
		c.page.left -= k
		pos += k
		nt.at = end
		if end < len(nt.def) {
			return pos, nil
		}
	}
}
