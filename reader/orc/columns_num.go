package orc

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Each reader below decodes the k values present among n rows into a
// scratch slice, spreads them over the n rows (nulls get a zero), and
// appends the batch to its builder in one call.

// boolColumn: Spec: Boolean Columns — DATA is boolean RLE.
type boolColumn struct {
	presence
	b    *array.BooleanBuilder
	data *boolRLE
	vals []bool
}

func (c *boolColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	b, _ := s.stream(c.id, streamData)
	c.data = newBoolRLE(b)
	return nil
}

func (c *boolColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	vals := resize(&c.vals, n)
	if err := c.data.next(vals[:k]); err != nil {
		return fmt.Errorf("column %d DATA: %w", c.id, err)
	}
	spread(vals, valid, k)
	c.b.AppendValues(vals, valid)
	return nil
}

// byteColumn: Spec: TinyInt Columns — DATA is byte RLE.
type byteColumn struct {
	presence
	b    *array.Int8Builder
	data *byteRLE
	raw  []byte
	vals []int8
}

func (c *byteColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	b, _ := s.stream(c.id, streamData)
	c.data = newByteRLE(b)
	return nil
}

func (c *byteColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	raw := resize(&c.raw, k)
	if err := c.data.next(raw); err != nil {
		return fmt.Errorf("column %d DATA: %w", c.id, err)
	}
	c.b.AppendValues(widen(&c.vals, n, raw, valid), valid)
	return nil
}

// intColumn: Spec: SmallInt, Int, and BigInt Columns — DATA is signed
// integer RLE, v1 or v2 by the column encoding. Spec: Date Columns — dates
// are the same, counting days since 1970-01-01.
type intColumn[T ~int16 | ~int32 | ~int64] struct {
	presence
	appendValues func([]T, []bool)
	data         intReader
	raw          []int64
	vals         []T
}

func (c *intColumn[T]) startStripe(s *stripe) error {
	c.startPresence(s)
	b, _ := s.stream(c.id, streamData)
	var err error
	c.data, err = newIntReader(s.encoding(c.id), b, true)
	return err
}

func (c *intColumn[T]) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	raw := resize(&c.raw, k)
	if err := c.data.next(raw); err != nil {
		return fmt.Errorf("column %d DATA: %w", c.id, err)
	}
	c.appendValues(widen(&c.vals, n, raw, valid), valid)
	return nil
}

// floatColumn: Spec: Float and Double Columns — DATA holds IEEE 754 values,
// 4 bytes each, little-endian.
type floatColumn = ieeeColumn[float32]

// doubleColumn is floatColumn with 8-byte values.
type doubleColumn = ieeeColumn[float64]

// ieeeColumn reads a Float or Double column: DATA is the present values
// back to back, little-endian, with no run-length encoding.
type ieeeColumn[T float32 | float64] struct {
	presence
	b    interface{ AppendValues([]T, []bool) }
	data []byte
	vals []T
}

func (c *ieeeColumn[T]) startStripe(s *stripe) error {
	c.startPresence(s)
	c.data, _ = s.stream(c.id, streamData)
	return nil
}

func (c *ieeeColumn[T]) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	vals := resize(&c.vals, n)
	size, err := decodeIEEE(vals[:k], c.data)
	if err != nil {
		return fmt.Errorf("column %d DATA: %w", c.id, err)
	}
	c.data = c.data[size*k:]
	spread(vals, valid, k)
	c.b.AppendValues(vals, valid)
	return nil
}

// decodeIEEE fills dst from the start of src, 4 bytes a value for float32
// and 8 for float64, and returns that width.
func decodeIEEE[T float32 | float64](dst []T, src []byte) (int, error) {
	if d, ok := any(dst).([]float32); ok {
		if len(src) < 4*len(d) {
			return 4, errShort("float")
		}
		for i := range d {
			d[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
		return 4, nil
	}
	// T's type set leaves float64 as the only other case.
	d := any(dst).([]float64)
	if len(src) < 8*len(d) {
		return 8, errShort("double")
	}
	for i := range d {
		d[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
	}
	return 8, nil
}

// widen converts the present values raw to T and places them, in order,
// in the rows of a batch of n rows that valid marks present (all of them
// when valid is nil); the other rows get a zero. It returns the batch,
// kept in buf for reuse.
func widen[S byte | int64, T ~int8 | ~int16 | ~int32 | ~int64](buf *[]T, n int, raw []S, valid []bool) []T {
	vals := resize(buf, n)
	j := 0
	for i := range vals {
		if valid == nil || valid[i] {
			vals[i] = T(raw[j])
			j++
		} else {
			vals[i] = 0
		}
	}
	return vals
}

// spread moves the first k values of vals to the rows that valid marks
// present, in place, zeroing the others. Going backwards, no value is
// overwritten before it is moved.
func spread[T any](vals []T, valid []bool, k int) {
	if valid == nil {
		return
	}
	var zero T
	j := k - 1
	for i := len(vals) - 1; i >= 0; i-- {
		if valid[i] {
			vals[i] = vals[j]
			j--
		} else {
			vals[i] = zero
		}
	}
}
