package iceberg

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// FormatJSONValue writes a primitive literal in the spec's JSON single-value
// serialization (Appendix D), the inverse of ParseJSONValue. NaN and the
// infinities, which JSON numbers cannot hold, are written as the strings
// "NaN", "Infinity" and "-Infinity" as Jackson-based writers do. A nil value
// is JSON null.
func FormatJSONValue(t Type, v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	bad := func() (json.RawMessage, error) {
		return nil, fmt.Errorf("format %v as JSON: unexpected Go value %T", t, v)
	}
	str := func(s string) (json.RawMessage, error) { return json.Marshal(s) }
	switch t := t.(type) {
	case BooleanType:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return json.Marshal(b)
	case IntType:
		i, ok := v.(int32)
		if !ok {
			return bad()
		}
		return json.RawMessage(strconv.FormatInt(int64(i), 10)), nil
	case LongType:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		return json.RawMessage(strconv.FormatInt(i, 10)), nil
	case FloatType:
		f, ok := v.(float32)
		if !ok {
			return bad()
		}
		return formatJSONFloat(float64(f), 32), nil
	case DoubleType:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		return formatJSONFloat(f, 64), nil
	case DecimalType:
		d, ok := v.(decimal128.Num)
		if !ok {
			return bad()
		}
		return str(FormatDecimal(d, t.Scale))
	case DateType:
		d, ok := v.(int32)
		if !ok {
			return bad()
		}
		return str(FormatDate(d))
	case TimeType:
		us, ok := v.(int64)
		if !ok {
			return bad()
		}
		return str(FormatTime(us))
	case TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		return str(FormatTimestamp(t, i))
	case StringType:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return str(s)
	case UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return bad()
		}
		return str(FormatUUID(u))
	case FixedType, BinaryType:
		b, ok := v.([]byte)
		if !ok {
			return bad()
		}
		// Upper case, as the spec's example and Iceberg Java write it
		// (Guava's base16, which Java also reads with, refuses lower case).
		return str(strings.ToUpper(hex.EncodeToString(b)))
	}
	return nil, fmt.Errorf("format %v as JSON: no JSON single-value form", t)
}

func formatJSONFloat(f float64, bitSize int) json.RawMessage {
	switch {
	case math.IsNaN(f):
		return json.RawMessage(`"NaN"`)
	case math.IsInf(f, 1):
		return json.RawMessage(`"Infinity"`)
	case math.IsInf(f, -1):
		return json.RawMessage(`"-Infinity"`)
	}
	s := strconv.FormatFloat(f, 'g', -1, bitSize)
	if !strings.ContainsAny(s, ".e") {
		// Keep a float recognizable as one: Java's SingleValueParser
		// rejects 1 where it expects a float or double, and writes 1.0.
		s += ".0"
	}
	return json.RawMessage(s)
}

// FormatDecimal writes an unscaled decimal at the given scale with exactly
// scale fractional digits ("14.20"), the spec's JSON form of decimals.
func FormatDecimal(d decimal128.Num, scale int) string {
	s := d.BigInt().String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// FormatDate writes days from the epoch as an ISO-8601 date.
func FormatDate(days int32) string {
	return time.Unix(int64(days)*86400, 0).UTC().Format("2006-01-02")
}

// FormatTime writes microseconds from midnight as an ISO-8601 time with
// microsecond precision ("22:31:08.123456").
func FormatTime(us int64) string {
	return time.UnixMicro(us).UTC().Format("15:04:05.000000")
}

// FormatTimestamp writes a timestamp of type t in the spec's JSON form:
// microsecond or nanosecond precision, and "+00:00" for the zoned types.
func FormatTimestamp(t Type, v int64) string {
	var ts time.Time
	layout := "2006-01-02T15:04:05.000000"
	switch t.(type) {
	case TimestampNsType, TimestampTzNsType:
		ts = time.Unix(0, v).UTC()
		layout = "2006-01-02T15:04:05.000000000"
	default:
		ts = time.UnixMicro(v).UTC()
	}
	switch t.(type) {
	case TimestampTzType, TimestampTzNsType:
		layout += "+00:00"
	}
	return ts.Format(layout)
}
