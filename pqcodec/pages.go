package pqcodec

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// MaxPageBytes bounds a page's stated sizes, compressed or not: a header
// that claims more is refused before anything is allocated for it. Writers
// aim pages at about 1 MiB (parquet-mr, Arrow C++ and arrow-go alike).
const MaxPageBytes = 256 << 20

// maxHeaderBytes bounds a page header, statistics included.
const maxHeaderBytes = 16 << 20

// windowBytes is how much of a chunk one read fetches when the chunk is not
// in memory: a page or so, so that most pages cost one read.
const windowBytes = 1 << 20

// oldWriterPadding is what parquet-mr before PARQUET-816 may leave out of a
// column chunk's total_compressed_size; arrow-go reads that much further.
const oldWriterPadding = 100

// ChunkRange returns where the pages of column chunk cc lie in a file of
// md, as arrow-go's row group reader computes it: from the dictionary page
// when it comes first, and a little past the stated size for files of
// writers that understated it.
func ChunkRange(md *metadata.FileMetaData, cc *metadata.ColumnChunkMetaData) (offset, length int64) {
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
		start = cc.DictionaryPageOffset()
	}
	n := cc.TotalCompressedSize()
	if md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		n += max(min(oldWriterPadding, md.GetSourceFileSize()-(start+n)), 0)
	}
	return start, n
}

// pageSource hands out the pages of one column chunk in order.
type pageSource struct {
	r        io.ReaderAt
	inMemory bool   // win holds the whole chunk
	win      []byte // bytes from winOff
	winOff   int64
	buf      []byte // win's storage when read from r
	off, end int64  // next unread byte and end of the chunk
}

func newPageSource(r io.ReaderAt, chunk []byte, offset, length int64) *pageSource {
	if chunk != nil {
		return &pageSource{win: chunk, inMemory: true, winOff: offset, off: offset, end: offset + int64(len(chunk))}
	}
	return &pageSource{r: r, off: offset, end: offset + length}
}

// readError is a failure of the file's storage, not of the chunk's bytes:
// it keeps its cause (fileio.ErrUnavailable, a cancelled call) for the
// caller to act on, and is not marked ErrCorrupt.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// bytesAt returns at least n bytes from the next unread one, or fewer when
// the chunk ends first, reading more of the file when the window does not
// hold them. The window's unread bytes are kept and the read goes on from
// the first byte not yet read, so every byte of the chunk is read from the
// file once and in order: a prefetching file (fileio.Prefetch, one GET per
// announced range on object storage) serves each byte once.
func (p *pageSource) bytesAt(n int) ([]byte, error) {
	start := int(p.off - p.winOff)
	if start >= 0 && start+n <= len(p.win) || p.inMemory {
		if start > len(p.win) {
			start = len(p.win)
		}
		return p.win[start:], nil
	}
	var keep []byte
	if start >= 0 && start < len(p.win) {
		keep = p.win[start:]
	}
	want := int64(max(n, windowBytes))
	if left := p.end - p.off; want > left {
		want = left
	}
	if want < int64(len(keep)) {
		want = int64(len(keep))
	}
	if cap(p.buf) < int(want) {
		grown := make([]byte, want)
		copy(grown, keep)
		p.buf = grown
	} else {
		copy(p.buf, keep)
	}
	win := p.buf[:want]
	from := p.off + int64(len(keep))
	got, err := p.r.ReadAt(win[len(keep):], from)
	if got < len(win)-len(keep) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, readError{fmt.Errorf("read column chunk at offset %d: %w", from, err)}
	}
	p.win, p.winOff = win, p.off
	return p.win, nil
}

// next returns the next page's header and its body as stored. The body is
// valid until the following call.
func (p *pageSource) next() (pageHeader, []byte, error) {
	if p.off >= p.end {
		return pageHeader{}, nil, io.EOF
	}
	var (
		h    pageHeader
		size int
		err  error
	)
	for n := 256; ; n *= 4 {
		b, rerr := p.bytesAt(n)
		if rerr != nil {
			return h, nil, rerr
		}
		h, size, err = parsePageHeader(b)
		if !errors.Is(err, errShortHeader) {
			break
		}
		if len(b) < n || n >= maxHeaderBytes || int64(len(b)) >= p.end-p.off {
			return h, nil, fmt.Errorf("page header at offset %d: %w", p.off, err)
		}
	}
	if err != nil {
		return h, nil, fmt.Errorf("page header at offset %d: %w", p.off, err)
	}
	if h.compressedSize > MaxPageBytes || h.uncompressedSize > MaxPageBytes {
		return h, nil, fmt.Errorf("page at offset %d states %d/%d bytes, more than %d", p.off, h.compressedSize, h.uncompressedSize, MaxPageBytes)
	}
	bodyAt := p.off + int64(size)
	if bodyAt+int64(h.compressedSize) > p.end {
		return h, nil, fmt.Errorf("page at offset %d of %d bytes runs past its column chunk's end at %d", p.off, h.compressedSize, p.end)
	}
	p.off = bodyAt
	b, err := p.bytesAt(int(h.compressedSize))
	if err != nil {
		return h, nil, err
	}
	if len(b) < int(h.compressedSize) {
		return h, nil, fmt.Errorf("page at offset %d of %d bytes runs past its column chunk's end", p.off, h.compressedSize)
	}
	p.off += int64(h.compressedSize)
	return h, b[:h.compressedSize], nil
}
