package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dictionary is a chunk's dictionary page, decoded once: fixed-width
// values in u32, u64 or fixed (by width), binary values as offsets into
// data.
type dictionary struct {
	n     int
	u32   []uint32
	u64   []uint64
	fixed []byte
	offs  []int32
	data  []byte
	// longest is the longest binary value's length, which bounds the
	// bytes a run of n values takes.
	longest int
	slots   Slots
	arr     arrow.Array // the values as an Arrow array, built for dictionary output
}

func (c *ColumnReader) readDictionary(h pageHeader, body []byte) error {
	if !h.hasDict {
		return errors.New("page header lacks its dictionary page header")
	}
	if c.dict != nil {
		return errors.New("a second dictionary page")
	}
	if h.encoding != encPlain && h.encoding != encPlainDictionary {
		return fmt.Errorf("dictionary page in encoding %d", h.encoding)
	}
	if c.kind == kindBool {
		return errors.New("dictionary page in a boolean column")
	}
	data, err := c.decompress(body, int(h.uncompressedSize))
	if err != nil {
		return err
	}
	n := int(h.numValues)
	d := &dictionary{n: n}
	switch {
	case n < 0:
		return fmt.Errorf("%d values", n)
	case c.kind == kindDecimal:
		pw := c.physWidth
		if n > len(data)/pw {
			return fmt.Errorf("%d decimals of %d bytes in %d bytes", n, pw, len(data))
		}
		d.fixed = make([]byte, 16*n)
		for i := range n {
			c.widenDecimal(d.fixed[16*i:16*(i+1)], data[pw*i:pw*(i+1)])
		}
	case c.kind == kindFixed:
		if n > len(data)/c.width {
			return fmt.Errorf("%d values of %d bytes in %d bytes", n, c.width, len(data))
		}
		switch c.width {
		case 4:
			d.u32 = make([]uint32, n)
			for i := range d.u32 {
				d.u32[i] = binary.LittleEndian.Uint32(data[4*i:])
			}
		case 8:
			d.u64 = make([]uint64, n)
			for i := range d.u64 {
				d.u64[i] = binary.LittleEndian.Uint64(data[8*i:])
			}
		default:
			d.fixed = append([]byte(nil), data[:n*c.width]...)
		}
	default:
		if n > len(data)/4 {
			return fmt.Errorf("%d values in %d bytes", n, len(data))
		}
		d.offs = make([]int32, n+1)
		size := 0
		for i, p := 0, 0; i < n; i++ {
			if len(data)-p < 4 {
				return fmt.Errorf("value %d runs past the page", i)
			}
			l := int(binary.LittleEndian.Uint32(data[p:]))
			p += 4
			if l < 0 || l > len(data)-p {
				return fmt.Errorf("value %d of %d bytes runs past the page", i, l)
			}
			p += l
			size += l
			d.longest = max(d.longest, l)
		}
		d.data = make([]byte, 0, size)
		for i, p := 0, 0; i < n; i++ {
			l := int(binary.LittleEndian.Uint32(data[p:]))
			d.data = append(d.data, data[p+4:p+4+l]...)
			p += 4 + l
			d.offs[i+1] = int32(len(d.data))
		}
		d.slots = NewSlots(d.offs, d.data)
	}
	c.dict = d
	return nil
}

// len returns the length of binary value i.
func (d *dictionary) len(i uint32) int { return int(d.offs[i+1] - d.offs[i]) }

// array returns the dictionary's values as an Arrow array of type vt,
// built on first use; the dictionary keeps a reference.
func (d *dictionary) array(mem memory.Allocator, vt arrow.DataType) arrow.Array {
	if d.arr == nil {
		offs := memory.NewResizableBuffer(mem)
		offs.Resize(4 * (d.n + 1))
		copy(arrow.Int32Traits.CastFromBytes(offs.Bytes()), d.offs)
		vals := memory.NewResizableBuffer(mem)
		vals.Resize(len(d.data))
		copy(vals.Bytes(), d.data)
		data := array.NewData(vt, d.n, []*memory.Buffer{nil, offs, vals}, nil, 0, 0)
		d.arr = array.MakeFromData(data)
		data.Release()
		offs.Release()
		vals.Release()
	}
	return d.arr
}

func (d *dictionary) release() {
	if d.arr != nil {
		d.arr.Release()
		d.arr = nil
	}
}
