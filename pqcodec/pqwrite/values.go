package pqwrite

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// view is an Arrow array's buffers as the column writer reads them: the
// validity bitmap and the values, addressed by row from 0 to the array's
// length (the array's offset folded in).
type view struct {
	nulls    int
	validity []byte // nil without nulls
	bitOff   int    // offset of row 0 in validity and, for booleans, in data
	data     []byte // fixed-width values from row 0; booleans' bits; binaries' bytes
	offsets  []int32
	size     int  // bytes of a fixed-width value
	decimal  bool // decimal128 values, which FIXED_LEN_BYTE_ARRAY stores big-endian
}

func viewOf(arr arrow.Array, k kind, width int) (view, error) {
	d := arr.Data()
	v := view{nulls: arr.NullN(), bitOff: d.Offset()}
	if v.nulls > 0 {
		if b := d.Buffers()[0]; b != nil {
			v.validity = b.Bytes()
		}
	}
	if v.nulls == d.Len() {
		// Every row is null: no value is read, and an all-null array may
		// have no value buffers at all.
		return v, nil
	}
	buf := func(i int) []byte {
		if bs := d.Buffers(); i < len(bs) && bs[i] != nil {
			return bs[i].Bytes()
		}
		return nil
	}
	var size int
	switch k {
	case kindBool:
		v.data = buf(1)
		if (d.Offset()+d.Len()+7)/8 > len(v.data) {
			return v, fmt.Errorf("values buffer of %d bytes for %d booleans at offset %d", len(v.data), d.Len(), d.Offset())
		}
		return v, nil
	case kindBytes:
		// The offsets of a slice index the whole data buffer (ValueBytes
		// would start at the slice's first value).
		switch a := arr.(type) {
		case *array.String:
			v.offsets = a.ValueOffsets()
		case *array.Binary:
			v.offsets = a.ValueOffsets()
		default:
			return v, fmt.Errorf("unexpected array %T", arr)
		}
		v.data = buf(2)
		if len(v.offsets) > 0 && int(v.offsets[len(v.offsets)-1]) > len(v.data) {
			return v, fmt.Errorf("offsets past the %d bytes of data", len(v.data))
		}
		return v, nil
	case kindInt32, kindFloat32:
		size = 4
	case kindInt64, kindFloat64:
		size = 8
	case kindDecimal:
		size, v.decimal = 16, true
	default:
		size = width
	}
	data := buf(1)
	start, end := d.Offset()*size, (d.Offset()+d.Len())*size
	if end > len(data) {
		return v, fmt.Errorf("values buffer of %d bytes for %d values at offset %d", len(data), d.Len(), d.Offset())
	}
	v.data, v.size = data[start:end], size
	return v, nil
}

// valid returns 1 if row i holds a value, 0 if it is null.
func (v *view) valid(i int) uint8 {
	if v.validity == nil {
		return 1
	}
	return v.validity[(v.bitOff+i)>>3] >> ((v.bitOff + i) & 7) & 1
}

// gather returns the 4- or 8-byte values of rows [off, off+n) that are
// not null: a view of the array without nulls, else copied into scratch.
func gather[T uint32 | uint64](v *view, off, n int, scratch *[]T) []T {
	all := castSlice[T](v.data)
	if v.nulls == 0 {
		return all[off : off+n]
	}
	out := (*scratch)[:0]
	for i := off; i < off+n; i++ {
		if v.valid(i) == 1 {
			out = append(out, all[i])
		}
	}
	*scratch = out
	return out
}

// gatherFixed returns the non-null values of rows [off, off+n) end to end
// as FIXED_LEN_BYTE_ARRAY of width bytes. Decimal128 values (16 bytes
// little-endian in Arrow) become the low width bytes of their big-endian
// two's complement form, as pqarrow stores them.
func (v *view) gatherFixed(off, n, width int, scratch *[]byte) []byte {
	size := v.size
	if !v.decimal && v.nulls == 0 {
		return v.data[off*width : (off+n)*width]
	}
	out := (*scratch)[:0]
	for i := off; i < off+n; i++ {
		if v.valid(i) == 0 {
			continue
		}
		val := v.data[i*size : (i+1)*size]
		if !v.decimal {
			out = append(out, val...)
			continue
		}
		// Decimal128: low and high 64-bit words, little-endian.
		var be [16]byte
		binary.BigEndian.PutUint64(be[:8], binary.LittleEndian.Uint64(val[8:]))
		binary.BigEndian.PutUint64(be[8:], binary.LittleEndian.Uint64(val[:8]))
		out = append(out, be[16-width:]...)
	}
	*scratch = out
	return out
}

// appendBools appends the non-null booleans of rows [off, off+n), one byte
// each.
func (v *view) appendBools(dst []uint8, off, n int) []uint8 {
	for i := off; i < off+n; i++ {
		if v.nulls > 0 && v.valid(i) == 0 {
			continue
		}
		j := v.bitOff + i
		dst = append(dst, v.data[j>>3]>>(j&7)&1)
	}
	return dst
}

// castSlice reinterprets little-endian value bytes as a slice of T.
func castSlice[T uint32 | uint64](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(T(0)))
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
}

func asInt32(v []uint32) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

func asInt64(v []uint64) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

func asFloat32(v []uint32) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

func asFloat64(v []uint64) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}
