package inflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"testing"
)

// FuzzDecode compares Decode with compress/flate on arbitrary input (see
// agreesWithStdlib), seeded with valid streams of every encoder and level
// kind, corrupted copies of them, and the hand-built streams.
func FuzzDecode(f *testing.F) {
	inputs := [][]byte{
		nil,
		[]byte("a"),
		textLike(10, 300),
		repetitive(2000),
		randomBytes(11, 200),
		manifestLike(12, 1500),
	}
	for _, in := range inputs {
		for _, c := range compressors {
			src := c.compress(f, in)
			f.Add(src)
			// Corrupted variants: a flipped bit early and late, a cut.
			for _, i := range []int{0, len(src) / 3, len(src) - 1} {
				if i >= 0 && i < len(src) {
					b := bytes.Clone(src)
					b[i] ^= 1 << (i % 8)
					f.Add(b)
				}
			}
			f.Add(src[:len(src)/2])
		}
	}
	for _, tt := range rejectCases {
		var w bitWriter
		tt.build(&w)
		f.Add(w.bytes())
	}
	for _, tt := range edgeCases {
		var w bitWriter
		tt.build(&w)
		f.Add(w.bytes())
	}

	f.Fuzz(func(t *testing.T, src []byte) { agreesWithStdlib(t, src) })
}

// TestDecodeCorruptedAgreesWithStdlib flips bits of long streams, one at a
// time, and holds Decode to FuzzDecode's terms: the fuzzer's inputs are
// short, and these reach the fast loop with damage deep inside.
func TestDecodeCorruptedAgreesWithStdlib(t *testing.T) {
	t.Parallel()
	data := append(textLike(30, 30<<10), manifestLike(31, 30<<10)...)
	for _, c := range []compressor{stdlibCompressor(flate.HuffmanOnly), stdlibCompressor(1), stdlibCompressor(6), klauspostCompressor(9)} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := c.compress(t, data)
			r := newRand(32)
			for range 200 {
				b := bytes.Clone(src)
				i := r.IntN(len(b))
				b[i] ^= 1 << r.IntN(8)
				agreesWithStdlib(t, b)
			}
		})
	}
}

// maxCompared is the most output agreesWithStdlib compares: a small input
// can inflate a thousandfold, and the fuzzer would slow down to a crawl.
const maxCompared = 1 << 20

// agreesWithStdlib checks Decode against compress/flate on src: the same
// output where compress/flate succeeds, an error where it fails. Both
// ignore bytes after the final block.
func agreesWithStdlib(t *testing.T, src []byte) {
	t.Helper()
	want, wantErr := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(src)), maxCompared+1))
	if len(want) > maxCompared {
		// compress/flate has produced more than the limit without
		// finding fault; Decode must stop at the limit, or sooner when a
		// check it makes up front (as zlib does) fails.
		if _, err := DecodeLimit(nil, src, maxCompared); !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("output past the limit: got %v", err)
		}
		return
	}
	got, err := DecodeLimit(nil, src, maxCompared)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error %v does not wrap ErrCorrupt", err)
	}
	if wantErr != nil {
		if err == nil {
			t.Fatalf("accepted input compress/flate rejects (%v): %d bytes out", wantErr, len(got))
		}
		return
	}
	if err != nil {
		t.Fatalf("rejected input compress/flate accepts: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from compress/flate's (%d bytes, want %d)", len(got), len(want))
	}
	// Into a buffer of exactly the output's size, where the last symbols
	// go through the checked slow path without growing it.
	got, err = Decode(make([]byte, 0, len(want)), src)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("into an exactly sized dst: %v", err)
	}
	if len(want) > 0 {
		if _, err := DecodeLimit(nil, src, len(want)-1); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("limit one below the output: got %v, want ErrTooLarge", err)
		}
	}
}
