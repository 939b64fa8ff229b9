package iceberg

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Literals are Iceberg values held as plain Go values, one representation
// per type, shared by every package:
//
//	boolean bool            int int32              long int64
//	float float32           double float64         decimal decimal128.Num (unscaled)
//	date int32 (days)       time int64 (µs)        timestamp, timestamptz int64 (µs, UTC)
//	timestamp_ns, timestamptz_ns int64 (ns)        string string
//	uuid [16]byte           fixed, binary []byte
//	struct map[int]any (by field id)               list []any
//	map MapLiteral
//
// A nil any is the null value.

// MapLiteral is a map value: keys and values in parallel.
type MapLiteral struct {
	Keys, Values []any
}

// EncodeValue writes a primitive literal in the spec's single-value binary
// serialization (Appendix D), the form of bounds and partition constants.
func EncodeValue(t Type, v any) ([]byte, error) {
	bad := func() ([]byte, error) {
		return nil, fmt.Errorf("encode %v: unexpected Go value %T", t, v)
	}
	switch t.(type) {
	case BooleanType:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		if b {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case IntType, DateType:
		i, ok := v.(int32)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(i)), nil
	case LongType, TimeType, TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(i)), nil
	case FloatType:
		f, ok := v.(float32)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f)), nil
	case DoubleType:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), nil
	case StringType:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return []byte(s), nil
	case UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return bad()
		}
		return u[:], nil
	case FixedType, BinaryType:
		b, ok := v.([]byte)
		if !ok {
			return bad()
		}
		return append([]byte(nil), b...), nil
	case DecimalType:
		d, ok := v.(decimal128.Num)
		if !ok {
			return bad()
		}
		return decimalToMinimalBytes(d), nil
	}
	return nil, fmt.Errorf("encode %v: no single-value serialization", t)
}

// DecodeValue reads a primitive literal from the spec's single-value binary
// serialization. Values written for a narrower type that the spec allows
// to be promoted (an int bound of a column now long, a float of a double)
// are widened.
func DecodeValue(t Type, b []byte) (any, error) {
	short := func(n int) error {
		return fmt.Errorf("%w: %v value has %d bytes, want %d", ErrInvalidMetadata, t, len(b), n)
	}
	switch t := t.(type) {
	case BooleanType:
		if len(b) != 1 {
			return nil, short(1)
		}
		return b[0] != 0, nil
	case IntType, DateType:
		if len(b) != 4 {
			return nil, short(4)
		}
		return int32(binary.LittleEndian.Uint32(b)), nil
	case LongType, TimeType, TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
		switch len(b) {
		case 8:
			return int64(binary.LittleEndian.Uint64(b)), nil
		case 4: // promoted from int (long) or date (timestamp)
			v := int64(int32(binary.LittleEndian.Uint32(b)))
			switch t.(type) {
			case TimestampType, TimestampTzType:
				v *= 86400 * 1_000_000
			case TimestampNsType, TimestampTzNsType:
				v *= 86400 * 1_000_000_000
			}
			return v, nil
		}
		return nil, short(8)
	case FloatType:
		if len(b) != 4 {
			return nil, short(4)
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case DoubleType:
		switch len(b) {
		case 8:
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
		case 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
		}
		return nil, short(8)
	case StringType:
		return string(b), nil
	case UUIDType:
		if len(b) != 16 {
			return nil, short(16)
		}
		var u [16]byte
		copy(u[:], b)
		return u, nil
	case FixedType, BinaryType:
		return append([]byte(nil), b...), nil
	case DecimalType:
		if len(b) == 0 || len(b) > 16 {
			return nil, fmt.Errorf("%w: decimal value has %d bytes", ErrInvalidMetadata, len(b))
		}
		return DecimalFromBigEndian(b), nil
	}
	return nil, fmt.Errorf("decode %v: no single-value serialization", t)
}

// DecimalFromBigEndian reads a big-endian two's-complement unscaled value of
// at most 16 bytes.
func DecimalFromBigEndian(b []byte) decimal128.Num {
	var buf [16]byte
	fill := byte(0)
	if len(b) > 0 && b[0]&0x80 != 0 {
		fill = 0xff
	}
	for i := range buf[:16-len(b)] {
		buf[i] = fill
	}
	copy(buf[16-len(b):], b)
	hi := int64(binary.BigEndian.Uint64(buf[:8]))
	lo := binary.BigEndian.Uint64(buf[8:])
	return decimal128.New(hi, lo)
}

func decimalToMinimalBytes(d decimal128.Num) []byte {
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(d.HighBits()))
	binary.BigEndian.PutUint64(buf[8:], d.LowBits())
	// Drop leading bytes that only repeat the sign.
	i := 0
	for i < 15 {
		if (buf[i] == 0 && buf[i+1]&0x80 == 0) || (buf[i] == 0xff && buf[i+1]&0x80 != 0) {
			i++
			continue
		}
		break
	}
	return append([]byte(nil), buf[i:]...)
}

