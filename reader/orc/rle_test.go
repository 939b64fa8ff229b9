package orc

import (
	"errors"
	"slices"
	"testing"
)

// The byte vectors below are the ORC specification's own examples (Run
// Length Encoding), and a few built by hand from its rules.

func seq(from, step, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)*step
	}
	return out
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestByteRLE(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"spec: a hundred 0's is [0x61, 0x00]", []byte{0x61, 0x00}, repeat[byte](0, 100)},
		{"spec: 0x44, 0x45 is the literal list [0xfe, 0x44, 0x45]", []byte{0xfe, 0x44, 0x45}, []byte{0x44, 0x45}},
		{"a run then literals", []byte{0x00, 0x07, 0xff, 0x09}, []byte{7, 7, 7, 9}},
		{"the longest run and literal list", append([]byte{0x7f, 0x01, 0x80}, repeat[byte](2, 128)...),
			append(repeat[byte](1, 130), repeat[byte](2, 128)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Read in uneven pieces: groups must carry over between calls.
			r := newByteRLE(c.in)
			got := make([]byte, len(c.want))
			for i := 0; i < len(got); i += 3 {
				if err := r.next(got[i:min(i+3, len(got))]); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if err := r.next(make([]byte, 1)); !errors.Is(err, ErrInvalidFile) {
				t.Errorf("reading past the end: err = %v, want ErrInvalidFile", err)
			}
		})
	}
}

func TestBoolRLE(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   []byte
		want []bool
	}{
		{"spec: [0xff, 0x80] is one true followed by seven false", []byte{0xff, 0x80},
			[]bool{true, false, false, false, false, false, false, false}},
		{"bits run from the most significant", []byte{0xfe, 0xa5, 0x01},
			[]bool{true, false, true, false, false, true, false, true, false, false, false, false, false, false, false, true}},
		{"a run of bytes", []byte{0x00, 0xff}, repeat(true, 24)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newBoolRLE(c.in)
			got := make([]bool, len(c.want))
			for i := 0; i < len(got); i += 5 {
				if err := r.next(got[i:min(i+5, len(got))]); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestVarint(t *testing.T) {
	t.Parallel()
	// Spec: Base 128 Varint, and its zigzag table.
	cases := []struct {
		in       []byte
		unsigned uint64
		signed   int64
	}{
		{[]byte{0x00}, 0, 0},
		{[]byte{0x01}, 1, -1},
		{[]byte{0x7f}, 127, -64},
		{[]byte{0x80, 0x01}, 128, 64},
		{[]byte{0x81, 0x01}, 129, -65},
		{[]byte{0xff, 0x7f}, 16383, -8192},
		{[]byte{0x80, 0x80, 0x01}, 16384, 8192},
		{[]byte{0x81, 0x80, 0x01}, 16385, -8193},
		{[]byte{0x03}, 3, -2},
		{[]byte{0x04}, 4, 2},
	}
	for _, c := range cases {
		pos := 0
		u, err := readUvarint(c.in, &pos)
		if err != nil || u != c.unsigned || pos != len(c.in) {
			t.Errorf("% x: unsigned %d (%v), want %d", c.in, u, err, c.unsigned)
		}
		pos = 0
		if s, err := readVarint(c.in, &pos, true); err != nil || s != c.signed {
			t.Errorf("% x: signed %d (%v), want %d", c.in, s, err, c.signed)
		}
	}
	pos := 0
	if _, err := readUvarint([]byte{0x80, 0x80}, &pos); !errors.Is(err, ErrInvalidFile) {
		t.Errorf("truncated varint: err = %v", err)
	}
}

func TestIntRLE(t *testing.T) {
	t.Parallel()
	patched := []int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
		2100, 2110, 2120, 2130, 2140, 2150, 2160, 2170, 2180, 2190}
	// 300 zeros but for a 2 at index 280: the gap of 280 needs a filler
	// patch entry (gap 255, patch 0) before the real one (gap 25, patch 1).
	longGap := make([]int64, 300)
	longGap[280] = 2
	cases := []struct {
		name   string
		enc    encodingKind
		signed bool
		in     []byte
		want   []int64
	}{
		{"v1 spec: 100 instances of 7 is [0x61, 0x00, 0x07]", encodingDirect, false,
			[]byte{0x61, 0x00, 0x07}, repeat[int64](7, 100)},
		{"v1 spec: 100 down to 1 is [0x61, 0xff, 0x64]", encodingDirect, false,
			[]byte{0x61, 0xff, 0x64}, seq(100, -1, 100)},
		{"v1 spec: literals [2, 3, 6, 7, 11]", encodingDirect, false,
			[]byte{0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b}, []int64{2, 3, 6, 7, 11}},
		{"v1 signed: a zigzag base and literals", encodingDictionary, true,
			[]byte{0x00, 0x02, 0x03, 0xfe, 0x01, 0x04}, []int64{-2, 0, 2, -1, 2}},
		{"v2 spec: short repeat of 10000 five times is [0x0a, 0x27, 0x10]", encodingDirectV2, false,
			[]byte{0x0a, 0x27, 0x10}, repeat[int64](10000, 5)},
		{"v2 signed short repeat", encodingDirectV2, true,
			[]byte{0x00, 0x01}, repeat[int64](-1, 3)},
		{"v2 spec: direct [23713, 43806, 57005, 48879]", encodingDirectV2, false,
			[]byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}, []int64{23713, 43806, 57005, 48879}},
		{"v2 signed direct of 3-bit values", encodingDirectV2, true,
			// width code 2 (3 bits), 4 values: zigzag 1,2,3,4 = -1,1,-2,2
			[]byte{0x44, 0x03, 0x29, 0xc0}, []int64{-1, 1, -2, 2}},
		{"v2 spec: patched base", encodingDirectV2, false,
			[]byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
				0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8}, patched},
		{"v2 patched base with a gap over 255", encodingDirectV2, false,
			append(append([]byte{0x81, 0x2b, 0x00, 0xe2, 0x00}, make([]byte, 38)...), 0xff, 0x0c, 0xc0), longGap},
		{"v2 patched base with a negative base", encodingDirectV2, true,
			// width 1, 3 values, base -5 in one byte (0x85), patch width
			// 1, gap width 1, one patch (gap 1, patch 1): [-5, -3, -4].
			[]byte{0x80, 0x02, 0x00, 0x01, 0x85, 0x20, 0xc0}, []int64{-5, -3, -4}},
		{"v2 spec: delta [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]", encodingDirectV2, false,
			[]byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}, []int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
		{"v2 delta with a fixed negative step", encodingDirectV2, true,
			[]byte{0xc0, 0x03, 0x14, 0x05}, []int64{10, 7, 4, 1}},
		{"v2 decreasing delta with packed steps", encodingDirectV2, true,
			[]byte{0xc6, 0x03, 0xc8, 0x01, 0x13, 0x51}, []int64{100, 90, 85, 84}},
		{"v2 runs follow each other", encodingDictionaryV2, false,
			[]byte{0x0a, 0x27, 0x10, 0xc0, 0x02, 0x05, 0x02}, append(repeat[int64](10000, 5), 5, 6, 7)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := newIntReader(c.enc, c.in, c.signed)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int64, len(c.want))
			for i := 0; i < len(got); i += 7 {
				if err := r.next(got[i:min(i+7, len(got))]); err != nil {
					t.Fatalf("value %d: %v", i, err)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v\nwant %v", got, c.want)
			}
			if err := r.next(make([]int64, 1)); !errors.Is(err, ErrInvalidFile) {
				t.Errorf("reading past the end: err = %v, want ErrInvalidFile", err)
			}
		})
	}
}

