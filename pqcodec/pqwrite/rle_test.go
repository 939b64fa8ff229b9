package pqwrite

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// decodeHybrid is an independent reader of the RLE/bit-packed hybrid,
// straight from the Parquet format's description, for n values.
func decodeHybrid(data []byte, width, n int) ([]uint32, error) {
	var out []uint32
	pos := 0
	for len(out) < n {
		h, k := binary.Uvarint(data[pos:])
		if k <= 0 {
			return nil, fmt.Errorf("bad header at %d", pos)
		}
		pos += k
		if h&1 == 0 {
			var v uint32
			for b := 0; b < (width+7)/8; b++ {
				v |= uint32(data[pos]) << (8 * b)
				pos++
			}
			for range h >> 1 {
				out = append(out, v)
			}
			continue
		}
		count := int(h>>1) * 8
		for i := range count {
			var v uint32
			for b := range width {
				bit := i*width + b
				v |= uint32(data[pos+bit/8]>>(bit%8)&1) << b
			}
			out = append(out, v)
		}
		pos += int(h>>1) * width
	}
	if pos != len(data) {
		return nil, fmt.Errorf("%d bytes left", len(data)-pos)
	}
	return out[:n], nil
}

func TestHybridRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		width := rng.IntN(33)
		n := rng.IntN(300)
		vals := make([]uint32, n)
		runny := rng.IntN(3)
		for i := range vals {
			if i > 0 && rng.IntN(4) < runny+1 && runny > 0 {
				vals[i] = vals[i-1]
				continue
			}
			if width > 0 {
				vals[i] = uint32(rng.Uint64() & (1<<width - 1))
			}
		}
		enc := appendHybrid(nil, vals, width)
		got, err := decodeHybrid(enc, width, n)
		if err != nil {
			t.Fatalf("trial %d width %d: %v", trial, width, err)
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("trial %d width %d: decoded %v, want %v", trial, width, got, vals)
		}
	}
}
