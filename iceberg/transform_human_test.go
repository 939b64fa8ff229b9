package iceberg

import (
	"math"
	"testing"
)

// Floats print as Java's Float.toString and Double.toString do
// (java.lang.Double's documentation: plain from 10^-3 up to 10^7, with at
// least one digit after the point; computerized scientific notation
// beyond), which is how Iceberg Java shows identity partitions on floats.
func TestHumanStringOfFloats(t *testing.T) {
	t.Parallel()
	cases := []struct {
		t    Type
		v    any
		want string
	}{
		{DoubleType{}, 2.0, "2.0"},
		{DoubleType{}, -1.5, "-1.5"},
		{DoubleType{}, 100.0, "100.0"},
		{DoubleType{}, 0.001, "0.001"},
		{DoubleType{}, 0.0001, "1.0E-4"},
		{DoubleType{}, 1234567.0, "1234567.0"},
		{DoubleType{}, 1e7, "1.0E7"},
		{DoubleType{}, 12345678.9, "1.23456789E7"},
		{DoubleType{}, 0.0, "0.0"},
		{DoubleType{}, math.Copysign(0, -1), "-0.0"},
		{DoubleType{}, math.NaN(), "NaN"},
		{DoubleType{}, math.Inf(-1), "-Infinity"},
		{FloatType{}, float32(0.1), "0.1"},
		{FloatType{}, float32(3e10), "3.0E10"},
	}
	for _, c := range cases {
		if got := HumanString(IdentityTransform{}, c.t, c.v); got != c.want {
			t.Errorf("HumanString(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
