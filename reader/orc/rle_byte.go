package orc

import "fmt"

// errShort reports a stream that ended before the values asked of it.
func errShort(what string) error {
	return fmt.Errorf("%w: %s stream ended early", ErrInvalidFile, what)
}

// byteRLE decodes a byte stream.
//
// Spec: Byte Run Length Encoding — each group starts with a control byte: 0
// to 127 is a run of control+3 copies of the next byte; -128 to -1 is a
// list of -control literal bytes.
type byteRLE struct {
	b       []byte
	pos     int
	left    int  // values left in the current group
	literal bool // the current group is a literal list
	value   byte // the repeated byte of a run
}

func newByteRLE(b []byte) *byteRLE { return &byteRLE{b: b} }

// next fills dst with the following len(dst) bytes.
func (r *byteRLE) next(dst []byte) error {
	for len(dst) > 0 {
		if r.left == 0 {
			if r.pos >= len(r.b) {
				return errShort("byte RLE")
			}
			c := int8(r.b[r.pos])
			r.pos++
			if c >= 0 {
				if r.pos >= len(r.b) {
					return errShort("byte RLE")
				}
				r.left, r.literal, r.value = int(c)+3, false, r.b[r.pos]
				r.pos++
			} else {
				r.left, r.literal = -int(c), true
			}
		}
		n := min(r.left, len(dst))
		if r.literal {
			if r.pos+n > len(r.b) {
				return errShort("byte RLE")
			}
			copy(dst, r.b[r.pos:r.pos+n])
			r.pos += n
		} else {
			for i := range dst[:n] {
				dst[i] = r.value
			}
		}
		r.left -= n
		dst = dst[n:]
	}
	return nil
}

// boolRLE decodes a boolean stream, PRESENT streams included.
//
// Spec: Boolean Run Length Encoding — bits are packed into bytes from the
// most significant bit down, and the bytes are byte-RLE encoded.
type boolRLE struct {
	bytes byteRLE
	cur   byte
	bits  int // bits of cur not yet handed out
	buf   [1]byte
}

func newBoolRLE(b []byte) *boolRLE { return &boolRLE{bytes: byteRLE{b: b}} }

// next fills dst with the following len(dst) booleans.
func (r *boolRLE) next(dst []bool) error {
	for i := range dst {
		if r.bits == 0 {
			if err := r.bytes.next(r.buf[:]); err != nil {
				return err
			}
			r.cur, r.bits = r.buf[0], 8
		}
		r.bits--
		dst[i] = r.cur>>r.bits&1 == 1
	}
	return nil
}
