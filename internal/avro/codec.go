package avro

import (
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
)

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlock))
})

// decompress undoes a block codec from the Avro spec ("Required Codecs" and
// "Optional Codecs").
func decompress(codec string, data []byte) ([]byte, error) {
	switch codec {
	case "", "null":
		return data, nil
	case "deflate": // raw RFC 1951, no zlib header
		return readAllLimited(flate.NewReader(bytes.NewReader(data)))
	case "snappy": // the compressed bytes, then a big-endian CRC-32 of the result
		if len(data) < 4 {
			return nil, errors.New("short snappy block")
		}
		out, err := snappy.Decode(nil, data[:len(data)-4])
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
		return d.DecodeAll(data, nil)
	case "bzip2":
		return readAllLimited(bzip2.NewReader(bytes.NewReader(data)))
	}
	return nil, fmt.Errorf("unsupported codec %q", codec)
}

func readAllLimited(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxBlock+1))
	if err == nil && len(out) > maxBlock {
		err = errors.New("block too large")
	}
	return out, err
}
