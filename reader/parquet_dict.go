package reader

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/pqcodec"
)

// Dictionary-encoded string columns are read as Arrow dictionaries and
// unpacked here. pqarrow's plain path resolves every value to a slice of the
// Parquet dictionary and appends it to a BinaryBuilder one at a time, which
// grows its buffers as it goes; read as a dictionary, a column costs one
// pass over its int32 indices, and unpacking knows the exact size of its
// output before copying a byte. On the read benchmark's big table (TPC-H
// lineitem, five string columns) that takes about a quarter off the
// reader's CPU time. Package parquet's DictionaryColumns and
// PassThroughColumns pick the columns read so.

// unpackDictionary returns the values a dictionary array stands for as a
// dense array of the dictionary's value type. The caller owns the result.
func unpackDictionary(mem memory.Allocator, d *array.Dictionary) (arrow.Array, error) {
	dict := d.Dictionary().Data()
	idx := d.Indices().Data()
	vt := dict.DataType()
	if (vt.ID() != arrow.STRING && vt.ID() != arrow.BINARY) || idx.DataType().ID() != arrow.INT32 || dict.NullN() > 0 {
		return nil, fmt.Errorf("%w: dictionary of %s indexed by %s", ErrUnsupported, vt, idx.DataType())
	}
	n := idx.Len()
	if n == 0 {
		return array.MakeArrayOfNull(mem, vt, 0), nil
	}
	nd := dict.Len()
	offs := arrow.Int32Traits.CastFromBytes(dict.Buffers()[1].Bytes())[dict.Offset() : dict.Offset()+nd+1]
	var vals []byte
	if b := dict.Buffers()[2]; b != nil {
		vals = b.Bytes()
	}
	keys := arrow.Int32Traits.CastFromBytes(idx.Buffers()[1].Bytes())[idx.Offset() : idx.Offset()+n]
	var valid []byte
	if d.NullN() > 0 && d.Data().Buffers()[0] != nil {
		valid = d.Data().Buffers()[0].Bytes()
	}
	at := d.Data().Offset()

	// Size the output first: one allocation each for offsets and bytes.
	var total int64
	for i, k := range keys {
		if valid != nil && !bitutil.BitIsSet(valid, at+i) {
			continue
		}
		if uint32(k) >= uint32(nd) {
			return nil, fmt.Errorf("%w: dictionary index %d out of range of %d values", ErrInvalidTask, k, nd)
		}
		total += int64(offs[k+1] - offs[k])
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d bytes of strings in one batch", ErrUnsupported, total)
	}
	slots := pqcodec.NewSlots(offs, vals)
	offBuf := memory.NewResizableBuffer(uninitialized(mem))
	defer offBuf.Release()
	offBuf.Resize((n + 1) * arrow.Int32SizeBytes)
	out := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	dataBuf := memory.NewResizableBuffer(uninitialized(mem))
	defer dataBuf.Release()
	// Room for the last value's whole slot; the length stays total.
	dataBuf.Resize(int(total) + pqcodec.MaxSlot)
	data := dataBuf.Bytes()
	var pos int32
	if slots.Usable() {
		pos = slots.Gather(data, out, keys, valid, at, 0)
	} else {
		for i, k := range keys {
			out[i] = pos
			if valid != nil && !bitutil.BitIsSet(valid, at+i) {
				continue
			}
			pos += int32(copy(data[pos:], vals[offs[k]:offs[k+1]]))
		}
	}
	out[n] = pos
	dataBuf.ResizeNoShrink(int(total))

	validity := alignedValidity(mem, d.Data())
	if validity != nil {
		defer validity.Release()
	}
	return newArray(vt, n, []*memory.Buffer{validity, offBuf, dataBuf}, nil, d.NullN(), 0), nil
}
