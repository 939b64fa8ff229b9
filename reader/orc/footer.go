package orc

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The file tail and stripe footers are protobuf messages (Spec: File Tail,
// and orc_proto.proto in apache/orc-format). Only the few messages and
// fields a reader needs are decoded here, by hand with protowire; unknown
// fields are skipped, as protobuf requires.

// compressionKind is PostScript.compression.
type compressionKind uint64

const (
	compressionNone compressionKind = iota
	compressionZlib
	compressionSnappy
	compressionLzo
	compressionLz4
	compressionZstd
	compressionBrotli
)

var compressionNames = [...]string{"NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD", "BROTLI"}

func (c compressionKind) String() string {
	if int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return fmt.Sprintf("compression(%d)", uint64(c))
}

// postScript is the uncompressed message just before the file's last byte.
type postScript struct {
	footerLength         uint64
	compression          compressionKind
	compressionBlockSize uint64
	version              []uint32
	metadataLength       uint64
	magic                string
}

// fileFooter is the Footer message.
type fileFooter struct {
	headerLength    uint64
	contentLength   uint64
	stripes         []stripeInformation
	types           []protoType
	metadata        map[string][]byte
	numberOfRows    uint64
	rowIndexStride  uint32
	writer          uint32
	encrypted       bool
	softwareVersion string
}

// stripeInformation is Footer.stripes[i].
type stripeInformation struct {
	offset, indexLength, dataLength, footerLength, numberOfRows uint64
}

// protoType is Footer.types[i], one node of the flattened type tree.
type protoType struct {
	kind          uint64
	subtypes      []uint32
	fieldNames    []string
	maximumLength uint32
	precision     uint32
	scale         uint32
	// has records which of maximumLength, precision and scale were
	// written, since readers default the missing ones.
	hasMaximumLength, hasPrecision, hasScale bool
	attributes                               map[string]string
}

// streamKind is Stream.kind.
type streamKind uint64

const (
	streamPresent        streamKind = 0
	streamData           streamKind = 1
	streamLength         streamKind = 2
	streamDictionaryData streamKind = 3
	streamSecondary      streamKind = 5
)

// streamInfo is one entry of StripeFooter.streams.
type streamInfo struct {
	kind   streamKind
	column uint32
	length uint64
}

// encodingKind is ColumnEncoding.kind.
type encodingKind uint64

const (
	encodingDirect       encodingKind = 0
	encodingDictionary   encodingKind = 1
	encodingDirectV2     encodingKind = 2
	encodingDictionaryV2 encodingKind = 3
	encodingDecimal64    encodingKind = 4
)

// columnEncoding is one entry of StripeFooter.columns.
type columnEncoding struct {
	kind           encodingKind
	dictionarySize uint32
}

// stripeFooter is the message at the end of every stripe.
type stripeFooter struct {
	streams        []streamInfo
	columns        []columnEncoding
	writerTimezone string
	encrypted      bool
}

// field is one decoded protobuf field: u holds varint and fixed values, b
// the payload of length-delimited ones.
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

// walk calls fn for every field of the message b.
func walk(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.u = uint64(v)
		case protowire.Fixed64Type:
			f.u, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// appendUint32s decodes a repeated uint32 field, packed or not.
func appendUint32s(dst []uint32, f field) ([]uint32, error) {
	if f.typ == protowire.VarintType {
		return append(dst, uint32(f.u)), nil
	}
	if f.typ != protowire.BytesType {
		return dst, fmt.Errorf("field %d: wire type %d for a repeated uint32", f.num, f.typ)
	}
	b := f.b
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return dst, protowire.ParseError(n)
		}
		dst = append(dst, uint32(v))
		b = b[n:]
	}
	return dst, nil
}

func parsePostScript(b []byte) (*postScript, error) {
	ps := &postScript{}
	err := walk(b, func(f field) error {
		var err error
		switch f.num {
		case 1:
			ps.footerLength = f.u
		case 2:
			ps.compression = compressionKind(f.u)
		case 3:
			ps.compressionBlockSize = f.u
		case 4:
			ps.version, err = appendUint32s(ps.version, f)
		case 5:
			ps.metadataLength = f.u
		case 8000:
			ps.magic = string(f.b)
		}
		return err
	})
	return ps, err
}

