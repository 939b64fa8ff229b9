package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// murmur3x86_32 is the 32-bit x86 variant of Austin Appleby's MurmurHash3
// with seed 0, the hash the spec fixes for bucketing (Appendix B).
func murmur3x86_32(data []byte) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	var h uint32 // seed 0
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	// The tail of one to three bytes is read little-endian as a partial block.
	var k uint32
	switch tail := data[n:]; len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	// Final avalanche (fmix32).
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func hashLong(v int64) int32 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return int32(murmur3x86_32(b[:]))
}

// HashValue returns the spec's 32-bit hash of a literal of type t (Appendix
// B): int, long, date, time and timestamps hash as an 8-byte little-endian
// long (nanosecond timestamps after flooring to microseconds), decimals as
// the minimal big-endian two's-complement unscaled value, strings as UTF-8,
// uuids as 16 big-endian bytes, fixed and binary as their bytes. Booleans,
// floats and doubles follow the appendix's table for types that are not
// bucketed today. A nil value has no hash and is an error.
func HashValue(t Type, v any) (int32, error) {
	bad := func() (int32, error) {
		return 0, fmt.Errorf("hash %v: unexpected Go value %T", t, v)
	}
	switch t.(type) {
	case IntType, DateType:
		i, ok := v.(int32)
		if !ok {
			return bad()
		}
		// Spec: Appendix B note 1 — ints hash as longs so promotion keeps buckets.
		return hashLong(int64(i)), nil
	case LongType, TimeType, TimestampType, TimestampTzType:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		return hashLong(i), nil
	case TimestampNsType, TimestampTzNsType:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		// Spec: Appendix B note 3 — nanoseconds are floored to microseconds.
		return hashLong(floorDiv(i, 1000)), nil
	case DecimalType:
		d, ok := v.(decimal128.Num)
		if !ok {
			return bad()
		}
		return int32(murmur3x86_32(decimalToMinimalBytes(d))), nil
	case StringType:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return int32(murmur3x86_32([]byte(s))), nil
	case UUIDType:
		u, ok := v.([16]byte)
		if !ok {
			return bad()
		}
		return int32(murmur3x86_32(u[:])), nil
	case FixedType, BinaryType:
		b, ok := v.([]byte)
		if !ok {
			return bad()
		}
		return int32(murmur3x86_32(b)), nil
	case BooleanType:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		if b {
			return hashLong(1), nil
		}
		return hashLong(0), nil
	case FloatType:
		f, ok := v.(float32)
		if !ok {
			return bad()
		}
		return hashDouble(float64(f)), nil
	case DoubleType:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		return hashDouble(f), nil
	}
	return 0, fmt.Errorf("hash %v: type has no 32-bit hash", t)
}

// hashDouble canonicalizes NaN and negative zero before hashing the bits,
// as Appendix B note 5 requires.
func hashDouble(f float64) int32 {
	switch {
	case math.IsNaN(f):
		return hashLong(0x7ff8000000000000)
	case f == 0:
		return hashLong(0)
	}
	return hashLong(int64(math.Float64bits(f)))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
