package avro

import (
	"encoding/binary"
	"math"
)

// Encoder appends values in Avro's binary encoding (Avro spec, "Binary
// Encoding") to a byte slice: the counterpart of Decoder, for callers that
// encode a known schema straight from their own types rather than through
// goavro's generic values. It checks nothing against a schema; the caller
// writes the values of its schema in order.
type Encoder struct {
	buf []byte
}

// Encoded returns the bytes written since the last Reset. They alias the
// encoder's memory until the next write.
func (e *Encoder) Encoded() []byte { return e.buf }

// Reset empties the encoder, keeping its memory.
func (e *Encoder) Reset() { e.buf = e.buf[:0] }

// Long writes a zig-zag varint long. (encoding/binary's varints are Avro's
// zig-zag longs.)
func (e *Encoder) Long(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// Int writes an int, encoded as a long is.
func (e *Encoder) Int(v int32) { e.Long(int64(v)) }

// Boolean writes a boolean: one byte, 0 or 1.
func (e *Encoder) Boolean(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
}

// Float writes a little-endian IEEE 754 float.
func (e *Encoder) Float(v float32) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(v))
}

// Double writes a little-endian IEEE 754 double.
func (e *Encoder) Double(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
}

// Bytes writes a bytes value: its length, then the bytes.
func (e *Encoder) Bytes(v []byte) {
	e.Long(int64(len(v)))
	e.buf = append(e.buf, v...)
}

// String writes a string value, encoded as bytes are.
func (e *Encoder) String(v string) {
	e.Long(int64(len(v)))
	e.buf = append(e.buf, v...)
}

// Fixed writes the bytes of a fixed value, which has no length of its own:
// v must have the fixed type's size.
func (e *Encoder) Fixed(v []byte) { e.buf = append(e.buf, v...) }

// UnionIndex writes the index of the union branch the value that follows
// takes (0 for the null of an optional field written ["null", T]).
func (e *Encoder) UnionIndex(i int) { e.Long(int64(i)) }

// BlockCount writes the item count that starts a block of an array or map;
// a count of 0 ends the value. An array of n > 0 items is BlockCount(n),
// the items, BlockCount(0); an empty one is BlockCount(0) alone.
func (e *Encoder) BlockCount(n int) { e.Long(int64(n)) }
