package avro

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Decoder reads values in Avro's binary encoding (Avro spec, "Binary
// Encoding") from a byte slice, for callers that decode a known schema
// straight into their own types rather than into goavro's generic values.
//
// The first error sticks: later reads return zero values and Err reports
// it, so a record decodes in straight-line code and is checked once. No
// input makes it panic or allocate in proportion to a length it read:
// lengths and counts are checked against the bytes that remain.
type Decoder struct {
	buf []byte
	pos int
	err error
}

// errShort is the error of a value that runs past the end of the data.
var errShort = errors.New("value runs past the end of the block")

// NewDecoder returns a Decoder reading data from its start.
func NewDecoder(data []byte) *Decoder { return &Decoder{buf: data} }

// Reset makes the decoder read data from its start, clearing any error.
func (d *Decoder) Reset(data []byte) { d.buf, d.pos, d.err = data, 0, nil }

// Err returns the first error met, wrapping ErrInvalid, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records err as the decoder's error unless it already has one.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: datum: %w", ErrInvalid, err)
	}
}

// Remaining returns the number of bytes not yet read.
func (d *Decoder) Remaining() int { return len(d.buf) - d.pos }

// Offset returns the position of the next byte to read.
func (d *Decoder) Offset() int { return d.pos }

// Seek moves the read position to off, an offset Offset returned earlier.
func (d *Decoder) Seek(off int) {
	if off >= 0 && off <= len(d.buf) {
		d.pos = off
	}
}

// Long reads a zig-zag varint long.
func (d *Decoder) Long() int64 {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.pos >= len(d.buf) {
			d.Fail(errShort)
			return 0
		}
		b := d.buf[d.pos]
		d.pos++
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return int64(u>>1) ^ -int64(u&1)
		}
	}
	d.Fail(errors.New("varint longer than 10 bytes"))
	return 0
}

// Int reads a zig-zag varint int; a value outside 32 bits is an error.
func (d *Decoder) Int() int32 {
	v := d.Long()
	if v != int64(int32(v)) {
		d.Fail(fmt.Errorf("int %d out of range", v))
		return 0
	}
	return int32(v)
}

// Boolean reads a boolean: one byte, 0 or 1.
func (d *Decoder) Boolean() bool {
	if d.pos >= len(d.buf) {
		d.Fail(errShort)
		return false
	}
	b := d.buf[d.pos]
	d.pos++
	if b > 1 {
		d.Fail(fmt.Errorf("boolean byte %d", b))
	}
	return b == 1
}

