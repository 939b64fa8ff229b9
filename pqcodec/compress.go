package pqcodec

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// supportedCodec reports whether decompress undoes c.
func supportedCodec(c compress.Compression) bool {
	switch c {
	case compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd,
		compress.Codecs.Gzip, compress.Codecs.Lz4Raw:
		return true
	}
	return false
}

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	// One decoder serves every goroutine: DecodeAll is safe for concurrent
	// use, and the page's stated size bounds what it may produce.
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MaxPageBytes))
})

// Snappy and LZ4 cannot expand a byte of input past these ratios (a
// snappy copy of 64 bytes takes 3, an LZ4 sequence adds at most 255 bytes
// per length byte), so a page that claims more is refused before its
// buffer is allocated. Zstd and gzip have no such bound (a page of zeros
// shrinks to almost nothing): their output grows as it is produced, up to
// the page's stated size.
const (
	maxSnappyRatio = 32
	maxLZ4Ratio    = 256
)

// decompress returns src decoded with codec into dst's storage; the page
// must decode to exactly size bytes.
func decompress(codec compress.Compression, dst, src []byte, size int) ([]byte, error) {
	bound := size
	switch codec {
	case compress.Codecs.Snappy:
		bound = min(size, maxSnappyRatio*len(src)+64)
	case compress.Codecs.Lz4Raw:
		bound = min(size, maxLZ4Ratio*len(src)+64)
	case compress.Codecs.Zstd, compress.Codecs.Gzip:
		bound = min(size, cap(dst))
	}
	if bound < size && codec != compress.Codecs.Zstd && codec != compress.Codecs.Gzip {
		return nil, fmt.Errorf("%s page of %d bytes cannot decode to the %d its header states", codec, len(src), size)
	}
	if cap(dst) < bound {
		dst = make([]byte, bound)
	}
	dst = dst[:bound]
	var out []byte
	switch codec {
	case compress.Codecs.Uncompressed:
		if len(src) != size {
			return nil, fmt.Errorf("uncompressed page holds %d bytes, its header says %d", len(src), size)
		}
		return src, nil
	case compress.Codecs.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if n != size {
			return nil, fmt.Errorf("snappy page decodes to %d bytes, its header says %d", n, size)
		}
		if out, err = snappy.Decode(dst, src); err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
	case compress.Codecs.Zstd:
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		// DecodeAll appends, growing dst as the frame decodes, within the
		// decoder's MaxPageBytes.
		if out, err = d.DecodeAll(src, dst[:0]); err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
	case compress.Codecs.Lz4Raw:
		if size == 0 {
			// The lz4 block decoder needs room to write into.
			return dst[:0], nil
		}
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return nil, fmt.Errorf("lz4_raw: %w", err)
		}
		out = dst[:n]
	case compress.Codecs.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		buf := bytes.NewBuffer(dst[:0])
		// One byte past the stated size tells a page that decodes to more.
		if _, err := io.Copy(buf, io.LimitReader(zr, int64(size)+1)); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		out = buf.Bytes()
	default:
		return nil, fmt.Errorf("codec %s is not decoded here", codec)
	}
	if len(out) != size {
		return nil, fmt.Errorf("%s page decodes to %d bytes, its header says %d", codec, len(out), size)
	}
	return out, nil
}
