// Package orc decodes Apache ORC files (ORC specification v1) into Arrow
// record batches, as far as Apache Iceberg tables need it: every primitive
// type, struct, list and map columns; the NONE, ZLIB, SNAPPY, LZ4 and ZSTD
// codecs; integer RLE v1 and v2 with direct and dictionary encodings.
// Union columns, LZO and Brotli compression and column encryption are
// refused with ErrUnsupported.
//
// A File is opened from an io.ReaderAt; a RecordReader streams the rows of
// chosen stripes and top-level columns, one stripe's streams in memory at a
// time.
package orc

import (
	"bytes"
	"fmt"
	"io"
)

// magic starts every ORC file and ends its postscript.
const magic = "ORC"

// tailRead is how much of the file's end Open reads first, in the hope that
// it holds the postscript and footer (Spec: Postscript — readers read the
// last 16k bytes).
const tailRead = 16 * 1024

// File is an open ORC file: its postscript and footer, decoded. It is safe
// for concurrent use; each RecordReader keeps its own state.
type File struct {
	r           io.ReaderAt
	size        int64
	compression compressionKind
	blockSize   uint64
	footer      *fileFooter
	schema      *Type
	types       []*Type // by column id
	stripes     []StripeInfo
	maxRead     int64 // see WithMaxRead; 0 means no bound
}

// OpenOption configures a File made by Open.
type OpenOption func(*File)

// WithMaxRead bounds the footer and each stream a File reads into memory,
// compressed or decompressed: a larger one is an error wrapping
// ErrTooLarge. 0 or less sets no bound.
func WithMaxRead(n int64) OpenOption { return func(f *File) { f.maxRead = max(n, 0) } }

// tooLarge returns an error wrapping ErrTooLarge when n bytes of what
// exceed the file's bound.
func (f *File) tooLarge(what string, n int64) error {
	if f.maxRead > 0 && n > f.maxRead {
		return fmt.Errorf("%w: %s of %d bytes, more than %d", ErrTooLarge, what, n, f.maxRead)
	}
	return nil
}

// StripeInfo locates one stripe of a file.
type StripeInfo struct {
	// Offset is the stripe's first byte in the file.
	Offset int64
	// IndexLength, DataLength and FooterLength are the byte lengths of its
	// index streams, data streams and stripe footer, in that order.
	IndexLength, DataLength, FooterLength int64
	// NumRows is the number of rows the stripe holds.
	NumRows int64
	// FirstRow is the position in the file of the stripe's first row.
	FirstRow int64
}

// Open reads the file tail of the size-byte ORC file r: the postscript, the
// footer and the type tree. Errors wrap ErrInvalidFile, or ErrUnsupported
// for a codec or feature this package does not decode.
func Open(r io.ReaderAt, size int64, opts ...OpenOption) (*File, error) {
	f := &File{r: r, size: size}
	for _, o := range opts {
		o(f)
	}
	if size < int64(len(magic))+1 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrInvalidFile, size)
	}
	tailLen := min(size, tailRead)
	tail := make([]byte, tailLen)
	if err := readAt(r, tail, size-tailLen); err != nil {
		return nil, fmt.Errorf("read ORC file tail: %w", err)
	}
	// Spec: the final byte holds the postscript's length; the postscript
	// is never compressed.
	psLen := int64(tail[tailLen-1])
	if psLen+1 > tailLen {
		return nil, fmt.Errorf("%w: postscript of %d bytes in a %d-byte file", ErrInvalidFile, psLen, size)
	}
	ps, err := parsePostScript(tail[tailLen-1-psLen : tailLen-1])
	if err != nil {
		return nil, fmt.Errorf("%w: postscript: %v", ErrInvalidFile, err)
	}
	if ps.magic != magic {
		// Files from before the postscript carried the magic still start with it.
		head := make([]byte, len(magic))
		if err := readAt(r, head, 0); err != nil || !bytes.Equal(head, []byte(magic)) {
			return nil, fmt.Errorf("%w: no ORC magic", ErrInvalidFile)
		}
	}
	// Spec: the postscript's version is [0, 11] or [0, 12] for the
	// formats this package reads; [1, 9999] marks the unstable pre-release
	// of ORC v2, whose column encodings differ.
	if len(ps.version) > 0 && ps.version[0] != 0 {
		return nil, fmt.Errorf("%w: file format version %v", ErrUnsupported, ps.version)
	}
	footerLen := int64(ps.footerLength)
	footerEnd := size - 1 - psLen
	if footerLen > footerEnd-int64(len(magic)) {
		return nil, fmt.Errorf("%w: footer of %d bytes in a %d-byte file", ErrInvalidFile, footerLen, size)
	}
	if err := f.tooLarge("footer", footerLen); err != nil {
		return nil, err
	}
	var raw []byte
	if start := tailLen - 1 - psLen - footerLen; start >= 0 {
		raw = tail[start : tailLen-1-psLen]
	} else {
		raw = make([]byte, footerLen)
		if err := readAt(r, raw, footerEnd-footerLen); err != nil {
			return nil, fmt.Errorf("read ORC footer: %w", err)
		}
	}
	dec, err := newDecompressor(ps.compression, ps.compressionBlockSize)
	if err != nil {
		return nil, err
	}
	dec.max = f.maxRead
	raw, err = dec.decode(nil, raw)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	ft, err := parseFooter(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: footer: %v", ErrInvalidFile, err)
	}
	if ft.encrypted {
		return nil, fmt.Errorf("%w: column encryption", ErrUnsupported)
	}
	root, types, err := buildSchema(ft.types)
	if err != nil {
		return nil, err
	}
	f.compression, f.blockSize = ps.compression, ps.compressionBlockSize
	f.footer, f.schema, f.types = ft, root, types
	var row int64
	contentEnd := footerEnd - footerLen - int64(ps.metadataLength)
	for i, s := range ft.stripes {
		si := StripeInfo{
			Offset: int64(s.offset), IndexLength: int64(s.indexLength), DataLength: int64(s.dataLength),
			FooterLength: int64(s.footerLength), NumRows: int64(s.numberOfRows), FirstRow: row,
		}
		end := si.Offset + si.IndexLength + si.DataLength + si.FooterLength
		if si.Offset < 0 || si.IndexLength < 0 || si.DataLength < 0 || si.FooterLength < 0 ||
			si.NumRows < 0 || end < si.Offset || end > contentEnd {
			return nil, fmt.Errorf("%w: stripe %d at %d..%d outside the file's %d content bytes",
				ErrInvalidFile, i, si.Offset, end, contentEnd)
		}
		f.stripes = append(f.stripes, si)
		row += si.NumRows
	}
	return f, nil
}

// NumRows returns the number of rows in the file.
func (f *File) NumRows() int64 { return int64(f.footer.numberOfRows) }

// Schema returns the file's type tree; the root is a struct whose fields
// are the file's top-level columns.
func (f *File) Schema() *Type { return f.schema }

// Stripes returns where the file's stripes are, in file order.
func (f *File) Stripes() []StripeInfo { return f.stripes }

// Metadata returns the user metadata stored in the footer, by name.
func (f *File) Metadata() map[string][]byte { return f.footer.metadata }

// Compression returns the name of the file's codec: NONE, ZLIB, SNAPPY,
// LZO, LZ4, ZSTD or BROTLI.
func (f *File) Compression() string { return f.compression.String() }
