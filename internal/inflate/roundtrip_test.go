package inflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"testing"

	kflate "github.com/klauspost/compress/flate"
)

// compressor is an independent DEFLATE encoder at one level.
type compressor struct {
	name     string
	compress func(tb testing.TB, data []byte) []byte
}

func stdlibCompressor(level int) compressor {
	return writerCompressor(fmt.Sprintf("stdlib level %d", level), func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, level)
	})
}

func klauspostCompressor(level int) compressor {
	return writerCompressor(fmt.Sprintf("klauspost level %d", level), func(w io.Writer) (io.WriteCloser, error) {
		return kflate.NewWriter(w, level)
	})
}

// writerCompressor compresses through the writers newWriter makes.
func writerCompressor(name string, newWriter func(io.Writer) (io.WriteCloser, error)) compressor {
	return compressor{name, func(tb testing.TB, data []byte) []byte {
		var b bytes.Buffer
		w, err := newWriter(&b)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			tb.Fatal(err)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		return b.Bytes()
	}}
}

var compressors = []compressor{
	stdlibCompressor(flate.HuffmanOnly),
	stdlibCompressor(flate.NoCompression),
	stdlibCompressor(1),
	stdlibCompressor(5),
	stdlibCompressor(9),
	klauspostCompressor(1),
	klauspostCompressor(6),
	klauspostCompressor(9),
}

var roundTripInputs = []struct {
	name string
	data []byte
}{
	{"empty", nil},
	{"one byte", []byte{'x'}},
	{"random bytes", randomBytes(1, 100<<10)},
	{"runs and patterns of 1 to 4 bytes", repetitive(64 << 10)},
	{"text", textLike(2, 200<<10)},
	{"matches a whole window back", farRepeat()},
	{"manifest entries", manifestLike(3, 64<<10)},
	{"a megabyte of text", textLike(4, 1<<20)},
}

// TestDecodeRoundTrip decodes what independent encoders wrote, at every
// level kind (Huffman only, stored, fast, default, best), into a nil dst,
// one too small, and one with room to spare, which must be reused.
func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, in := range roundTripInputs {
		for _, c := range compressors {
			t.Run(in.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				src := c.compress(t, in.data)
				dsts := map[string][]byte{
					"nil dst":       nil,
					"small dst":     make([]byte, 3, 10),
					"ample dst":     make([]byte, 0, len(in.data)+4096),
					"exactly sized": make([]byte, len(in.data)),
				}
				for name, dst := range dsts {
					got, err := Decode(dst, src)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !bytes.Equal(got, in.data) {
						t.Fatalf("%s: output differs from input (%d bytes, want %d)", name, len(got), len(in.data))
					}
					if cap(dst) >= len(in.data) && len(in.data) > 0 && &got[0] != &dst[:1][0] {
						t.Errorf("%s: output does not reuse dst's memory", name)
					}
				}
			})
		}
	}
}

// TestDecodeLimit checks that the limit allows output of exactly limit
// bytes and stops output of one more, whatever the encoding.
func TestDecodeLimit(t *testing.T) {
	t.Parallel()
	data := textLike(5, 100<<10)
	for _, c := range []compressor{stdlibCompressor(0), stdlibCompressor(6), stdlibCompressor(flate.HuffmanOnly)} {
		src := c.compress(t, data)
		if got, err := DecodeLimit(nil, src, len(data)); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: limit = output size: err %v", c.name, err)
		}
		for _, limit := range []int{len(data) - 1, 1000, 0, -1} {
			if _, err := DecodeLimit(make([]byte, 0, 2*len(data)), src, limit); !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s: limit %d: got %v, want ErrTooLarge", c.name, limit, err)
			}
		}
	}
}

// TestDecodeIgnoresTrailingBytes follows compress/flate, which stops
// reading at the end of the final block.
func TestDecodeIgnoresTrailingBytes(t *testing.T) {
	t.Parallel()
	data := textLike(6, 10<<10)
	src := append(stdlibCompressor(6).compress(t, data), 0xFF, 0x00, 0x17)
	got, err := Decode(nil, src)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("got %d bytes, err %v", len(got), err)
	}
}

// TestDecodeTruncated checks that every proper prefix of a stream fails,
// as it does for compress/flate: the final block's last code is in the
// last byte.
func TestDecodeTruncated(t *testing.T) {
	t.Parallel()
	data := textLike(8, 20<<10)
	for _, c := range []compressor{stdlibCompressor(0), stdlibCompressor(1), stdlibCompressor(9), stdlibCompressor(flate.HuffmanOnly)} {
		src := c.compress(t, data)
		// Every prefix of the first bytes, where the block headers are, then
		// a spread of them: each decode costs up to the whole output.
		for n := 0; n < len(src); n += max(1, min(n/64, 61)) {
			if _, err := Decode(nil, src[:n]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: prefix of %d of %d bytes: got %v, want ErrCorrupt", c.name, n, len(src), err)
			}
		}
	}
}
