package pqwrite

import (
	"bytes"
	"math"
)

// Bounds are what Iceberg's column metrics take from a column's values
// rather than from the footer's statistics, which cannot give them: the
// footer's float bounds turn a zero into -0 and +0 and leave NaNs
// uncounted, and its byte bounds are left out past the statistics size
// limit, where Iceberg keeps truncated ones. A FileWriter collects them in
// the same pass as the statistics, so its caller need not walk the values
// again.
type Bounds struct {
	// NaNs counts the NaN values of a FLOAT or DOUBLE column.
	NaNs int64
	// FloatMin and FloatMax are the least and greatest non-NaN values of a
	// FLOAT or DOUBLE column, ordered as Java's Double.compare orders them
	// (-0 before +0); HasFloats is false when there is none.
	FloatMin, FloatMax float64
	HasFloats          bool
	// Min and Max are the byte-wise least and greatest values of a
	// BYTE_ARRAY column, whole; HasBytes is false when there is none.
	Min, Max []byte
	HasBytes bool
}

// chunkBounds returns the bounds of the chunk s describes, of kind k.
func (s *chunkStats) chunkBounds(k kind) Bounds {
	var b Bounds
	if !s.has {
		b.NaNs = s.nans
		return b
	}
	switch k {
	case kindFloat32, kindFloat64:
		b.NaNs, b.HasFloats = s.nans, true
		b.FloatMin, b.FloatMax = s.fmin, s.fmax
		// fmin and fmax compare zeros equal; the signs seen decide: -0 is
		// the least when seen, +0 the greatest.
		if b.FloatMin == 0 {
			b.FloatMin = zero(s.negZero)
		}
		if b.FloatMax == 0 {
			b.FloatMax = zero(!s.posZero)
		}
	case kindBytes:
		b.Min, b.Max, b.HasBytes = bytes.Clone(s.min), bytes.Clone(s.max), true
	}
	return b
}

// zero returns -0 when negative, else +0.
func zero(negative bool) float64 {
	if negative {
		return math.Copysign(0, -1)
	}
	return 0
}

// merge widens b to take o, of the same column.
func (b *Bounds) merge(o Bounds) {
	b.NaNs += o.NaNs
	if o.HasFloats {
		if !b.HasFloats || javaLess(o.FloatMin, b.FloatMin) {
			b.FloatMin = o.FloatMin
		}
		if !b.HasFloats || javaLess(b.FloatMax, o.FloatMax) {
			b.FloatMax = o.FloatMax
		}
		b.HasFloats = true
	}
	if o.HasBytes {
		if !b.HasBytes || bytes.Compare(o.Min, b.Min) < 0 {
			b.Min = o.Min
		}
		if !b.HasBytes || bytes.Compare(b.Max, o.Max) < 0 {
			b.Max = o.Max
		}
		b.HasBytes = true
	}
}

// javaLess orders non-NaN floats as Java's Double.compare: -0 before +0.
func javaLess(a, b float64) bool {
	if a == b {
		return math.Signbit(a) && !math.Signbit(b)
	}
	return a < b
}
