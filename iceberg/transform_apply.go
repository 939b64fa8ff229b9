package iceberg

import (
	"fmt"
	"math"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// CanTransform reports whether transform t accepts values of source type
// src, following the source-type column of the spec's "Partition
// Transforms" table. Unknown transforms cannot be applied and report false.
func CanTransform(t Transform, src Type) bool {
	switch t := t.(type) {
	case IdentityTransform:
		switch src.(type) {
		case VariantType, GeometryType, GeographyType:
			return false
		}
		_, ok := src.(PrimitiveType)
		return ok
	case BucketTransform:
		if t.N <= 0 {
			return false
		}
		switch src.(type) {
		case IntType, LongType, DecimalType, DateType, TimeType, TimestampType, TimestampTzType,
			TimestampNsType, TimestampTzNsType, StringType, UUIDType, FixedType, BinaryType:
			return true
		}
	case TruncateTransform:
		if t.Width <= 0 {
			return false
		}
		switch src.(type) {
		case IntType, LongType, DecimalType, StringType, BinaryType:
			return true
		}
	case YearTransform, MonthTransform, DayTransform:
		switch src.(type) {
		case DateType, TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
			return true
		}
	case HourTransform:
		switch src.(type) {
		case TimestampType, TimestampTzType, TimestampNsType, TimestampTzNsType:
			return true
		}
	case VoidTransform:
		return true
	}
	return false
}

// PreservesOrder reports whether v1 <= v2 implies t(v1) <= t(v2), which lets
// bounds of source values bound the transformed values too.
func PreservesOrder(t Transform) bool {
	switch t.(type) {
	case IdentityTransform, TruncateTransform, YearTransform, MonthTransform, DayTransform, HourTransform:
		return true
	}
	return false
}

// ApplyTransform computes a partition value from a source literal of type
// src (literals are the Go values documented in literal.go). Every
// transform maps nil to nil and void maps everything to nil. The result has
// the Go type of t.ResultType(src): int32 for bucket, year, month and hour,
// int32 days for day, the source's type for identity and truncate.
func ApplyTransform(t Transform, src Type, v any) (any, error) {
	if !CanTransform(t, src) {
		return nil, fmt.Errorf("transform %v cannot apply to %v", t, src)
	}
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("transform %v of %v: unexpected Go value %T", t, src, v)
	}
	switch t := t.(type) {
	case IdentityTransform:
		return v, nil
	case VoidTransform:
		return nil, nil
	case BucketTransform:
		h, err := HashValue(src, v)
		if err != nil {
			return nil, err
		}
		// Spec: Bucket Transform Details — drop the sign bit, then mod N.
		return (h & math.MaxInt32) % int32(t.N), nil
	case TruncateTransform:
		return truncateValue(t.Width, src, v)
	case YearTransform, MonthTransform, DayTransform, HourTransform:
		ts, ok := sourceTime(src, v)
		if !ok {
			return bad()
		}
		return timeUnit(t, ts, src, v), nil
	}
	return bad()
}

// truncateValue implements the spec's "Truncate Transform Details". The
// integer forms use the same 32- and 64-bit wrap-around as the reference
// implementation so values near the type's minimum land where Java put them.
func truncateValue(width int, src Type, v any) (any, error) {
	bad := func() (any, error) {
		return nil, fmt.Errorf("truncate[%d] of %v: unexpected Go value %T", width, src, v)
	}
	switch src.(type) {
	case IntType:
		i, ok := v.(int32)
		if !ok {
			return bad()
		}
		w := int32(width)
		return i - (((i % w) + w) % w), nil
	case LongType:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		w := int64(width)
		return i - (((i % w) + w) % w), nil
	case DecimalType:
		d, ok := v.(decimal128.Num)
		if !ok {
			return bad()
		}
		// Spec: the width applies to the unscaled value at the column's scale.
		u := d.BigInt()
		rem := new(big.Int).Mod(u, big.NewInt(int64(width))) // Euclidean: 0 <= rem < width
		return decimal128.FromBigInt(u.Sub(u, rem)), nil
	case StringType:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return TruncateString(s, width), nil
	case BinaryType:
		b, ok := v.([]byte)
		if !ok {
			return bad()
		}
		if len(b) > width {
			b = b[:width]
		}
		return append([]byte(nil), b...), nil
	}
	return bad()
}

// TruncateString returns the first n code points of s; the spec truncates
// strings by code points, not bytes, so the result stays valid UTF-8.
func TruncateString(s string, n int) string {
	if n <= 0 {
		return ""
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// StringLength returns the number of code points in s, the length that
// string truncation and prefix projections measure.
func StringLength(s string) int { return utf8.RuneCountInString(s) }

// sourceTime turns a date or timestamp literal into a UTC time.
func sourceTime(src Type, v any) (time.Time, bool) {
	switch src.(type) {
	case DateType:
		d, ok := v.(int32)
		return time.Unix(int64(d)*86400, 0).UTC(), ok
	case TimestampType, TimestampTzType:
		us, ok := v.(int64)
		return time.UnixMicro(us).UTC(), ok
	case TimestampNsType, TimestampTzNsType:
		ns, ok := v.(int64)
		return time.Unix(0, ns).UTC(), ok
	}
	return time.Time{}, false
}

// timeUnit counts whole units from 1970-01-01 00:00 UTC, rounding toward
// negative infinity so 1969-12-31 is day -1 and month -1 (spec: "Partition
// Transforms", years/months/days/hours from 1970).
func timeUnit(t Transform, ts time.Time, src Type, v any) int32 {
	switch t.(type) {
	case YearTransform:
		return int32(ts.Year() - 1970)
	case MonthTransform:
		return int32((ts.Year()-1970)*12 + int(ts.Month()) - 1)
	case DayTransform:
		if d, ok := v.(int32); ok {
			if _, isDate := src.(DateType); isDate {
				return d
			}
		}
		return int32(floorDiv(ts.Unix(), 86400))
	}
	// hour
	return int32(floorDiv(ts.Unix(), 3600))
}
