package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/iceflight/iceflight/iceberg"
)

// converted is an unbound literal converted to a column's type.
type converted struct {
	// val is the value, or when exact is false the largest value of the type
	// below the literal (1.5 for an int column gives 1).
	val   any
	exact bool
	// rng is -1 or +1 when the literal lies below or above every value of
	// the type (Java's belowMin and aboveMax); val is then unset.
	rng int
}

func exactly(v any) (converted, error) { return converted{val: v, exact: true}, nil }

const microsPerDay = 86400 * 1_000_000

// maxNumberLength bounds the text of a numeric literal. Converting it
// exactly costs the square of its length (a megabyte of digits took 10 s);
// a double's largest finite value has 309 digits, so the bound refuses no
// number a column can hold.
const maxNumberLength = 1000

// convert turns an unbound literal into a value of type t. Conversions are
// exact: a literal between two values of the type comes back as the lower
// one with exact false, and Bind adjusts the operation (x < 1.5 on an int
// becomes x <= 1). Floats and doubles take the nearest value, as Iceberg
// Java does.
func convert(lit any, t iceberg.Type) (converted, error) {
	fail := func() (converted, error) {
		return converted{}, invalidf("cannot convert %s to %v", formatLiteral(nil, lit), t)
	}
	switch v := lit.(type) {
	case bool:
		if _, ok := t.(iceberg.BooleanType); ok {
			return exactly(v)
		}
	case int64:
		return fromInt(v, t, lit)
	case Number:
		if len(v) > maxNumberLength {
			return converted{}, invalidf("a number of %d characters is longer than the %d a literal may have", len(v), maxNumberLength)
		}
		r, ok := new(big.Rat).SetString(string(v))
		if !ok || strings.Contains(string(v), "/") {
			return fail()
		}
		return fromRat(r, string(v), t, lit)
	case float64:
		switch t.(type) {
		case iceberg.FloatType:
			return exactly(float32(v))
		case iceberg.DoubleType:
			return exactly(v)
		case iceberg.IntType, iceberg.LongType, iceberg.DecimalType:
			if math.IsInf(v, 0) {
				return converted{rng: int(math.Copysign(1, v))}, nil
			}
		}
	case string:
		return fromString(v, t, lit)
	case Typed:
		return fromTyped(v, t, lit)
	}
	return fail()
}

func fromInt(i int64, t iceberg.Type, lit any) (converted, error) {
	inRange := func(lo, hi int64) (converted, bool) {
		switch {
		case i < lo:
			return converted{rng: -1}, false
		case i > hi:
			return converted{rng: 1}, false
		}
		return converted{}, true
	}
	switch t := t.(type) {
	case iceberg.IntType:
		if c, ok := inRange(math.MinInt32, math.MaxInt32); !ok {
			return c, nil
		}
		return exactly(int32(i))
	case iceberg.LongType, iceberg.TimestampType, iceberg.TimestampTzType:
		// An integer against a timestamp is microseconds, as in Iceberg Java.
		return exactly(i)
	case iceberg.FloatType:
		return exactly(float32(i))
	case iceberg.DoubleType:
		return exactly(float64(i))
	case iceberg.DecimalType:
		return fromRat(new(big.Rat).SetInt64(i), strconv.FormatInt(i, 10), t, lit)
	case iceberg.DateType:
		if c, ok := inRange(math.MinInt32, math.MaxInt32); !ok {
			return c, nil
		}
		return exactly(int32(i))
	case iceberg.TimeType:
		if c, ok := inRange(0, microsPerDay-1); !ok {
			return c, nil
		}
		return exactly(i)
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		// Iceberg Java reads the integer as microseconds here too.
		if c, ok := inRange(math.MinInt64/1000, math.MaxInt64/1000); !ok {
			return c, nil
		}
		return exactly(i * 1000)
	}
	return converted{}, invalidf("cannot convert %s to %v", formatLiteral(nil, lit), t)
}

