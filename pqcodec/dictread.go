package pqcodec

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// A dictionary-encoded run is read a block of rows at a time: the block's
// indices are unpacked into scratch, checked against the dictionary by
// their largest value, which the unpacking returns, and looked up while
// they are still in L1 cache.

// idxBlock is the rows whose indices are decoded at a time (4 KiB of them).
const idxBlock = 1024

// indexBlocks calls f for each block of the k rows from pos, in order,
// with the block's first row (relative to pos), its rows and the checked
// indices of its present rows. present is the run's present rows.
func (c *ColumnReader) indexBlocks(b *batch, pos, k, present int, f func(i, m int, idx []uint32) error) error {
	for i := 0; i < k; i += idxBlock {
		m := min(idxBlock, k-i)
		p := m
		if present < k {
			p = bitutil.CountSetBits(b.valid, pos+i, m)
		}
		idx, err := c.indices(p)
		if err != nil {
			return err
		}
		if err := f(i, m, idx); err != nil {
			return err
		}
	}
	return nil
}

// indices decodes the next n dictionary indices of the open page and fails,
// before any is looked up, if one lies outside the dictionary. The slice
// returned has room for one more index past its length, which is 0: the
// lookups of runs with nulls read one index ahead.
func (c *ColumnReader) indices(n int) ([]uint32, error) {
	idx := c.uint32Scratch(n + 1)
	hi, err := c.page.idx.decode(idx[:n])
	if err != nil {
		return nil, fmt.Errorf("%w: dictionary indices: %v", ErrCorrupt, err)
	}
	if n > 0 && int(hi) >= c.dict.n {
		return nil, fmt.Errorf("%w: dictionary index %d of a dictionary of %d values", ErrCorrupt, hi, c.dict.n)
	}
	idx[n] = 0
	return idx[:n], nil
}

// validBit is row r's validity bit as 0 or 1.
func validBit(valid []byte, r int) uint {
	return uint(valid[r>>3]>>(uint(r)&7)) & 1
}

// readIndices writes the run's dictionary indices as the batch's keys.
func (c *ColumnReader) readIndices(b *batch, pos, k, present int) error {
	if c.dict == nil {
		if present > 0 {
			return fmt.Errorf("%w: dictionary indices without a dictionary", ErrCorrupt)
		}
		clear(b.vals[4*pos : 4*(pos+k)])
		return nil
	}
	keys := arrow.Int32Traits.CastFromBytes(b.vals)[pos : pos+k]
	return c.indexBlocks(b, pos, k, present, func(i, m int, idx []uint32) error {
		spreadKeys(keys[i:i+m], idx, b.valid, pos+i)
		return nil
	})
}

// spreadKeys writes idx[j] to the j-th row of out whose validity bit (bit
// at+i of valid for row i) is set, and 0 to the others; every row is
// valid when len(idx) == len(out). idx has room for one more index, 0,
// past its length.
func spreadKeys(out []int32, idx []uint32, valid []byte, at int) {
	if len(idx) == len(out) {
		for i, x := range idx {
			out[i] = int32(x)
		}
		return
	}
	// Nulls fall anywhere, so a branch on each row's bit would be
	// mispredicted as often as they change; every row reads the next
	// index and keeps it or zero by a mask.
	ext := idx[:len(idx)+1]
	j := uint(0)
	for i := range out {
		bit := validBit(valid, at+i)
		out[i] = int32(ext[j]) & -int32(bit)
		j += bit
	}
}

// readDictFixed looks up the run's fixed-width values, out being the run's
// rows in the batch.
func (c *ColumnReader) readDictFixed(b *batch, out []byte, pos, k, present int) error {
	d, w := c.dict, c.width
	return c.indexBlocks(b, pos, k, present, func(i, m int, idx []uint32) error {
		o := out[w*i : w*(i+m)]
		switch w {
		case 4:
			gather(castSlice[uint32](o), d.u32, idx, b.valid, pos+i)
		case 8:
			gather(castSlice[uint64](o), d.u64, idx, b.valid, pos+i)
		default:
			j := 0
			for r := range m {
				v := o[w*r : w*(r+1)]
				if b.isValid(pos + i + r) {
					x := int(idx[j])
					copy(v, d.fixed[w*x:w*(x+1)])
					j++
				} else {
					clear(v)
				}
			}
		}
		return nil
	})
}

// gather writes dict[idx[j]] to the j-th row of out whose validity bit (bit
// at+i of valid for row i) is set, and zeros to the others; every row is
// valid when len(idx) == len(out). The indices were checked against the
// dictionary, and idx has room for one more index, 0, past its length.
func gather[T uint32 | uint64](out, dict []T, idx []uint32, valid []byte, at int) {
	if len(idx) == len(out) {
		for i, x := range idx {
			out[i] = dict[x]
		}
		return
	}
	if len(idx) == 0 {
		clear(out)
		return
	}
	// As in spreadKeys, with no branch on the rows' bits: a null row looks
	// up the next index (or the 0 past the last) and writes zero.
	ext := idx[:len(idx)+1]
	j := uint(0)
	for i := range out {
		bit := validBit(valid, at+i)
		out[i] = dict[ext[j]] & -T(bit)
		j += bit
	}
}

// readDictBinary copies the run's binary values out of the dictionary.
func (c *ColumnReader) readDictBinary(b *batch, pos, k, present int) error {
	d := c.dict
	return c.indexBlocks(b, pos, k, present, func(i, m int, idx []uint32) error {
		// The block's values take at most m times the longest: where the
		// buffer has that room, their exact size is not summed.
		if room := m*d.longest + MaxSlot; room > len(b.data)-b.dlen || b.dlen+room > math.MaxInt32 {
			total := 0
			for _, x := range idx {
				total += d.len(x)
			}
			if err := b.grow(total + MaxSlot); err != nil {
				return err
			}
		}
		offs := b.offs[pos+i : pos+i+m+1]
		if d.slots.Usable() {
			keys := c.rowKeys(b, idx, pos+i, m)
			end := d.slots.Gather(b.data, offs, keys, b.valid, pos+i, int32(b.dlen))
			offs[m] = end
			b.dlen = int(end)
			return nil
		}
		data, at := b.data, b.dlen
		j := 0
		for r := range m {
			offs[r] = int32(at)
			if b.isValid(pos + i + r) {
				x := idx[j]
				j++
				at += copy(data[at:], d.data[d.offs[x]:d.offs[x+1]])
			}
		}
		offs[m] = int32(at)
		b.dlen = at
		return nil
	})
}

// rowKeys returns the dictionary index of every row of the block, as Slots
// takes them: idx itself when no row is null, else idx spread over the
// valid rows with 0 in the null ones.
func (c *ColumnReader) rowKeys(b *batch, idx []uint32, pos, k int) []int32 {
	if len(idx) == k {
		return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(idx))), k)
	}
	if cap(c.keys) < k {
		c.keys = make([]int32, k)
	}
	keys := c.keys[:k]
	spreadKeys(keys, idx, b.valid, pos)
	return keys
}
