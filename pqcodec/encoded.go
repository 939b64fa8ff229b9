package pqcodec

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
)

// The value encodings beyond PLAIN and the dictionary ones, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT, store only
// a page's present values, as PLAIN does. A page of them is opened here and
// its runs served by their kernels (delta.go, deltabytes.go,
// bytestreamsplit.go), which decode only the values asked for, straight
// into the batch where the Arrow layout is the stored one.

// encodingFits reports whether value encoding e may store values of
// physical type t (Parquet encodings: each encoding's supported types;
// BYTE_STREAM_SPLIT's integers and fixed-length arrays since format 2.11).
func encodingFits(e parquet.Encoding, t parquet.Type) bool {
	switch e {
	case parquet.Encodings.DeltaBinaryPacked:
		return t == parquet.Types.Int32 || t == parquet.Types.Int64
	case parquet.Encodings.DeltaLengthByteArray:
		return t == parquet.Types.ByteArray
	case parquet.Encodings.DeltaByteArray:
		return t == parquet.Types.ByteArray || t == parquet.Types.FixedLenByteArray
	case parquet.Encodings.ByteStreamSplit:
		switch t {
		case parquet.Types.Float, parquet.Types.Double, parquet.Types.Int32, parquet.Types.Int64,
			parquet.Types.FixedLenByteArray:
			return true
		}
	}
	return false
}

// isEncoded reports whether enc is one of the encodings opened here.
func isEncoded(enc int32) bool {
	switch enc {
	case encDeltaBinary, encDeltaLength, encDeltaByteArray, encByteStreamSplit:
		return true
	}
	return false
}

// openEncoded opens the value section of a page in one of the encodings
// of isEncoded.
func (c *ColumnReader) openEncoded(values []byte) error {
	enc := c.page.enc
	if c.dictOut {
		return fmt.Errorf("value encoding %d in a chunk read as a dictionary", enc)
	}
	if !encodingFits(parquet.Encoding(enc), c.phys) {
		return fmt.Errorf("value encoding %d for %s values", enc, c.phys)
	}
	n := c.page.left
	present := c.presentIn(0, n)
	if present == 0 {
		// A page of nulls: writers may leave its values out altogether,
		// and the zero decoders serve runs of no values.
		return nil
	}
	switch enc {
	case encDeltaBinary:
		d := &c.page.ints
		if err := d.reset(values, 8*c.storedWidth(), n); err != nil {
			return err
		}
		if d.total < present {
			return fmt.Errorf("DELTA_BINARY_PACKED sequence of %d values for %d", d.total, present)
		}
		return nil
	case encDeltaLength:
		return c.page.delta.openDeltaLength(values, present, n)
	case encDeltaByteArray:
		return c.page.delta.openDeltaByteArray(values, present, n)
	default:
		return c.page.split.reset(values, c.storedWidth(), present, n)
	}
}

// storedWidth is the bytes of a fixed-width value as the file stores it.
func (c *ColumnReader) storedWidth() int {
	if c.kind == kindDecimal {
		return c.physWidth
	}
	return c.width
}

// readEncodedFixed serves a run of fixed-width values: decoded straight
// into the batch and spread over the run's valid rows, or for decimals
// decoded aside and widened.
func (c *ColumnReader) readEncodedFixed(b *batch, out []byte, pos, k, present int) error {
	if c.kind == kindDecimal {
		pw := c.physWidth
		src := c.fixedScratch(pw * present)
		if err := c.decodeFixed(src, pw); err != nil {
			return err
		}
		c.widenRun(b, out, src, pos, k)
		return nil
	}
	w := c.width
	if err := c.decodeFixed(out[:w*present], w); err != nil {
		return err
	}
	if present < k {
		switch w {
		case 4:
			spread(castSlice[uint32](out), present, b, pos)
		case 8:
			spread(castSlice[uint64](out), present, b, pos)
		default:
			spreadBytes(out, w, present, b, pos)
		}
	}
	return nil
}

// decodeFixed writes the next len(dst)/width present values of the open
// page, as stored, into dst. dst is 8-byte aligned when width is 4 or 8.
func (c *ColumnReader) decodeFixed(dst []byte, width int) error {
	var err error
	switch c.page.enc {
	case encDeltaBinary:
		if width == 4 {
			err = deltaDecode(&c.page.ints, castSlice[uint32](dst))
		} else {
			err = deltaDecode(&c.page.ints, castSlice[uint64](dst))
		}
	case encByteStreamSplit:
		err = c.page.split.decode(dst, width)
	case encDeltaByteArray:
		return c.decodeFrontCoded(dst, width)
	default:
		err = errors.New("no decoder for the page's encoding")
	}
	if err != nil {
		return fmt.Errorf("%w: value encoding %d: %v", ErrCorrupt, c.page.enc, err)
	}
	return nil
}

// fixedScratch returns n bytes of scratch, 8-byte aligned so that they can
// be viewed as integers.
func (c *ColumnReader) fixedScratch(n int) []byte {
	words := (n + 7) / 8
	if cap(c.fixed) < words {
		c.fixed = make([]uint64, words)
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&c.fixed[0])), n)
}

// spread moves the present values at the head of vals to the run's valid
// rows, from the last one back so that no value is overwritten before it
// moves, and zeros the null rows.
func spread[T uint32 | uint64](vals []T, present int, b *batch, pos int) {
	j := present
	for i := len(vals) - 1; i >= 0 && j < i+1; i-- {
		if b.isValid(pos + i) {
			j--
			vals[i] = vals[j]
		} else {
			vals[i] = 0
		}
	}
}

// spreadBytes is spread for values of width bytes.
func spreadBytes(out []byte, width, present int, b *batch, pos int) {
	j := present
	for i := len(out)/width - 1; i >= 0 && j < i+1; i-- {
		o := out[i*width : (i+1)*width]
		if b.isValid(pos + i) {
			j--
			copy(o, out[j*width:(j+1)*width])
		} else {
			clear(o)
		}
	}
}