// fromRat converts an exact rational; text is its written form, which
// float conversion parses to get the nearest float.
func fromRat(r *big.Rat, text string, t iceberg.Type, lit any) (converted, error) {
	switch t := t.(type) {
	case iceberg.IntType:
		return ratToInt(r, big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32), func(b *big.Int) any { return int32(b.Int64()) })
	case iceberg.LongType:
		return ratToInt(r, big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64), func(b *big.Int) any { return b.Int64() })
	case iceberg.FloatType, iceberg.DoubleType:
		bits := 64
		if _, ok := t.(iceberg.FloatType); ok {
			bits = 32
		}
		f, err := strconv.ParseFloat(text, bits)
		if math.IsInf(f, 0) {
			// Beyond the largest finite value: Java's aboveMax / belowMin.
			return converted{rng: int(math.Copysign(1, f))}, nil
		}
		if err != nil {
			return converted{}, invalidf("cannot convert %s to %v", text, t)
		}
		if bits == 32 {
			return exactly(float32(f))
		}
		return exactly(f)
	case iceberg.DecimalType:
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(t.Scale)))
		limit := new(big.Int).Sub(pow10(t.Precision), big.NewInt(1))
		return ratToInt(scaled, new(big.Int).Neg(limit), limit, func(b *big.Int) any { return decimal128.FromBigInt(b) })
	case iceberg.DateType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
		iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		if !r.IsInt() {
			break
		}
		if !r.Num().IsInt64() {
			return converted{rng: r.Sign()}, nil
		}
		return fromInt(r.Num().Int64(), t, lit)
	}
	return converted{}, invalidf("cannot convert %s to %v", formatLiteral(nil, lit), t)
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// ratToInt floors r into [lo, hi], reporting exactness and range.
func ratToInt(r *big.Rat, lo, hi *big.Int, wrap func(*big.Int) any) (converted, error) {
	floor := new(big.Int)
	rem := new(big.Int)
	floor.DivMod(r.Num(), r.Denom(), rem) // Euclidean: rem >= 0, so floor is the floor
	switch {
	case floor.Cmp(lo) < 0:
		return converted{rng: -1}, nil
	case floor.Cmp(hi) > 0:
		return converted{rng: 1}, nil
	}
	return converted{val: wrap(floor), exact: rem.Sign() == 0}, nil
}

func fromString(s string, t iceberg.Type, lit any) (converted, error) {
	bad := func(err error) (converted, error) {
		if err != nil {
			return converted{}, invalidf("cannot convert %s to %v: %v", quoteString(s), t, err)
		}
		return converted{}, invalidf("cannot convert %s to %v", quoteString(s), t)
	}
	switch t := t.(type) {
	case iceberg.StringType:
		if !utf8.ValidString(s) {
			return bad(fmt.Errorf("the string is not valid UTF-8"))
		}
		return exactly(s)
	case iceberg.BooleanType:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return exactly(true)
		case "false":
			return exactly(false)
		}
	case iceberg.FloatType, iceberg.DoubleType:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "nan":
			return convert(math.NaN(), t)
		case "infinity", "+infinity", "inf":
			return convert(math.Inf(1), t)
		case "-infinity", "-inf":
			return convert(math.Inf(-1), t)
		}
		return numberFromString(s, t)
	case iceberg.IntType, iceberg.LongType, iceberg.DecimalType:
		return numberFromString(s, t)
	case iceberg.DateType:
		in, err := parseDateTime(s)
		if err != nil {
			return bad(err)
		}
		d, exact := in.days()
		if d < math.MinInt32 || d > math.MaxInt32 {
			return converted{rng: int(math.Copysign(1, float64(d)))}, nil
		}
		return converted{val: int32(d), exact: exact}, nil
	case iceberg.TimeType:
		ns, err := parseTimeOfDay(s)
		if err != nil {
			return bad(err)
		}
		return converted{val: ns / 1000, exact: ns%1000 == 0}, nil
	case iceberg.TimestampType, iceberg.TimestampTzType:
		in, err := parseDateTime(s)
		if err != nil {
			return bad(err)
		}
		us, exact := in.micros()
		return converted{val: us, exact: exact}, nil
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		in, err := parseDateTime(s)
		if err != nil {
			return bad(err)
		}
		ns, rng := in.nanos()
		if rng != 0 {
			return converted{rng: rng}, nil
		}
		return exactly(ns)
	case iceberg.UUIDType:
		u, err := iceberg.ParseUUID(strings.TrimSpace(s))
		if err != nil {
			return bad(err)
		}
		return exactly(u)
	case iceberg.BinaryType, iceberg.FixedType:
		// A string against a binary column is hex, the JSON single-value form.
		b, err := hex.DecodeString(s)
		if err != nil {
			return bad(fmt.Errorf("binary values are written as hex (X'00ff')"))
		}
		return fromTyped(Typed{Type: iceberg.BinaryType{}, Value: b}, t, lit)
	}
	return bad(nil)
}

