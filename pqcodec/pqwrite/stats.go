package pqwrite

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// chunkStats accumulates a column chunk's statistics: its null count and
// the minimum and maximum of its values in the order the Parquet format
// gives the column's type (ColumnOrder TYPE_DEFINED_ORDER): signed for
// integers, IEEE 754 without NaN for floats, unsigned byte-wise for
// strings and binaries, signed two's complement for decimals. The values
// recorded are the ones arrow-go's writer records for the same data, so
// that readers (and Iceberg metrics) see the same chunk statistics
// whichever writer wrote it.
type chunkStats struct {
	nulls  int64
	has    bool // min and max hold a value
	signed bool // byte strings compare as big-endian two's complement

	imin, imax int64   // int32, int64
	fmin, fmax float64 // float, double (float32 converts exactly)
	bmin, bmax bool
	min, max   []byte // owned copies

	// For Bounds: the NaNs among the values, and which zeros
	// were seen in a batch whose least or greatest value was a zero (the
	// only batches where a zero can be the chunk's bound).
	nans             int64
	negZero, posZero bool
}

// intValues widens the bounds to take vals, INT32 or INT64 values.
func intValues[I int32 | int64](s *chunkStats, vals []I) {
	if len(vals) == 0 {
		return
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	s.ints(int64(lo), int64(hi))
}

func (s *chunkStats) ints(lo, hi int64) {
	if !s.has {
		s.imin, s.imax, s.has = lo, hi, true
		return
	}
	s.imin = min(s.imin, lo)
	s.imax = max(s.imax, hi)
}

// floatValues takes a batch of FLOAT or DOUBLE values: present, every
// non-null value, whose NaNs it counts, and added, those the bounds have
// not seen (the values new to the dictionary, or present itself), whose
// least and greatest widen the bounds. NaN is left out of the bounds (a NaN
// bound would make every comparison false), as the Parquet format asks of
// writers.
func floatValues[F float32 | float64](s *chunkStats, present, added []F) {
	nans := 0
	for _, v := range present {
		if v != v {
			nans++
		}
	}
	s.nans += int64(nans)
	lo, hi := F(math.Inf(1)), F(math.Inf(-1))
	for _, v := range added {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	if lo <= hi {
		if lo == 0 || hi == 0 {
			zeroSigns(s, added)
		}
		s.floats(float64(lo), float64(hi))
	}
}

// zeroSigns records which zeros vals holds.
func zeroSigns[F float32 | float64](s *chunkStats, vals []F) {
	for _, v := range vals {
		if v == 0 {
			if math.Signbit(float64(v)) {
				s.negZero = true
			} else {
				s.posZero = true
			}
		}
	}
}

func (s *chunkStats) floats(lo, hi float64) {
	if !s.has {
		s.fmin, s.fmax, s.has = lo, hi, true
		return
	}
	if lo < s.fmin {
		s.fmin = lo
	}
	if hi > s.fmax {
		s.fmax = hi
	}
}

func (s *chunkStats) bools(vals []uint8) {
	if len(vals) == 0 {
		return
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals[1:] {
		lo &= v
		hi |= v
	}
	if !s.has {
		s.bmin, s.bmax, s.has = lo == 1, hi == 1, true
		return
	}
	s.bmin = s.bmin && lo == 1
	s.bmax = s.bmax || hi == 1
}

// less orders byte strings as the column's sort order does.
func (s *chunkStats) less(a, b []byte) bool {
	if s.signed {
		return signedLess(a, b)
	}
	return bytes.Compare(a, b) < 0
}

// signedLess orders equal-length big-endian two's complement integers
// (decimals in FIXED_LEN_BYTE_ARRAY): the first byte signed, the rest
// unsigned.
func signedLess(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == 0 && len(b) > 0
	}
	if a[0] != b[0] {
		return int8(a[0]) < int8(b[0])
	}
	return bytes.Compare(a[1:], b[1:]) < 0
}

// byteRange merges the bounds lo and hi, which the caller may reuse
// afterwards: they are copied.
func (s *chunkStats) byteRange(lo, hi []byte) {
	if lo == nil {
		return
	}
	// An empty bound is a bound: the copies are never nil.
	if !s.has {
		s.min = append(make([]byte, 0, len(lo)), lo...)
		s.max = append(make([]byte, 0, len(hi)), hi...)
		s.has = true
		return
	}
	if s.less(lo, s.min) {
		s.min = append(s.min[:0], lo...)
	}
	if s.less(s.max, hi) {
		s.max = append(s.max[:0], hi...)
	}
}

// encode returns the statistics as the footer stores them for a column of
// kind k: PLAIN-encoded bounds (without a length for byte arrays), the null
// count always, and no bound longer than maxSize (Parquet readers may take
// a bound as exact, so a long one is left out rather than truncated).
func (s *chunkStats) encode(k kind, descr *schema.Column, maxSize int64) metadata.EncodedStatistics {
	var enc metadata.EncodedStatistics
	enc.SetNullCount(s.nulls)
	enc.Signed = descr.SortOrder() == schema.SortSIGNED
	if !s.has {
		return enc
	}
	var lo, hi []byte
	switch k {
	case kindBool:
		lo, hi = []byte{boolByte(s.bmin)}, []byte{boolByte(s.bmax)}
	case kindInt32:
		lo = binary.LittleEndian.AppendUint32(nil, uint32(int32(s.imin)))
		hi = binary.LittleEndian.AppendUint32(nil, uint32(int32(s.imax)))
	case kindInt64:
		lo = binary.LittleEndian.AppendUint64(nil, uint64(s.imin))
		hi = binary.LittleEndian.AppendUint64(nil, uint64(s.imax))
	case kindFloat32, kindFloat64:
		// A zero bound is written as -0 for the minimum and +0 for the
		// maximum, so that it holds whichever zero the values have (the
		// Parquet format's advice for floating point statistics).
		fmin, fmax := s.fmin, s.fmax
		if fmin == 0 {
			fmin = math.Copysign(0, -1)
		}
		if fmax == 0 {
			fmax = 0
		}
		if k == kindFloat32 {
			lo = binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(fmin)))
			hi = binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(fmax)))
		} else {
			lo = binary.LittleEndian.AppendUint64(nil, math.Float64bits(fmin))
			hi = binary.LittleEndian.AppendUint64(nil, math.Float64bits(fmax))
		}
	default:
		lo, hi = append([]byte{}, s.min...), append([]byte{}, s.max...)
	}
	enc.SetMin(lo)
	enc.SetMax(hi)
	enc.ApplyStatSizeLimits(int(maxSize))
	return enc
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// stretch returns the bounds lo and hi widened to take b; nil bounds take
// b as both.
func (s *chunkStats) stretch(lo, hi, b []byte) ([]byte, []byte) {
	switch {
	case lo == nil:
		return b, b
	case s.less(b, lo):
		return b, hi
	case s.less(hi, b):
		return lo, b
	}
	return lo, hi
}
