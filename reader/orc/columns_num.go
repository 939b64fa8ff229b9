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
	vals := resize(&c.vals, n)
	j := 0
	for i := range vals {
		if valid == nil || valid[i] {
			vals[i] = int8(raw[j])
			j++
		} else {
			vals[i] = 0
		}
	}
	c.b.AppendValues(vals, valid)
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
	vals := resize(&c.vals, n)
	j := 0
	for i := range vals {
		if valid == nil || valid[i] {
			vals[i] = T(raw[j])
			j++
		} else {
			vals[i] = 0
		}
	}
	c.appendValues(vals, valid)
	return nil
}

// floatColumn: Spec: Float and Double Columns — DATA holds IEEE 754 values,
// 4 bytes each, little-endian.
type floatColumn struct {
	presence
	b    *array.Float32Builder
	data []byte
	vals []float32
}

func (c *floatColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	c.data, _ = s.stream(c.id, streamData)
	return nil
}

func (c *floatColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	if len(c.data) < 4*k {
		return fmt.Errorf("column %d DATA: %w", c.id, errShort("float"))
	}
	vals := resize(&c.vals, n)
	j := 0
	for i := range vals {
		if valid == nil || valid[i] {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(c.data[4*j:]))
			j++
		} else {
			vals[i] = 0
		}
	}
	c.data = c.data[4*k:]
	c.b.AppendValues(vals, valid)
	return nil
}

// doubleColumn is floatColumn with 8-byte values.
type doubleColumn struct {
	presence
	b    *array.Float64Builder
	data []byte
	vals []float64
}

func (c *doubleColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	c.data, _ = s.stream(c.id, streamData)
	return nil
}

func (c *doubleColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	if len(c.data) < 8*k {
		return fmt.Errorf("column %d DATA: %w", c.id, errShort("double"))
	}
	vals := resize(&c.vals, n)
	j := 0
	for i := range vals {
		if valid == nil || valid[i] {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.data[8*j:]))
			j++
		} else {
			vals[i] = 0
		}
	}
	c.data = c.data[8*k:]
	c.b.AppendValues(vals, valid)
	return nil
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
