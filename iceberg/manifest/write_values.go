package manifest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// encodeLiteral writes a non-null literal (iceberg/literal.go) of type t in
// the Avro form avroConverter gives t.
func encodeLiteral(e *avro.Encoder, t iceberg.Type, v any) error {
	ok := true
	switch t := t.(type) {
	case iceberg.BooleanType:
		var b bool
		if b, ok = v.(bool); ok {
			e.Boolean(b)
		}
	case iceberg.IntType, iceberg.DateType:
		var i int32
		if i, ok = v.(int32); ok {
			e.Int(i)
		}
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
		iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		var l int64
		if l, ok = v.(int64); ok {
			e.Long(l)
		}
	case iceberg.FloatType:
		var f float32
		if f, ok = v.(float32); ok {
			e.Float(f)
		}
	case iceberg.DoubleType:
		var d float64
		if d, ok = v.(float64); ok {
			e.Double(d)
		}
	case iceberg.StringType:
		var s string
		if s, ok = v.(string); ok {
			e.String(s)
		}
	case iceberg.BinaryType:
		var b []byte
		if b, ok = v.([]byte); ok {
			e.Bytes(b)
		}
	case iceberg.FixedType:
		var b []byte
		if b, ok = v.([]byte); ok {
			if len(b) != t.Length {
				return fmt.Errorf("%v value has %d bytes", t, len(b))
			}
			e.Fixed(b)
		}
	case iceberg.UUIDType:
		var u [16]byte
		if u, ok = v.([16]byte); ok {
			e.Fixed(u[:])
		}
	case iceberg.DecimalType:
		var d decimal128.Num
		if d, ok = v.(decimal128.Num); ok {
			b, err := decimalBytes(t, d)
			if err != nil {
				return err
			}
			e.Fixed(b)
		}
	default:
		return fmt.Errorf("type %v cannot be a partition value", t)
	}
	if !ok {
		return fmt.Errorf("%v value is a Go %T", t, v)
	}
	return nil
}

// decimalBytes is the fixed value of a decimal. Spec (Avro): a decimal's
// fixed holds the unscaled value in big-endian two's complement,
// sign-extended to the size (decimalSize). goavro, which encoded manifest
// records before, wrote a zero decimal as one byte whatever the size
// (v2.15 toSignedFixedBytes).
func decimalBytes(t iceberg.DecimalType, d decimal128.Num) ([]byte, error) {
	var full [16]byte
	binary.BigEndian.PutUint64(full[:8], uint64(d.HighBits()))
	binary.BigEndian.PutUint64(full[8:], d.LowBits())
	n := decimalSize(t.Precision)
	var sign byte
	if full[16-n]&0x80 != 0 {
		sign = 0xff
	}
	for _, b := range full[:16-n] {
		if b != sign {
			return nil, fmt.Errorf("%v value %s does not fit %d bytes", t, d.BigInt(), n)
		}
	}
	return full[16-n:], nil
}

// compareLiterals orders two non-null, non-NaN literals of one primitive
// type as the spec orders bounds: -0.0 before +0.0, strings and binary by
// unsigned bytes, decimals by value.
func compareLiterals(a, b any) int {
	switch a := a.(type) {
	case bool:
		return cmp.Compare(b2i(a), b2i(b.(bool)))
	case int32:
		return cmp.Compare(a, b.(int32))
	case int64:
		return cmp.Compare(a, b.(int64))
	case float32:
		return compareFloat(float64(a), float64(b.(float32)))
	case float64:
		return compareFloat(a, b.(float64))
	case string:
		// Go compares strings bytewise, which for UTF-8 is code point order.
		return cmp.Compare(a, b.(string))
	case []byte:
		return bytes.Compare(a, b.([]byte))
	case [16]byte:
		bb := b.([16]byte)
		return bytes.Compare(a[:], bb[:])
	case decimal128.Num:
		return a.Cmp(b.(decimal128.Num))
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareFloat(a, b float64) int {
	if a == 0 && b == 0 {
		return cmp.Compare(b2i(!math.Signbit(a)), b2i(!math.Signbit(b)))
	}
	return cmp.Compare(a, b)
}

func isNaN(v any) bool {
	switch v := v.(type) {
	case float32:
		return v != v
	case float64:
		return math.IsNaN(v)
	}
	return false
}

// summary accumulates one partition field's field_summary over a
// manifest's entries.
type summary struct {
	typ                  iceberg.Type
	containsNull, sawNaN bool
	lower, upper         any
}

func newSummary(t iceberg.Type) *summary { return &summary{typ: t} }

func (s *summary) update(v any) {
	switch {
	case v == nil:
		s.containsNull = true
	case isNaN(v):
		s.sawNaN = true
	default:
		if s.lower == nil || compareLiterals(v, s.lower) < 0 {
			s.lower = v
		}
		if s.upper == nil || compareLiterals(v, s.upper) > 0 {
			s.upper = v
		}
	}
}

// result returns the field summary. Like Java, contains_nan is written
// for every field, false where no value is NaN.
func (s *summary) result() (iceberg.FieldSummary, error) {
	nan := s.sawNaN
	out := iceberg.FieldSummary{ContainsNull: s.containsNull, ContainsNaN: &nan}
	var err error
	if s.lower != nil {
		if out.LowerBound, err = iceberg.EncodeValue(s.typ, s.lower); err != nil {
			return out, err
		}
		if out.UpperBound, err = iceberg.EncodeValue(s.typ, s.upper); err != nil {
			return out, err
		}
	}
	return out, nil
}