func parseFooter(b []byte) (*fileFooter, error) {
	ft := &fileFooter{}
	err := walk(b, func(f field) error {
		switch f.num {
		case 1:
			ft.headerLength = f.u
		case 2:
			ft.contentLength = f.u
		case 3:
			si, err := parseStripeInformation(f.b)
			if err != nil {
				return fmt.Errorf("stripe %d: %w", len(ft.stripes), err)
			}
			ft.stripes = append(ft.stripes, si)
		case 4:
			t, err := parseType(f.b)
			if err != nil {
				return fmt.Errorf("type %d: %w", len(ft.types), err)
			}
			ft.types = append(ft.types, t)
		case 5:
			var name string
			var value []byte
			if err := walk(f.b, func(g field) error {
				switch g.num {
				case 1:
					name = string(g.b)
				case 2:
					value = g.b
				}
				return nil
			}); err != nil {
				return fmt.Errorf("user metadata: %w", err)
			}
			if ft.metadata == nil {
				ft.metadata = map[string][]byte{}
			}
			ft.metadata[name] = value
		case 6:
			ft.numberOfRows = f.u
		case 8:
			ft.rowIndexStride = uint32(f.u)
		case 9:
			ft.writer = uint32(f.u)
		case 10:
			ft.encrypted = true
		case 12:
			ft.softwareVersion = string(f.b)
		}
		return nil
	})
	return ft, err
}

func parseStripeInformation(b []byte) (stripeInformation, error) {
	var si stripeInformation
	err := walk(b, func(f field) error {
		switch f.num {
		case 1:
			si.offset = f.u
		case 2:
			si.indexLength = f.u
		case 3:
			si.dataLength = f.u
		case 4:
			si.footerLength = f.u
		case 5:
			si.numberOfRows = f.u
		}
		return nil
	})
	return si, err
}

func parseType(b []byte) (protoType, error) {
	var t protoType
	err := walk(b, func(f field) error {
		var err error
		switch f.num {
		case 1:
			t.kind = f.u
		case 2:
			t.subtypes, err = appendUint32s(t.subtypes, f)
		case 3:
			t.fieldNames = append(t.fieldNames, string(f.b))
		case 4:
			t.maximumLength, t.hasMaximumLength = uint32(f.u), true
		case 5:
			t.precision, t.hasPrecision = uint32(f.u), true
		case 6:
			t.scale, t.hasScale = uint32(f.u), true
		case 7:
			// StringPair{key = 1, value = 2}: writer-defined type attributes
			// such as Iceberg's "iceberg.id".
			var k, v string
			err = walk(f.b, func(g field) error {
				switch g.num {
				case 1:
					k = string(g.b)
				case 2:
					v = string(g.b)
				}
				return nil
			})
			if t.attributes == nil {
				t.attributes = map[string]string{}
			}
			t.attributes[k] = v
		}
		return err
	})
	return t, err
}

func parseStripeFooter(b []byte) (*stripeFooter, error) {
	sf := &stripeFooter{}
	err := walk(b, func(f field) error {
		switch f.num {
		case 1:
			var s streamInfo
			if err := walk(f.b, func(g field) error {
				switch g.num {
				case 1:
					s.kind = streamKind(g.u)
				case 2:
					s.column = uint32(g.u)
				case 3:
					s.length = g.u
				}
				return nil
			}); err != nil {
				return fmt.Errorf("stream %d: %w", len(sf.streams), err)
			}
			sf.streams = append(sf.streams, s)
		case 2:
			var e columnEncoding
			if err := walk(f.b, func(g field) error {
				switch g.num {
				case 1:
					e.kind = encodingKind(g.u)
				case 2:
					e.dictionarySize = uint32(g.u)
				}
				return nil
			}); err != nil {
				return fmt.Errorf("column encoding %d: %w", len(sf.columns), err)
			}
			sf.columns = append(sf.columns, e)
		case 3:
			sf.writerTimezone = string(f.b)
		case 4:
			sf.encrypted = true
		}
		return nil
	})
	return sf, err
}
