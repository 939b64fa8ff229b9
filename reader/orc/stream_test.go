package orc

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// chunkHeader is Spec: Compression — compressedLength*2 + isOriginal, as
// three little-endian bytes.
func chunkHeader(n int, original bool) []byte {
	v := n * 2
	if original {
		v++
	}
	return []byte{byte(v), byte(v >> 8), byte(v >> 16)}
}

func TestChunkHeaderMatchesSpec(t *testing.T) {
	t.Parallel()
	// Spec: "the header for a chunk that compressed to 100,000 bytes would
	// be [0x40, 0x0d, 0x03]. The header for 5 bytes that did not compress
	// would be [0x0b, 0x00, 0x00]."
	if got := chunkHeader(100000, false); !bytes.Equal(got, []byte{0x40, 0x0d, 0x03}) {
		t.Errorf("header = % x", got)
	}
	if got := chunkHeader(5, true); !bytes.Equal(got, []byte{0x0b, 0x00, 0x00}) {
		t.Errorf("header = % x", got)
	}
	d, _ := newDecompressor(compressionZlib, 1024)
	got, err := d.decode(nil, []byte{0x0b, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'})
	if err != nil || string(got) != "hello" {
		t.Errorf("original chunk = %q, %v", got, err)
	}
}

func compress(t testing.TB, kind compressionKind, b []byte) []byte {
	t.Helper()
	switch kind {
	case compressionZlib:
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, flate.BestCompression)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	case compressionSnappy:
		return snappy.Encode(nil, b)
	case compressionLz4:
		out := make([]byte, lz4.CompressBlockBound(len(b)))
		n, err := lz4.CompressBlock(b, out, nil)
		if err != nil || n == 0 {
			t.Fatalf("lz4: %d, %v", n, err)
		}
		return out[:n]
	case compressionZstd:
		enc, _ := zstd.NewWriter(nil)
		defer enc.Close()
		return enc.EncodeAll(b, nil)
	}
	t.Fatalf("no compressor for %v", kind)
	return nil
}

func TestDecompressChunkedStreams(t *testing.T) {
	t.Parallel()
	parts := []string{
		strings.Repeat("orc stripe data ", 200),
		"raw bytes kept as they are",
		strings.Repeat("0123456789", 300),
	}
	want := strings.Join(parts, "")
	for _, kind := range []compressionKind{compressionZlib, compressionSnappy, compressionLz4, compressionZstd} {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			// Chunks: compressed, original, compressed.
			var stream []byte
			for i, p := range parts {
				if i == 1 {
					stream = append(append(stream, chunkHeader(len(p), true)...), p...)
					continue
				}
				c := compress(t, kind, []byte(p))
				stream = append(append(stream, chunkHeader(len(c), false)...), c...)
			}
			d, err := newDecompressor(kind, 4096)
			if err != nil {
				t.Fatal(err)
			}
			// Twice, so that reused state (the inflater) is exercised.
			for range 2 {
				got, err := d.decode(nil, stream)
				if err != nil || string(got) != want {
					t.Fatalf("decode = %d bytes, %v; want %d bytes", len(got), err, len(want))
				}
			}
			// A chunk that expands beyond the recorded chunk size is corrupt.
			small, _ := newDecompressor(kind, 1024)
			if _, err := small.decode(nil, stream); !errors.Is(err, ErrInvalidFile) {
				t.Errorf("oversized chunk: err = %v, want ErrInvalidFile", err)
			}
			// So are garbage and truncated streams.
			garbage := append(chunkHeader(8, false), 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8)
			if _, err := d.decode(nil, garbage); !errors.Is(err, ErrInvalidFile) {
				t.Errorf("garbage chunk: err = %v, want ErrInvalidFile", err)
			}
			for _, n := range []int{1, 2, 10} {
				if _, err := d.decode(nil, stream[:n]); !errors.Is(err, ErrInvalidFile) {
					t.Errorf("stream cut at %d: err = %v, want ErrInvalidFile", n, err)
				}
			}
		})
	}
}

func TestUncompressedStreamsPassThrough(t *testing.T) {
	t.Parallel()
	d, err := newDecompressor(compressionNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Without a codec there are no chunk headers.
	in := []byte{0x0b, 0x00, 0x00, 1, 2}
	if got, err := d.decode(nil, in); err != nil || !bytes.Equal(got, in) {
		t.Errorf("decode = % x, %v", got, err)
	}
}

func TestUnsupportedCodecs(t *testing.T) {
	t.Parallel()
	for _, kind := range []compressionKind{compressionLzo, compressionBrotli, 42} {
		if _, err := newDecompressor(kind, 0); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%v: err = %v, want ErrUnsupported", kind, err)
		}
	}
}

// BenchmarkDecodeZlib expands a stream of 256 KiB ZLIB chunks (Java's
// default chunk size) of column-like data.
func BenchmarkDecodeZlib(b *testing.B) {
	const chunkSize = 256 << 10
	var raw []byte
	for i := 0; len(raw) < 8*chunkSize; i++ {
		raw = fmt.Appendf(raw, "%08d,user-%d,%d.%02d,category-%d;", i, i%9973, i%1000, i%100, i%8)
	}
	var stream []byte
	for off := 0; off < len(raw); off += chunkSize {
		c := compress(b, compressionZlib, raw[off:min(off+chunkSize, len(raw))])
		stream = append(append(stream, chunkHeader(len(c), false)...), c...)
	}
	d, err := newDecompressor(compressionZlib, chunkSize)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	var out []byte
	for b.Loop() {
		if out, err = d.decode(out[:0], stream); err != nil {
			b.Fatal(err)
		}
	}
}
