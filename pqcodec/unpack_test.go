package pqcodec

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// packLSB bit-packs vals in w bits each, least significant bit first, as
// the hybrid's bit-packed runs hold them: the plain loop the kernels are
// checked against.
func packLSB(vals []uint32, w int) []byte {
	out := make([]byte, (len(vals)*w+7)/8)
	for i, v := range vals {
		for b := range w {
			if v>>uint(b)&1 == 1 {
				p := i*w + b
				out[p>>3] |= 1 << (uint(p) & 7)
			}
		}
	}
	return out
}

// unpackLSB is packLSB's inverse, value by value and bit by bit.
func unpackLSB(data []byte, bit, w, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		for b := range w {
			p := bit + i*w + b
			out[i] |= uint32(data[p>>3]>>(uint(p)&7)&1) << uint(b)
		}
	}
	return out
}

func randomValues(rng *rand.Rand, n, w int) []uint32 {
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = uint32(rng.Uint64() & (1<<uint(w) - 1))
	}
	return vals
}

// TestUnpackKernels checks every width's kernel against the plain loop,
// for group counts from none to many and source slices that end right
// where the kernel's reads end.
func TestUnpackKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for w := 1; w <= 32; w++ {
		for _, groups := range []int{0, 1, 2, 3, 7, 64} {
			vals := randomValues(rng, 8*groups, w)
			// The widest values of the width, so that a mask that cut a
			// bit off would show.
			if groups > 0 {
				vals[0], vals[len(vals)-1] = 1<<uint(w)-1, 1<<uint(w)-1
			}
			packed := packLSB(vals, w)
			// A kernel reads max(w, 8) bytes from a group's start.
			if short := max(w, 8) - w; short > 0 {
				packed = append(packed, make([]byte, short)...)
			}
			dst := make([]uint32, len(vals))
			hi := unpackers[w](dst, packed)
			if !slices.Equal(dst, vals) {
				t.Fatalf("width %d, %d groups: got %v, want %v", w, groups, dst, vals)
			}
			if want := slices.Max(append([]uint32{0}, vals...)); hi != want {
				t.Fatalf("width %d, %d groups: largest %d, want %d", w, groups, hi, want)
			}
		}
	}
}

// TestUnpackOddSpans decodes bit-packed runs of every width in spans of
// odd lengths, so that reads start and stop inside groups and near the
// end of the data (where whole words no longer fit), with skips between
// them, and compares each span and its largest value with the plain loop.
func TestUnpackOddSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for w := 0; w <= 32; w++ {
		for _, groups := range []int{1, 2, 5, 37} {
			for _, cut := range []int{0, 1, 3} {
				t.Run(fmt.Sprintf("w%d/g%d/cut%d", w, groups, cut), func(t *testing.T) {
					unpackSpans(t, rng, w, groups, cut)
				})
			}
		}
	}
}

// unpackSpans writes one bit-packed run of the given groups, its last cut
// bytes dropped (a writer that ended the run short), and reads it back.
func unpackSpans(t *testing.T, rng *rand.Rand, w, groups, cut int) {
	vals := randomValues(rng, 8*groups, w)
	packed := packLSB(vals, w)
	cut = min(cut, len(packed))
	packed = packed[:len(packed)-cut]
	if w > 0 {
		vals = vals[:len(packed)*8/w]
	}
	want := unpackLSB(packed, 0, w, len(vals))
	if !slices.Equal(want, vals) {
		t.Fatal("the plain loops disagree")
	}
	data := binary.AppendUvarint(nil, uint64(groups)<<1|1)
	// A leading byte, so that the run does not start at offset 0 of data.
	data = append([]byte{0xa5}, append(data, packed...)...)
	if cut == 0 {
		// Bytes of a next run, which the run's values must not take in.
		for range 40 {
			data = append(data, 0xff)
		}
	}
	if groups > len(data)-1 {
		t.Skip("the decoder bounds a run's groups by the bytes it has")
	}
	var d rleDecoder
	if err := d.reset(data[1:], w); err != nil {
		t.Fatal(err)
	}
	for at := 0; at < len(vals); {
		n := min(1+rng.IntN(23), len(vals)-at)
		if rng.IntN(4) == 0 {
			if err := d.skip(n); err != nil {
				t.Fatal(err)
			}
			at += n
			continue
		}
		got := make([]uint32, n)
		hi, err := d.decode(got)
		if err != nil {
			t.Fatalf("values %d to %d: %v", at, at+n, err)
		}
		if !slices.Equal(got, vals[at:at+n]) {
			t.Fatalf("values %d to %d: got %v, want %v", at, at+n, got, vals[at:at+n])
		}
		if wantHi := slices.Max(vals[at : at+n]); hi != wantHi {
			t.Fatalf("values %d to %d: largest %d, want %d", at, at+n, hi, wantHi)
		}
		at += n
	}
	if _, err := d.decode(make([]uint32, 1)); cut > 0 && err == nil {
		t.Fatal("a value read past the end of the data")
	}
}

// TestDecodeLargestOfRuns checks the largest value decode reports across
// repeated and bit-packed runs: a repeated run's value counts once it is
// read, and not before.
func TestDecodeLargestOfRuns(t *testing.T) {
	const w = 10
	var data []byte
	data = binary.AppendUvarint(data, 5<<1) // five repeats of 1000
	data = binary.LittleEndian.AppendUint16(data, 1000)
	vals := []uint32{3, 9, 1, 7, 2, 8, 6, 5}
	data = binary.AppendUvarint(data, 1<<1|1)
	data = append(data, packLSB(vals, w)...)
	var d rleDecoder
	if err := d.reset(data, w); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 4)
	if hi, err := d.decode(got); err != nil || hi != 1000 {
		t.Fatalf("repeated run: largest %d, %v", hi, err)
	}
	got = make([]uint32, 1)
	if hi, err := d.decode(got); err != nil || hi != 1000 {
		t.Fatalf("end of the repeated run: largest %d, %v", hi, err)
	}
	got = make([]uint32, 8)
	if hi, err := d.decode(got); err != nil || hi != 9 || !slices.Equal(got, vals) {
		t.Fatalf("bit-packed run: %v, largest %d, %v", got, hi, err)
	}
}

// BenchmarkUnpack decodes 64Ki bit-packed values of the widths real
// dictionaries have.
func BenchmarkUnpack(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 64 << 10
	for _, w := range []int{1, 4, 8, 10, 12, 16, 17, 20, 24} {
		vals := randomValues(rng, n, w)
		data := binary.AppendUvarint(nil, uint64(n/8)<<1|1)
		data = append(data, packLSB(vals, w)...)
		dst := make([]uint32, n)
		b.Run(fmt.Sprintf("w%d", w), func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				var d rleDecoder
				if err := d.reset(data, w); err != nil {
					b.Fatal(err)
				}
				if _, err := d.decode(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
