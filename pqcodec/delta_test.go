package pqcodec

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// encodeDelta writes vals as DELTA_BINARY_PACKED with the given block
// layout, deltas wrapping at width bits (32 or 64), as the spec describes
// it; the writers under test all use blocks of 128 values in 4 miniblocks,
// so other layouts are covered here.
func encodeDelta(vals []uint64, blockSize, miniblocks, width int) []byte {
	mask := uint64(math.MaxUint64)
	if width == 32 {
		mask = math.MaxUint32
	}
	signed := func(u uint64) int64 {
		if width == 32 {
			return int64(int32(uint32(u)))
		}
		return int64(u)
	}
	zigzag := func(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }
	out := binary.AppendUvarint(nil, uint64(blockSize))
	out = binary.AppendUvarint(out, uint64(miniblocks))
	out = binary.AppendUvarint(out, uint64(len(vals)))
	var first uint64
	if len(vals) > 0 {
		first = vals[0]
	}
	out = binary.AppendUvarint(out, zigzag(signed(first)))
	miniSize := blockSize / miniblocks
	for b := 1; b < len(vals); b += blockSize {
		deltas := make([]int64, 0, blockSize)
		for i := b; i < min(b+blockSize, len(vals)); i++ {
			deltas = append(deltas, signed((vals[i]-vals[i-1])&mask))
		}
		minDelta := deltas[0]
		for _, d := range deltas {
			minDelta = min(minDelta, d)
		}
		out = binary.AppendUvarint(out, zigzag(minDelta))
		widthsAt := len(out)
		out = append(out, make([]byte, miniblocks)...)
		for m := 0; m*miniSize < len(deltas); m++ {
			mini := make([]uint64, miniSize) // padded with zeros
			w := 0
			for i := range mini {
				if m*miniSize+i < len(deltas) {
					mini[i] = uint64(deltas[m*miniSize+i]-minDelta) & mask
					w = max(w, bits.Len64(mini[i]))
				}
			}
			out[widthsAt+m] = byte(w)
			body := make([]byte, miniSize*w/8)
			for i, v := range mini {
				for j := range w {
					if v>>j&1 == 1 {
						p := i*w + j
						body[p/8] |= 1 << (p % 8)
					}
				}
			}
			out = append(out, body...)
		}
	}
	return out
}

func TestDeltaLayouts(t *testing.T) {
	layouts := [][2]int{{128, 4}, {128, 1}, {256, 2}, {256, 8}, {1024, 8}, {384, 3}}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, l := range layouts {
		for _, width := range []int{32, 64} {
			for trial := range 30 {
				n := rng.IntN(3000)
				vals := make([]uint64, n)
				var x uint64
				for i := range vals {
					switch trial % 5 {
					case 0: // a random walk of small steps
						x += uint64(rng.IntN(100) - 50)
					case 1: // anything
						x = rng.Uint64()
					case 2: // constant
					case 3: // the extremes, whose deltas wrap
						x = []uint64{1 << (width - 1), 1<<(width-1) - 1}[rng.IntN(2)]
					default: // steps of varied widths
						x += rng.Uint64() >> rng.IntN(64)
					}
					if width == 32 {
						x = uint64(uint32(x))
					}
					vals[i] = x
				}
				enc := encodeDelta(vals, l[0], l[1], width)
				// Trailing bytes stand for what follows the sequence in
				// a DELTA_LENGTH_BYTE_ARRAY page.
				data := append(enc, 1, 2, 3)
				var d deltaDecoder
				if err := d.reset(data, width, n); err != nil {
					t.Fatalf("layout %v width %d: %v", l, width, err)
				}
				if end, err := d.end(); err != nil || end != len(enc) {
					t.Fatalf("layout %v width %d, %d values: end %d, %v; want %d", l, width, n, end, err, len(enc))
				}
				for i := 0; i < n; {
					k := min(n-i, 1+rng.IntN(200))
					if width == 32 {
						got := make([]uint32, k)
						if err := deltaDecode(&d, got); err != nil {
							t.Fatal(err)
						}
						for j, v := range got {
							if uint64(v) != vals[i+j] {
								t.Fatalf("layout %v width 32: value %d is %d, want %d", l, i+j, v, vals[i+j])
							}
						}
					} else {
						got := make([]uint64, k)
						if err := deltaDecode(&d, got); err != nil {
							t.Fatal(err)
						}
						for j, v := range got {
							if v != vals[i+j] {
								t.Fatalf("layout %v width 64: value %d is %d, want %d", l, i+j, v, vals[i+j])
							}
						}
					}
					i += k
				}
				if err := deltaDecode(&d, make([]uint64, 1)); err == nil {
					t.Fatal("a value past the sequence's count was decoded")
				}
			}
		}
	}
}

func TestDeltaRejects(t *testing.T) {
	uv := func(xs ...uint64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.AppendUvarint(b, x)
		}
		return b
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"block not a multiple of 128", uv(100, 1, 10, 0)},
		{"zero block", uv(0, 1, 10, 0)},
		{"absurd block", uv(1<<40, 1, 10, 0)},
		{"zero miniblocks", uv(128, 0, 10, 0)},
		{"miniblock of 16 values", uv(128, 8, 10, 0)},
		{"miniblocks not dividing the block", uv(128, 3, 10, 0)},
		{"more values than the page", uv(128, 4, 1000, 0)},
		{"overlong varint", append(uv(128, 4, 10), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)},
		{"no block", uv(128, 4, 10, 0)},
		{"widths cut short", append(uv(128, 4, 10, 0, 0), 1, 1)},
		{"width past 32", append(uv(128, 4, 10, 0, 0), 33, 0, 0, 0)},
		{"body cut short", append(append(uv(128, 4, 10, 0, 0), 8, 0, 0, 0), make([]byte, 31)...)},
	}
	for _, tc := range cases {
		var d deltaDecoder
		err := d.reset(tc.data, 32, 100)
		if err == nil {
			_, err = d.end()
		}
		if err == nil {
			err = deltaDecode(&d, make([]uint32, 10))
		}
		if err == nil {
			t.Errorf("%s: decoded", tc.name)
		}
	}
}