func TestIntRLETruncated(t *testing.T) {
	t.Parallel()
	// Every prefix of a valid run must fail cleanly, never panic.
	runs := [][]byte{
		{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef},
		{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
			0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8},
		{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46},
		{0x0a, 0x27, 0x10},
	}
	for _, run := range runs {
		for n := range len(run) {
			r := &rleV2{b: run[:n]}
			if err := r.next(make([]int64, 4)); !errors.Is(err, ErrInvalidFile) {
				t.Errorf("% x: err = %v, want ErrInvalidFile", run[:n], err)
			}
		}
	}
	if _, err := newIntReader(encodingDecimal64, nil, true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DECIMAL_64 encoding: err = %v, want ErrUnsupported", err)
	}
}

func TestWidthTables(t *testing.T) {
	t.Parallel()
	// Spec: the 5 bit width encoding table.
	widths := map[int]int{0: 1, 1: 2, 2: 3, 3: 4, 7: 8, 15: 16, 23: 24, 24: 26, 25: 28, 26: 30, 27: 32, 28: 40, 29: 48, 30: 56, 31: 64}
	for code, bits := range widths {
		if got := decodeWidth(code); got != bits {
			t.Errorf("decodeWidth(%d) = %d, want %d", code, got, bits)
		}
	}
	fixed := map[int]int{0: 1, 1: 1, 9: 9, 24: 24, 25: 26, 27: 28, 31: 32, 33: 40, 47: 48, 50: 56, 60: 64}
	for n, bits := range fixed {
		if got := closestFixedBits(n); got != bits {
			t.Errorf("closestFixedBits(%d) = %d, want %d", n, got, bits)
		}
	}
}
