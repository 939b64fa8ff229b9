package orc

import "fmt"

// intReader decodes an integer stream: DATA of integer columns, LENGTH of
// strings and lists, SECONDARY of decimals and timestamps, and so on.
// Unsigned streams hand out their values' bits as int64.
type intReader interface {
	// next fills dst with the following len(dst) values.
	next(dst []int64) error
}

// newIntReader returns the integer decoder of a column encoding: RLE v1 for
// DIRECT and DICTIONARY, RLE v2 for DIRECT_V2 and DICTIONARY_V2.
func newIntReader(enc encodingKind, b []byte, signed bool) (intReader, error) {
	switch enc {
	case encodingDirect, encodingDictionary:
		return &rleV1{b: b, signed: signed}, nil
	case encodingDirectV2, encodingDictionaryV2:
		return &rleV2{b: b, signed: signed}, nil
	}
	return nil, fmt.Errorf("%w: column encoding %d", ErrUnsupported, enc)
}

// Spec: Base 128 Varint — little-endian groups of 7 bits, the high bit set
// on every byte but the last; signed values are zigzag encoded first.

// readUvarint decodes an unsigned varint at b[*pos].
func readUvarint(b []byte, pos *int) (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if *pos >= len(b) {
			return 0, errShort("varint")
		}
		c := b[*pos]
		*pos++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: varint longer than 64 bits", ErrInvalidFile)
}

// unzigzag undoes the zigzag mapping (0, -1, 1, -2, ...) -> (0, 1, 2, 3, ...).
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// readVarint decodes a varint, zigzag-decoding it when signed.
func readVarint(b []byte, pos *int, signed bool) (int64, error) {
	u, err := readUvarint(b, pos)
	if signed {
		return unzigzag(u), err
	}
	return int64(u), err
}

// rleV1 decodes Integer Run Length Encoding, version 1.
//
// Spec: a control byte 0x00-0x7f starts a run of control+3 values with a
// fixed delta (a signed byte) from a varint base; 0x80-0xff starts -control
// literal varints.
type rleV1 struct {
	b       []byte
	pos     int
	signed  bool
	left    int // values left in the current group
	literal bool
	value   int64 // next value of a run
	delta   int64
}

func (r *rleV1) next(dst []int64) error {
	for len(dst) > 0 {
		if r.left == 0 {
			if r.pos >= len(r.b) {
				return errShort("integer RLE v1")
			}
			c := int8(r.b[r.pos])
			r.pos++
			if c >= 0 {
				if r.pos >= len(r.b) {
					return errShort("integer RLE v1")
				}
				r.left, r.literal = int(c)+3, false
				r.delta = int64(int8(r.b[r.pos]))
				r.pos++
				v, err := readVarint(r.b, &r.pos, r.signed)
				if err != nil {
					return err
				}
				r.value = v
			} else {
				r.left, r.literal = -int(c), true
			}
		}
		n := min(r.left, len(dst))
		for i := range dst[:n] {
			if r.literal {
				v, err := readVarint(r.b, &r.pos, r.signed)
				if err != nil {
					return err
				}
				dst[i] = v
			} else {
				dst[i] = r.value
				r.value += r.delta
			}
		}
		r.left -= n
		dst = dst[n:]
	}
	return nil
}