// ParseJSONValue reads a literal in the spec's JSON single-value
// serialization (Appendix D), the form of initial-default and write-default.
func ParseJSONValue(t Type, raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bad := func(err error) (any, error) {
		return nil, fmt.Errorf("%w: %v JSON value %s: %v", ErrInvalidMetadata, t, string(raw), err)
	}
	var str string
	isString := json.Unmarshal(raw, &str) == nil
	switch t := t.(type) {
	case BooleanType:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return bad(err)
		}
		return b, nil
	case IntType:
		i, err := strconv.ParseInt(string(raw), 10, 32)
		if err != nil {
			return bad(err)
		}
		return int32(i), nil
	case LongType:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return bad(err)
		}
		return i, nil
	case FloatType, DoubleType:
		var f float64
		if isString { // NaN and infinities are written as strings by some writers
			v, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return bad(err)
			}
			f = v
		} else if err := json.Unmarshal(raw, &f); err != nil {
			return bad(err)
		}
		if _, ok := t.(FloatType); ok {
			return float32(f), nil
		}
		return f, nil
	case DecimalType:
		if !isString {
			str = string(raw)
		}
		d, err := ParseDecimal(str, t.Scale)
		if err != nil {
			return bad(err)
		}
		return d, nil
	case DateType:
		d, err := time.Parse("2006-01-02", str)
		if err != nil {
			return bad(err)
		}
		return int32(d.Unix() / 86400), nil
	case TimeType:
		d, err := time.Parse("15:04:05.999999999", str)
		if err != nil {
			return bad(err)
		}
		return int64(d.Hour())*3_600_000_000 + int64(d.Minute())*60_000_000 + int64(d.Second())*1_000_000 + int64(d.Nanosecond())/1000, nil
	case TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
		ts, err := parseTimestamp(str)
		if err != nil {
			return bad(err)
		}
		switch t.(type) {
		case TimestampNsType, TimestampTzNsType:
			return ts.UnixNano(), nil
		}
		return ts.UnixMicro(), nil
	case StringType:
		if !isString {
			return bad(fmt.Errorf("not a string"))
		}
		return str, nil
	case UUIDType:
		u, err := ParseUUID(str)
		if err != nil {
			return bad(err)
		}
		return u, nil
	case FixedType, BinaryType:
		b, err := hex.DecodeString(str)
		if err != nil {
			return bad(err)
		}
		return b, nil
	case *StructType:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return bad(err)
		}
		out := make(map[int]any, len(t.Fields))
		for _, f := range t.Fields {
			v, err := ParseJSONValue(f.Type, obj[strconv.Itoa(f.ID)])
			if err != nil {
				return nil, err
			}
			out[f.ID] = v
		}
		return out, nil
	case *ListType:
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return bad(err)
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			v, err := ParseJSONValue(t.Element, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *MapType:
		var m struct{ Keys, Values []json.RawMessage }
		if err := json.Unmarshal(raw, &m); err != nil || len(m.Keys) != len(m.Values) {
			return bad(fmt.Errorf("want {\"keys\": [...], \"values\": [...]} of equal length"))
		}
		out := MapLiteral{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
		for i := range m.Keys {
			k, err := ParseJSONValue(t.Key, m.Keys[i])
			if err != nil {
				return nil, err
			}
			v, err := ParseJSONValue(t.Value, m.Values[i])
			if err != nil {
				return nil, err
			}
			out.Keys[i], out.Values[i] = k, v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: no JSON single-value form for %v", ErrInvalidMetadata, t)
}

func parseTimestamp(s string) (time.Time, error) {
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999",
	} {
		if ts, err := time.Parse(layout, s); err == nil {
			return ts.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot parse timestamp %q", s)
}

// ParseDecimal parses a decimal string ("-12.30") into an unscaled value at
// the given scale. Digits beyond the scale are an error, not rounded.
func ParseDecimal(s string, scale int) (decimal128.Num, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return decimal128.Num{}, fmt.Errorf("invalid decimal %q", s)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return decimal128.Num{}, fmt.Errorf("decimal %q has more than %d fractional digits", s, scale)
	}
	n := r.Num()
	if n.BitLen() > 127 {
		return decimal128.Num{}, fmt.Errorf("decimal %q out of range", s)
	}
	return decimal128.FromBigInt(n), nil
}

// ParseUUID parses a UUID in its canonical 8-4-4-4-12 hex form.
func ParseUUID(s string) ([16]byte, error) {
	var u [16]byte
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 || len(s) != 36 {
		return u, fmt.Errorf("invalid uuid %q", s)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return u, fmt.Errorf("invalid uuid %q", s)
	}
	copy(u[:], b)
	return u, nil
}

// FormatUUID writes a UUID in its canonical lowercase form.
func FormatUUID(u [16]byte) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
