package avro

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/iceflight/iceflight/internal/inflate"
)

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlock))
})

// decompress undoes the container's block codec, within its block bound:
// a block that inflates beyond it is an error wrapping ErrTooLarge.
func (c *Container) decompress(dst, data []byte) ([]byte, error) {
	out, err := decompress(c.codec, dst, data, int(c.maxBlock))
	switch {
	case errors.Is(err, errTooLarge), errors.Is(err, inflate.ErrTooLarge), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return nil, fmt.Errorf("%w: block (%s) at offset %d inflates beyond %d bytes", ErrTooLarge, c.codec, c.syncAt, c.maxBlock)
	case err != nil:
		return nil, fmt.Errorf("%w: block (%s): %v", ErrInvalid, c.codec, err)
	case len(out) > int(c.maxBlock):
		return nil, fmt.Errorf("%w: block (%s) at offset %d inflates to %d bytes, more than %d", ErrTooLarge, c.codec, c.syncAt, len(out), c.maxBlock)
	}
	return out, nil
}

// errTooLarge marks a block that inflates beyond its limit.
var errTooLarge = errors.New("block too large")

// decompress undoes a block codec from the Avro spec ("Required Codecs" and
// "Optional Codecs"), writing into dst's memory when it is large enough
// (dst may be nil), to at most limit bytes. With the null codec it returns
// data itself.
func decompress(codec string, dst, data []byte, limit int) ([]byte, error) {
	switch codec {
	case "", "null":
		return data, nil
	case "deflate":
		// A block is whole in memory: a whole-buffer decoder inflates
		// manifests 2.5 times as fast as a streaming reader.
		return inflate.DecodeLimit(dst, data, limit)
	case "snappy": // the compressed bytes, then a big-endian CRC-32 of the result
		if len(data) < 4 {
			return nil, errors.New("short snappy block")
		}
		body := data[:len(data)-4]
		if n, err := snappy.DecodedLen(body); err != nil {
			return nil, fmt.Errorf("snappy block of %d bytes (%v)", n, err)
		} else if n > limit {
			return nil, errTooLarge
		}
		out, err := snappy.Decode(dst[:cap(dst)], body)
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(data[len(data)-4:]) {
			return nil, errors.New("snappy block checksum mismatch")
		}
		return out, nil
	case "zstandard":
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		return d.DecodeAll(data, dst[:0])
	case "bzip2":
		return readAllInto(dst, bzip2.NewReader(bytes.NewReader(data)), 4*len(data), limit)
	}
	return nil, fmt.Errorf("unsupported codec %q", codec)
}

// readAllInto reads r to its end into dst's memory, growing it as needed
// (from at least hint bytes), and fails beyond limit bytes.
func readAllInto(dst []byte, r io.Reader, hint, limit int) ([]byte, error) {
	b := dst[:0]
	if cap(b) < hint {
		b = make([]byte, 0, min(hint, limit))
	}
	for {
		if len(b) == cap(b) {
			if len(b) > limit {
				return nil, errTooLarge
			}
			// Double: append's growth falls to 1.25x for large slices, and
			// a block inflating to half a megabyte would be copied through
			// half a dozen ever larger buffers.
			b = slices.Grow(b, max(cap(b), 4096))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			if len(b) > limit {
				return nil, errTooLarge
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
