package orc

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// decimalColumn decodes decimal columns.
//
// Spec: Decimal Columns — DATA holds each unscaled value as an unbounded
// zigzag-encoded base 128 varint, SECONDARY each value's scale as signed
// integer RLE. Writers such as Hive trim trailing zeros, so a value's scale
// may be below the type's; it is brought to the type's scale here.
type decimalColumn struct {
	presence
	b      *array.Decimal128Builder
	scale  int
	data   []byte
	pos    int
	scales intReader
	raw    []int64
	vals   []decimal128.Num
}

func (c *decimalColumn) startStripe(s *stripe) error {
	c.startPresence(s)
	enc := s.encoding(c.id)
	if enc == encodingDecimal64 {
		return fmt.Errorf("%w: column %d uses the DECIMAL_64 encoding", ErrUnsupported, c.id)
	}
	c.data, _ = s.stream(c.id, streamData)
	c.pos = 0
	sec, _ := s.stream(c.id, streamSecondary)
	var err error
	c.scales, err = newIntReader(enc, sec, true)
	return err
}

func (c *decimalColumn) read(n int, parent []bool) error {
	valid, k, err := c.load(n, parent)
	if err != nil {
		return err
	}
	scales := resize(&c.raw, k)
	if err := c.scales.next(scales); err != nil {
		return fmt.Errorf("column %d SECONDARY: %w", c.id, err)
	}
	vals := resize(&c.vals, n)
	for i, sc := range scales {
		v, err := readDecimalVarint(c.data, &c.pos)
		if err != nil {
			return fmt.Errorf("column %d DATA: %w", c.id, err)
		}
		if v, err = rescale(v, int(sc), c.scale); err != nil {
			return fmt.Errorf("column %d: %w", c.id, err)
		}
		vals[i] = v
	}
	spread(vals, valid, k)
	c.b.AppendValues(vals, valid)
	return nil
}

// readDecimalVarint decodes a zigzag varint of up to 128 bits.
func readDecimalVarint(b []byte, pos *int) (decimal128.Num, error) {
	var lo, hi uint64
	for shift := uint(0); ; shift += 7 {
		if *pos >= len(b) {
			return decimal128.Num{}, errShort("decimal")
		}
		c := uint64(b[*pos])
		*pos++
		group := c & 0x7f
		switch {
		case shift < 64:
			lo |= group << shift
			if shift > 57 {
				hi |= group >> (64 - shift)
			}
		case shift < 128:
			hi |= group << (shift - 64)
			if shift > 121 && group>>(128-shift) != 0 {
				return decimal128.Num{}, fmt.Errorf("%w: decimal wider than 128 bits", ErrInvalidFile)
			}
		default:
			if group != 0 {
				return decimal128.Num{}, fmt.Errorf("%w: decimal wider than 128 bits", ErrInvalidFile)
			}
		}
		if c < 0x80 {
			break
		}
	}
	// Undo the zigzag mapping over all 128 bits: shift right by one and
	// flip every bit when the low bit (the sign) is set.
	neg := lo&1 == 1
	lo = lo>>1 | hi<<63
	hi >>= 1
	if neg {
		lo, hi = ^lo, ^hi
	}
	return decimal128.New(int64(hi), lo), nil
}

// rescale brings an unscaled value from scale from to scale to, rounding
// half away from zero when digits are dropped, as Hive's decimals do.
func rescale(v decimal128.Num, from, to int) (decimal128.Num, error) {
	switch d := to - from; {
	case d == 0:
		return v, nil
	case d > 0 && d <= 38:
		return v.Mul(decimal128.GetScaleMultiplier(d)), nil
	case d < 0 && d >= -38:
		return v.ReduceScaleBy(int32(-d), true), nil
	}
	return v, fmt.Errorf("%w: decimal scale %d for a column of scale %d", ErrInvalidFile, from, to)
}
