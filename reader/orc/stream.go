package orc

import (
	"fmt"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/iceflight/iceflight/internal/inflate"
)

// maxReservedChunk is the largest chunk size for which a chunk is inflated
// straight into room reserved for its largest expansion.
const maxReservedChunk = 4 << 20

// maxChunk caps how far one chunk may expand when the postscript records
// no chunk size, so that a corrupt file cannot make us allocate without end.
const maxChunk = 64 << 20

// decompressor expands ORC's chunked streams. It is not safe for concurrent
// use: every RecordReader owns one.
//
// Spec: Compression — every part of the file except the postscript is
// written in chunks, each with a 3-byte little-endian header holding
// compressedLength*2 + isOriginal; an original chunk is stored as is, the
// others are compressed independently with the file's codec, and none
// expands beyond the compression chunk size the postscript records.
type decompressor struct {
	kind  compressionKind
	limit int // the most bytes one chunk may expand to
	// max is the most bytes one decoded stream or footer may hold; 0
	// means no bound.
	max int64
}

func newDecompressor(kind compressionKind, blockSize uint64) (*decompressor, error) {
	switch kind {
	case compressionNone, compressionZlib, compressionSnappy, compressionLz4, compressionZstd:
	default:
		return nil, fmt.Errorf("%w: compression %v", ErrUnsupported, kind)
	}
	limit := int(min(blockSize, maxChunk))
	if blockSize == 0 {
		limit = maxChunk
	}
	return &decompressor{kind: kind, limit: limit}, nil
}

// decode appends the decompressed contents of the stream src to dst. An
// uncompressed stream is returned as is when dst is nil.
func (d *decompressor) decode(dst, src []byte) ([]byte, error) {
	if d.kind == compressionNone {
		if dst == nil {
			return src, nil
		}
		return append(dst, src...), nil
	}
	for len(src) > 0 {
		if len(src) < 3 {
			return dst, fmt.Errorf("%w: truncated compression chunk header", ErrInvalidFile)
		}
		h := int(src[0]) | int(src[1])<<8 | int(src[2])<<16
		n := h >> 1
		src = src[3:]
		if n > len(src) {
			return dst, fmt.Errorf("%w: compression chunk of %d bytes, %d left in stream", ErrInvalidFile, n, len(src))
		}
		chunk := src[:n]
		src = src[n:]
		if h&1 == 1 {
			dst = append(dst, chunk...)
			continue
		}
		start := len(dst)
		var err error
		if dst, err = d.chunk(dst, chunk); err != nil {
			return dst, fmt.Errorf("%w: %v chunk: %v", ErrInvalidFile, d.kind, err)
		}
		if len(dst)-start > d.limit {
			return dst, fmt.Errorf("%w: %v chunk expands beyond the chunk size %d", ErrInvalidFile, d.kind, d.limit)
		}
		if d.max > 0 && int64(len(dst)) > d.max {
			return dst, fmt.Errorf("%w: %v stream expands beyond %d bytes", ErrTooLarge, d.kind, d.max)
		}
	}
	return dst, nil
}

// chunk appends one compressed chunk, expanded, to dst.
func (d *decompressor) chunk(dst, chunk []byte) ([]byte, error) {
	switch d.kind {
	case compressionZlib:
		// ORC's ZLIB is raw deflate, without the zlib header and checksum,
		// and a chunk is whole in memory: inflate it in place after dst,
		// in room for the most a chunk may expand to.
		start := len(dst)
		if d.limit > maxReservedChunk {
			// No chunk size recorded: let the decoder size its output.
			out, err := inflate.DecodeLimit(nil, chunk, d.limit)
			return append(dst, out...), err
		}
		dst = grow(dst, d.limit)
		out, err := inflate.DecodeLimit(dst[start:start], chunk, d.limit)
		if err != nil {
			return dst[:start], err
		}
		return dst[:start+len(out)], nil
	case compressionSnappy:
		n, err := snappy.DecodedLen(chunk)
		if err != nil {
			return dst, err
		}
		if n > d.limit {
			return dst, fmt.Errorf("chunk expands to %d bytes", n)
		}
		start := len(dst)
		dst = grow(dst, n)
		out, err := snappy.Decode(dst[start:start+n], chunk)
		if err != nil {
			return dst[:start], err
		}
		return dst[:start+len(out)], nil
	case compressionLz4:
		// A raw LZ4 block: its expanded size is not recorded, but it is no
		// more than the chunk size.
		start := len(dst)
		dst = grow(dst, d.limit)
		n, err := lz4.UncompressBlock(chunk, dst[start:])
		if err != nil {
			return dst[:start], err
		}
		return dst[:start+n], nil
	case compressionZstd:
		dec, err := zstdDecoder()
		if err != nil {
			return dst, err
		}
		return dec.DecodeAll(chunk, dst)
	}
	return dst, fmt.Errorf("%w: compression %v", ErrUnsupported, d.kind)
}

// grow returns b with room for n more bytes, its length extended by n.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// zstdDecoder is shared by all readers: DecodeAll is safe for concurrent
// use, and a decoder without a stream starts no goroutines.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxChunk))
})