// Float reads a little-endian IEEE 754 float.
func (d *Decoder) Float() float32 {
	b := d.Fixed(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// Double reads a little-endian IEEE 754 double.
func (d *Decoder) Double() float64 {
	b := d.Fixed(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// Bytes reads a length-prefixed bytes or string value. The slice aliases the
// decoder's data: copy it to keep it past the data's lifetime.
func (d *Decoder) Bytes() []byte {
	n := d.Long()
	if n < 0 {
		d.Fail(fmt.Errorf("negative length %d", n))
		return nil
	}
	return d.Fixed(int(min(n, math.MaxInt32)))
}

// Fixed reads n bytes, aliasing the decoder's data; nil after an error.
func (d *Decoder) Fixed(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 {
		d.Fail(fmt.Errorf("negative length %d", n))
		return nil
	}
	if n > len(d.buf)-d.pos {
		d.Fail(errShort)
		return nil
	}
	b := d.buf[d.pos : d.pos+n : d.pos+n]
	d.pos += n
	return b
}

// Union reads a union's branch index and returns the branch's schema; nil
// after an error.
func (d *Decoder) Union(s *Schema) *Schema {
	if i := d.UnionIndex(s); i >= 0 {
		return s.Branches[i]
	}
	return nil
}

// UnionIndex reads a union's branch index, checked against the union's
// branches; -1 after an error.
func (d *Decoder) UnionIndex(s *Schema) int {
	i := d.Long()
	if d.err != nil {
		return -1
	}
	if i < 0 || i >= int64(len(s.Branches)) {
		d.Fail(fmt.Errorf("union branch %d of %d", i, len(s.Branches)))
		return -1
	}
	return int(i)
}

// BlockCount reads the item count that starts each block of an array or
// map, skipping the byte size that follows a negative count. It returns 0
// at the end of the value. A count larger than the bytes left is an error,
// so callers may size memory by it: items that take no bytes at all (an
// array of nulls) are only read by Skip.
func (d *Decoder) BlockCount() int64 {
	n := d.Long()
	if n < 0 {
		if n == math.MinInt64 {
			d.Fail(errors.New("block count out of range"))
			return 0
		}
		n = -n
		if size := d.Long(); size < 0 || size > int64(d.Remaining()) {
			d.Fail(fmt.Errorf("block byte size %d", size))
			return 0
		}
	}
	if d.err != nil {
		return 0
	}
	if n > int64(d.Remaining()) {
		d.Fail(fmt.Errorf("block of %d items in %d bytes", n, d.Remaining()))
		return 0
	}
	return n
}

// zeroSize reports whether every value of s is encoded in zero bytes.
func zeroSize(s *Schema, depth int) bool {
	if s == nil || depth > 32 {
		return false
	}
	switch s.Kind {
	case KindNull:
		return true
	case KindFixed:
		return s.Size == 0
	case KindRecord:
		for _, f := range s.Fields {
			if !zeroSize(f.Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// Skip reads past one value of schema s. Arrays and maps written with
// block byte sizes are skipped by size, without reading their items.
func (d *Decoder) Skip(s *Schema) {
	d.skip(s, 0)
}

// maxDepth bounds the nesting of values that Skip follows, so that a
// recursive schema cannot exhaust the stack on damaged data.
const maxDepth = 1000

func (d *Decoder) skip(s *Schema, depth int) {
	if d.err != nil {
		return
	}
	if depth > maxDepth {
		d.Fail(errors.New("values nested too deep"))
		return
	}
	switch s.Kind {
	case KindNull:
	case KindBoolean:
		d.Fixed(1)
	case KindInt, KindLong, KindEnum:
		d.Long()
	case KindFloat:
		d.Fixed(4)
	case KindDouble:
		d.Fixed(8)
	case KindBytes, KindString:
		d.Bytes()
	case KindFixed:
		d.Fixed(s.Size)
	case KindRecord:
		for i := range s.Fields {
			d.skip(s.Fields[i].Type, depth+1)
		}
	case KindUnion:
		if b := d.Union(s); b != nil {
			d.skip(b, depth+1)
		}
	case KindArray, KindMap:
		d.skipBlocks(s, depth)
	default:
		d.Fail(fmt.Errorf("cannot skip Avro type %q", s.Type))
	}
}

func (d *Decoder) skipBlocks(s *Schema, depth int) {
	items := s.Items
	if s.Kind == KindMap {
		items = s.Values
	}
	for d.err == nil {
		n := d.Long()
		if n == 0 || d.err != nil {
			return
		}
		if n < 0 { // a negative count is followed by the block's byte size
			size := d.Long()
			if size < 0 {
				d.Fail(fmt.Errorf("block byte size %d", size))
				return
			}
			d.Fixed(int(min(size, math.MaxInt32)))
			continue
		}
		empty := s.Kind == KindArray && zeroSize(items, 0)
		if n > int64(d.Remaining()) && !empty {
			d.Fail(fmt.Errorf("block of %d items in %d bytes", n, d.Remaining()))
			return
		}
		if empty {
			continue
		}
		for ; n > 0 && d.err == nil; n-- {
			if s.Kind == KindMap {
				d.Bytes()
			}
			d.skip(items, depth+1)
		}
	}
}
