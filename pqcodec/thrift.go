package pqcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Page headers are Thrift structs in the compact protocol (parquet.thrift).
// Only the fields a decoder needs are kept; statistics and everything else
// are skipped, with nesting bounded so that a hostile header cannot recurse
// without end.

// Page types (parquet.thrift, PageType).
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3
)

// Encodings (parquet.thrift, Encoding).
const (
	encPlain           = 0
	encPlainDictionary = 2
	encRLE             = 3
	encBitPacked       = 4
	encDeltaBinary     = 5
	encDeltaLength     = 6
	encDeltaByteArray  = 7
	encRLEDictionary   = 8
	encByteStreamSplit = 9
)

// Compact protocol field types.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

const maxThriftDepth = 16

// errShortHeader means the bytes given end inside the header: the caller
// reads more and tries again.
var errShortHeader = errors.New("page header runs past the bytes read")

// pageHeader is the part of parquet.thrift's PageHeader a decoder uses.
type pageHeader struct {
	typ              int32
	uncompressedSize int32
	compressedSize   int32

	numValues int32 // data and dictionary pages
	encoding  int32
	defEnc    int32 // v1: definition level encoding
	repEnc    int32 // v1: repetition level encoding

	// v2 only.
	numNulls     int32
	numRows      int32
	defLen       int32
	repLen       int32
	isCompressed bool

	hasData, hasDict, hasDataV2 bool
}

// compactReader walks compact-protocol bytes.
type compactReader struct {
	b   []byte
	pos int
}

func (r *compactReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errShortHeader
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *compactReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.pos:])
	switch {
	case n == 0:
		return 0, errShortHeader
	case n < 0:
		return 0, errors.New("varint overflows 64 bits")
	}
	r.pos += n
	return v, nil
}

func (r *compactReader) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (r *compactReader) i32() (int32, error) {
	v, err := r.varint()
	if err == nil && (v < -1<<31 || v > 1<<31-1) {
		return 0, fmt.Errorf("i32 field holds %d", v)
	}
	return int32(v), err
}

// fieldHeader returns the next field's id and type; typ is tStop at the
// struct's end.
func (r *compactReader) fieldHeader(last int16) (id int16, typ byte, err error) {
	c, err := r.byte()
	if err != nil || c == tStop {
		return 0, tStop, err
	}
	typ = c & 0x0f
	if delta := int16(c >> 4); delta != 0 {
		return last + delta, typ, nil
	}
	v, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	if v < -1<<15 || v > 1<<15-1 {
		return 0, 0, fmt.Errorf("field id %d", v)
	}
	return int16(v), typ, nil
}

