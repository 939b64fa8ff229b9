package iceberg

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// HumanString renders a partition value as Iceberg Java's
// Transform.toHumanString does: the text of partition paths and of the
// manifests metadata table's partition summaries. t is the partition
// field's result type; a nil value is "null".
func HumanString(tr Transform, t Type, v any) string {
	if v == nil {
		return "null"
	}
	switch tr.(type) {
	case YearTransform:
		if y, ok := v.(int32); ok {
			return fmt.Sprintf("%04d", 1970+int(y))
		}
	case MonthTransform:
		if m, ok := v.(int32); ok {
			y, mo := floorDivMod(int(m), 12)
			return fmt.Sprintf("%04d-%02d", 1970+y, mo+1)
		}
	case DayTransform:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
		}
	case HourTransform:
		if h, ok := v.(int32); ok {
			return time.Unix(int64(h)*3600, 0).UTC().Format("2006-01-02-15")
		}
	case BucketTransform:
		return fmt.Sprint(v)
	}
	return humanValue(t, v)
}

// humanValue renders a value of type t as Java's Transform.toHumanString
// does for identity and truncate: the value's own toString, but ISO forms
// for dates, times and timestamps and base64 for bytes.
func humanValue(t Type, v any) string {
	switch t := t.(type) {
	case DateType:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
		}
	case TimeType:
		if us, ok := v.(int64); ok {
			return javaLocalTime(time.UnixMicro(us).UTC())
		}
	case TimestampType:
		if us, ok := v.(int64); ok {
			return javaTimestamp(time.UnixMicro(us).UTC())
		}
	case TimestampTzType:
		if us, ok := v.(int64); ok {
			return javaTimestamp(time.UnixMicro(us).UTC()) + "+00:00"
		}
	case TimestampNsType:
		if ns, ok := v.(int64); ok {
			return javaTimestamp(time.Unix(0, ns).UTC())
		}
	case TimestampTzNsType:
		if ns, ok := v.(int64); ok {
			return javaTimestamp(time.Unix(0, ns).UTC()) + "+00:00"
		}
	case DecimalType:
		if d, ok := v.(decimal128.Num); ok {
			return javaDecimal(d, t.Scale)
		}
	case BinaryType, FixedType:
		if b, ok := v.([]byte); ok {
			return base64.StdEncoding.EncodeToString(b)
		}
	case UUIDType:
		switch u := v.(type) {
		case [16]byte:
			return FormatUUID(u)
		case []byte:
			if len(u) == 16 {
				return FormatUUID([16]byte(u))
			}
		}
	}
	switch f := v.(type) {
	case float32:
		return javaFloat(float64(f), 32)
	case float64:
		return javaFloat(f, 64)
	}
	return fmt.Sprint(v)
}

// javaTimestamp formats a timestamp as Iceberg Java's human strings do
// (ISO_LOCAL_DATE_TIME): seconds always, then the fraction without its
// trailing zeros.
func javaTimestamp(ts time.Time) string {
	s := ts.Format("2006-01-02T15:04:05")
	if ns := ts.Nanosecond(); ns != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
	}
	return s
}

// javaLocalTime formats a time of day as java.time.LocalTime.toString:
// HH:mm, then :ss unless seconds and fraction are zero, then the fraction
// in groups of three digits.
func javaLocalTime(ts time.Time) string {
	s := ts.Format("15:04")
	sec, ns := ts.Second(), ts.Nanosecond()
	if sec == 0 && ns == 0 {
		return s
	}
	s += fmt.Sprintf(":%02d", sec)
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += fmt.Sprintf(".%03d", ns/1_000_000)
	case ns%1000 == 0:
		s += fmt.Sprintf(".%06d", ns/1000)
	default:
		s += fmt.Sprintf(".%09d", ns)
	}
	return s
}

// javaDecimal formats an unscaled decimal as Java's BigDecimal.toString
// for the scales Iceberg allows (0 to 38, never negative: plain notation
// except when the adjusted exponent is below -6).
func javaDecimal(d decimal128.Num, scale int) string {
	unscaled := d.BigInt()
	digits := new(big.Int).Abs(unscaled).String()
	neg := unscaled.Sign() < 0
	adjusted := len(digits) - 1 - scale
	var s string
	switch {
	case scale == 0:
		s = digits
	case adjusted >= -6:
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		s = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	default:
		// Scientific notation, as BigDecimal prints 0.0000001 as 1E-7.
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "E" + strconv.Itoa(adjusted)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// javaFloat formats a float as Java's Float.toString (bits 32) or
// Double.toString (bits 64): plain notation with at least one fraction
// digit from 10^-3 up to 10^7, computerized scientific notation ("1.0E7",
// "1.5E-4") beyond, from the shortest digits that read back as the value.
func javaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	// "d.ddde±x": the shortest digits and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, bits)
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		var whole, frac string
		switch {
		case exp < 0:
			whole, frac = "0", strings.Repeat("0", -exp-1)+digits
		case exp+1 >= len(digits):
			whole, frac = digits+strings.Repeat("0", exp+1-len(digits)), "0"
		default:
			whole, frac = digits[:exp+1], digits[exp+1:]
		}
		return sign + whole + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// floorDivMod divides rounding toward negative infinity, as Java's
// Math.floorDiv and floorMod do.
func floorDivMod(a, b int) (int, int) {
	q, r := a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}
