package manifest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/iceflight/iceflight/iceberg"
)

// avroValue converts a literal (iceberg/literal.go) of type t to the value
// goavro encodes for the Avro type avroConverter gives t.
func avroValue(t iceberg.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	ok := true
	var out any = v
	switch t := t.(type) {
	case iceberg.BooleanType:
		_, ok = v.(bool)
	case iceberg.IntType, iceberg.DateType:
		_, ok = v.(int32)
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
		iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		_, ok = v.(int64)
	case iceberg.FloatType:
		_, ok = v.(float32)
	case iceberg.DoubleType:
		_, ok = v.(float64)
	case iceberg.StringType:
		_, ok = v.(string)
	case iceberg.BinaryType:
		_, ok = v.([]byte)
	case iceberg.FixedType:
		var b []byte
		if b, ok = v.([]byte); ok && len(b) != t.Length {
			return nil, fmt.Errorf("%v value has %d bytes", t, len(b))
		}
	case iceberg.UUIDType:
		var u [16]byte
		if u, ok = v.([16]byte); ok {
			out = u[:]
		}
	case iceberg.DecimalType:
		var d decimal128.Num
		if d, ok = v.(decimal128.Num); ok {
			// Spec (Avro): a decimal's fixed holds the unscaled value in
			// big-endian two's complement, sign-extended to the size.
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
			out = append([]byte(nil), full[16-n:]...)
		}
	default:
		return nil, fmt.Errorf("type %v cannot be a partition value", t)
	}
	if !ok {
		return nil, fmt.Errorf("%v value is a Go %T", t, v)
	}
	return out, nil
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