// skip passes over one value of type typ.
func (r *compactReader) skip(typ byte, depth int) error {
	if depth > maxThriftDepth {
		return errors.New("page header nests too deep")
	}
	switch typ {
	case tTrue, tFalse:
		return nil
	case tByte:
		_, err := r.byte()
		return err
	case tI16, tI32, tI64:
		_, err := r.uvarint()
		return err
	case tDouble:
		return r.advance(8)
	case tBinary:
		n, err := r.uvarint()
		if err != nil {
			return err
		}
		if n > uint64(len(r.b)) {
			return errShortHeader
		}
		return r.advance(int(n))
	case tList, tSet:
		c, err := r.byte()
		if err != nil {
			return err
		}
		n := uint64(c >> 4)
		if n == 15 {
			if n, err = r.uvarint(); err != nil {
				return err
			}
		}
		if n > uint64(len(r.b)) { // every element takes at least a byte, but bools in a list
			return errShortHeader
		}
		for range n {
			if err := r.skipElem(c&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		n, err := r.uvarint()
		if err != nil || n == 0 {
			return err
		}
		if n > uint64(len(r.b)) {
			return errShortHeader
		}
		kv, err := r.byte()
		if err != nil {
			return err
		}
		for range n {
			if err := r.skipElem(kv>>4, depth+1); err != nil {
				return err
			}
			if err := r.skipElem(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		var last int16
		for {
			id, t, err := r.fieldHeader(last)
			if err != nil {
				return err
			}
			if t == tStop {
				return nil
			}
			if err := r.skip(t, depth+1); err != nil {
				return err
			}
			last = id
		}
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}

// skipElem skips a list, set or map element: booleans there take a byte.
func (r *compactReader) skipElem(typ byte, depth int) error {
	if typ == tTrue || typ == tFalse {
		_, err := r.byte()
		return err
	}
	return r.skip(typ, depth)
}

func (r *compactReader) advance(n int) error {
	if n > len(r.b)-r.pos {
		return errShortHeader
	}
	r.pos += n
	return nil
}

// readStruct calls field for every field of a struct, which reads or
// skips the value.
func (r *compactReader) readStruct(depth int, field func(id int16, typ byte) error) error {
	if depth > maxThriftDepth {
		return errors.New("page header nests too deep")
	}
	var last int16
	for {
		id, typ, err := r.fieldHeader(last)
		if err != nil {
			return err
		}
		if typ == tStop {
			return nil
		}
		if err := field(id, typ); err != nil {
			return err
		}
		last = id
	}
}

// i32Field reads an i32 field, or fails if the type is not i32.
func (r *compactReader) i32Field(typ byte, dst *int32) error {
	if typ != tI32 {
		return fmt.Errorf("thrift type %d where an i32 belongs", typ)
	}
	v, err := r.i32()
	*dst = v
	return err
}

// parsePageHeader decodes a page header from the start of b and returns it
// with the number of bytes it took.
func parsePageHeader(b []byte) (pageHeader, int, error) {
	r := &compactReader{b: b}
	h := pageHeader{isCompressed: true}
	err := r.readStruct(0, func(id int16, typ byte) error {
		switch id {
		case 1:
			return r.i32Field(typ, &h.typ)
		case 2:
			return r.i32Field(typ, &h.uncompressedSize)
		case 3:
			return r.i32Field(typ, &h.compressedSize)
		case 5:
			if typ != tStruct {
				break
			}
			h.hasData = true
			return r.readStruct(1, func(id int16, typ byte) error {
				switch id {
				case 1:
					return r.i32Field(typ, &h.numValues)
				case 2:
					return r.i32Field(typ, &h.encoding)
				case 3:
					return r.i32Field(typ, &h.defEnc)
				case 4:
					return r.i32Field(typ, &h.repEnc)
				}
				return r.skip(typ, 2)
			})
		case 7:
			if typ != tStruct {
				break
			}
			h.hasDict = true
			return r.readStruct(1, func(id int16, typ byte) error {
				switch id {
				case 1:
					return r.i32Field(typ, &h.numValues)
				case 2:
					return r.i32Field(typ, &h.encoding)
				}
				return r.skip(typ, 2)
			})
		case 8:
			if typ != tStruct {
				break
			}
			h.hasDataV2 = true
			return r.readStruct(1, func(id int16, typ byte) error {
				switch id {
				case 1:
					return r.i32Field(typ, &h.numValues)
				case 2:
					return r.i32Field(typ, &h.numNulls)
				case 3:
					return r.i32Field(typ, &h.numRows)
				case 4:
					return r.i32Field(typ, &h.encoding)
				case 5:
					return r.i32Field(typ, &h.defLen)
				case 6:
					return r.i32Field(typ, &h.repLen)
				case 7:
					if typ != tTrue && typ != tFalse {
						return fmt.Errorf("thrift type %d where a bool belongs", typ)
					}
					h.isCompressed = typ == tTrue
					return nil
				}
				return r.skip(typ, 2)
			})
		}
		return r.skip(typ, 1)
	})
	if err != nil {
		return h, 0, err
	}
	if h.compressedSize < 0 || h.uncompressedSize < 0 {
		return h, 0, fmt.Errorf("page sizes %d/%d", h.compressedSize, h.uncompressedSize)
	}
	return h, r.pos, nil
}