// numberFromString converts a string holding a number, naming the string
// in errors.
func numberFromString(s string, t iceberg.Type) (converted, error) {
	c, err := convert(Number(strings.TrimSpace(s)), t)
	if err != nil {
		return converted{}, invalidf("cannot convert %s to %v", quoteString(s), t)
	}
	return c, nil
}

func fromTyped(v Typed, t iceberg.Type, lit any) (converted, error) {
	if reflect.DeepEqual(v.Type, t) {
		return exactly(v.Value)
	}
	fail := func() (converted, error) {
		return converted{}, invalidf("cannot convert %s to %v", formatLiteral(nil, lit), t)
	}
	switch src := v.Type.(type) {
	case iceberg.DateType:
		d, ok := v.Value.(int32)
		if !ok {
			return fail()
		}
		// A date against a timestamp column is its midnight.
		switch t.(type) {
		case iceberg.TimestampType, iceberg.TimestampTzType:
			return exactly(int64(d) * microsPerDay)
		case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
			return instantConvert(instant{sec: int64(d) * 86400}, t)
		}
	case iceberg.TimestampType, iceberg.TimestampTzType:
		us, ok := v.Value.(int64)
		if !ok {
			return fail()
		}
		// Iceberg Java converts freely between timestamp and timestamptz.
		return instantConvert(instant{sec: floorDiv(us, 1_000_000), nsec: (us - floorDiv(us, 1_000_000)*1_000_000) * 1000}, t)
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		ns, ok := v.Value.(int64)
		if !ok {
			return fail()
		}
		return instantConvert(instant{sec: floorDiv(ns, 1e9), nsec: ns - floorDiv(ns, 1e9)*1e9}, t)
	case iceberg.BinaryType, iceberg.FixedType:
		b, ok := v.Value.([]byte)
		if !ok {
			return fail()
		}
		switch t := t.(type) {
		case iceberg.BinaryType:
			return exactly(b)
		case iceberg.FixedType:
			if len(b) != t.Length {
				return converted{}, invalidf("binary literal has %d bytes, %v needs %d", len(b), t, t.Length)
			}
			return exactly(b)
		}
	case iceberg.IntType, iceberg.LongType:
		if i, ok := asInt64(v.Value); ok {
			return convert(i, t)
		}
	case iceberg.FloatType, iceberg.DoubleType:
		if f, ok := asFloat64(v.Value); ok {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return convert(f, t)
			}
			bits := 64
			if _, ok := src.(iceberg.FloatType); ok {
				bits = 32
			}
			return convert(Number(strconv.FormatFloat(f, 'g', -1, bits)), t)
		}
	case iceberg.DecimalType:
		if d, ok := v.Value.(decimal128.Num); ok {
			return convert(Number(iceberg.FormatDecimal(d, src.Scale)), t)
		}
	case iceberg.StringType, iceberg.BooleanType:
		return convert(v.Value, t)
	}
	return fail()
}

// instantConvert converts a point in time to a date or timestamp type.
func instantConvert(in instant, t iceberg.Type) (converted, error) {
	switch t.(type) {
	case iceberg.DateType:
		d, exact := in.days()
		if d < math.MinInt32 || d > math.MaxInt32 {
			return converted{rng: int(math.Copysign(1, float64(d)))}, nil
		}
		return converted{val: int32(d), exact: exact}, nil
	case iceberg.TimestampType, iceberg.TimestampTzType:
		us, exact := in.micros()
		return converted{val: us, exact: exact}, nil
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		ns, rng := in.nanos()
		if rng != 0 {
			return converted{rng: rng}, nil
		}
		return exactly(ns)
	}
	return converted{}, invalidf("cannot convert a timestamp to %v", t)
}

// successor returns the smallest value of type t above v, for the integral
// types that inexact conversions produce; ok is false past the type's range.
func successor(t iceberg.Type, v any) (any, bool) {
	switch v := v.(type) {
	case int32:
		if v == math.MaxInt32 {
			return nil, false
		}
		return v + 1, true
	case int64:
		if _, isTime := t.(iceberg.TimeType); (isTime && v >= microsPerDay-1) || v == math.MaxInt64 {
			return nil, false
		}
		return v + 1, true
	case decimal128.Num:
		next := v.Add(decimal128.FromI64(1))
		if dt, ok := t.(iceberg.DecimalType); ok && !next.FitsInPrecision(int32(dt.Precision)) {
			return nil, false
		}
		return next, true
	}
	return nil, false
}
