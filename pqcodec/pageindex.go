package pqcodec

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// The page index (parquet-format PageIndex.md) gives, per data page of a
// column chunk, its first row (OffsetIndex) and its min, max and nulls
// (ColumnIndex), written after the row groups. A reader with a filter
// uses it to pass over whole pages; here it is parsed with the same
// bounded compact-protocol reader as page headers, since a hostile index
// must be an error, not a panic.

// MaxPageIndexBytes bounds one column chunk's ColumnIndex or OffsetIndex:
// a location that states more is refused before anything is read.
const MaxPageIndexBytes = 16 << 20

// PageIndex is what a column chunk's page index says of its data pages.
type PageIndex struct {
	// FirstRows holds each page's first row within the row group,
	// ascending from 0.
	FirstRows []int64
	// Min and Max hold each page's bounds, PLAIN-encoded (byte arrays
	// without their length prefix); a page of NullPages has none.
	Min, Max  [][]byte
	NullPages []bool
	// NullCounts holds each page's nulls, nil when the writer left them out.
	NullCounts []int64
}

// ReadPageIndex reads the OffsetIndex and ColumnIndex of column chunk cc
// from r. It returns nil, with no error, when the chunk has no complete
// page index.
func ReadPageIndex(r io.ReaderAt, cc *metadata.ColumnChunkMetaData) (*PageIndex, error) {
	ci, oi := cc.GetColumnIndexLocation(), cc.GetOffsetIndexLocation()
	if ci == nil || oi == nil {
		return nil, nil
	}
	raw, err := readIndex(r, oi.Offset, int64(oi.Length))
	if err != nil {
		return nil, fmt.Errorf("offset index: %w", err)
	}
	var pi PageIndex
	if pi.FirstRows, err = parseOffsetIndex(raw); err != nil {
		return nil, fmt.Errorf("%w: offset index: %v", ErrCorrupt, err)
	}
	if raw, err = readIndex(r, ci.Offset, int64(ci.Length)); err != nil {
		return nil, fmt.Errorf("column index: %w", err)
	}
	if err := parseColumnIndex(raw, &pi); err != nil {
		return nil, fmt.Errorf("%w: column index: %v", ErrCorrupt, err)
	}
	n := len(pi.FirstRows)
	if len(pi.Min) != n || len(pi.Max) != n || len(pi.NullPages) != n || (pi.NullCounts != nil && len(pi.NullCounts) != n) {
		return nil, fmt.Errorf("%w: page index of %d pages has %d/%d bounds, %d null flags, %d null counts",
			ErrCorrupt, n, len(pi.Min), len(pi.Max), len(pi.NullPages), len(pi.NullCounts))
	}
	if n == 0 || pi.FirstRows[0] != 0 {
		return nil, fmt.Errorf("%w: page index's first page starts at row %v", ErrCorrupt, pi.FirstRows)
	}
	for i := 1; i < n; i++ {
		if pi.FirstRows[i] <= pi.FirstRows[i-1] {
			return nil, fmt.Errorf("%w: page index's pages start at rows %d then %d", ErrCorrupt, pi.FirstRows[i-1], pi.FirstRows[i])
		}
	}
	return &pi, nil
}

// PageIndexReader returns a ReaderAt for ReadPageIndex on the chunks ccs:
// the span that holds all their page index structures, read from r in one
// piece (writers put a row group's indexes side by side, after the row
// groups), when it is at most 2×MaxPageIndexBytes; r itself otherwise. On
// object storage that is one request for the lot, not two per chunk.
func PageIndexReader(r io.ReaderAt, ccs []*metadata.ColumnChunkMetaData) (io.ReaderAt, error) {
	lo, hi := int64(-1), int64(-1)
	for _, cc := range ccs {
		for _, l := range []*metadata.IndexLocation{cc.GetColumnIndexLocation(), cc.GetOffsetIndexLocation()} {
			if l == nil || l.Offset < 0 || l.Length <= 0 {
				continue
			}
			if lo < 0 || l.Offset < lo {
				lo = l.Offset
			}
			hi = max(hi, l.Offset+int64(l.Length))
		}
	}
	if lo < 0 || hi-lo > 2*MaxPageIndexBytes {
		return r, nil
	}
	b, err := readSpan(r, lo, hi-lo, 2*MaxPageIndexBytes)
	if err != nil {
		return nil, fmt.Errorf("page index: %w", err)
	}
	return &heldSpan{b: b, off: lo, r: r}, nil
}

// heldSpan serves reads within the bytes it holds from memory and the
// others from r.
type heldSpan struct {
	b   []byte
	off int64
	r   io.ReaderAt
}

func (h *heldSpan) ReadAt(p []byte, off int64) (int, error) {
	if off >= h.off && off+int64(len(p)) <= h.off+int64(len(h.b)) {
		return copy(p, h.b[off-h.off:]), nil
	}
	return h.r.ReadAt(p, off)
}

func readIndex(r io.ReaderAt, off, n int64) ([]byte, error) {
	return readSpan(r, off, n, MaxPageIndexBytes)
}

// readSpan reads n bytes at off, n at most limit.
func readSpan(r io.ReaderAt, off, n, limit int64) ([]byte, error) {
	if off < 0 || n <= 0 || n > limit {
		return nil, fmt.Errorf("%w: %d bytes at offset %d", ErrCorrupt, n, off)
	}
	b := make([]byte, n)
	if got, err := r.ReadAt(b, off); got < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read %d bytes at offset %d: %w", n, off, err)
	}
	return b, nil
}

// list reads a list header, bounding its length by the bytes left: every
// element takes at least one.
func (r *compactReader) list() (elem byte, n int, err error) {
	c, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	size := uint64(c >> 4)
	if size == 15 {
		if size, err = r.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	if size > uint64(len(r.b)-r.pos) {
		return 0, 0, fmt.Errorf("list of %d elements in %d bytes", size, len(r.b)-r.pos)
	}
	return c & 0x0f, int(size), nil
}

func (r *compactReader) binary() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.pos) {
		return nil, errShortHeader
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// parseOffsetIndex returns the first row of each page location
// (OffsetIndex.page_locations[].first_row_index).
func parseOffsetIndex(b []byte) ([]int64, error) {
	r := &compactReader{b: b}
	var rows []int64
	err := r.readStruct(0, func(id int16, typ byte) error {
		if id != 1 || typ != tList {
			return r.skip(typ, 1)
		}
		elem, n, err := r.list()
		if err != nil {
			return err
		}
		if elem != tStruct {
			return fmt.Errorf("page locations of thrift type %d", elem)
		}
		rows = make([]int64, 0, n)
		for range n {
			first := int64(-1)
			err := r.readStruct(2, func(id int16, typ byte) error {
				if id == 3 && typ == tI64 {
					v, err := r.varint()
					first = v
					return err
				}
				return r.skip(typ, 3)
			})
			if err != nil {
				return err
			}
			if first < 0 {
				return errors.New("page location without a first row")
			}
			rows = append(rows, first)
		}
		return nil
	})
	return rows, err
}

// parseColumnIndex fills pi's bounds and nulls from a ColumnIndex.
func parseColumnIndex(b []byte, pi *PageIndex) error {
	r := &compactReader{b: b}
	binaries := func(typ byte) ([][]byte, error) {
		if typ != tList {
			return nil, fmt.Errorf("thrift type %d where a list belongs", typ)
		}
		elem, n, err := r.list()
		if err != nil {
			return nil, err
		}
		if elem != tBinary {
			return nil, fmt.Errorf("bounds of thrift type %d", elem)
		}
		out := make([][]byte, n)
		for i := range out {
			if out[i], err = r.binary(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return r.readStruct(0, func(id int16, typ byte) error {
		var err error
		switch {
		case id == 1 && typ == tList:
			var n int
			if _, n, err = r.list(); err != nil {
				return err
			}
			pi.NullPages = make([]bool, n)
			for i := range pi.NullPages {
				c, err := r.byte()
				if err != nil {
					return err
				}
				pi.NullPages[i] = c == tTrue
			}
		case id == 2:
			pi.Min, err = binaries(typ)
		case id == 3:
			pi.Max, err = binaries(typ)
		case id == 5 && typ == tList:
			var elem byte
			var n int
			if elem, n, err = r.list(); err != nil {
				return err
			}
			if elem != tI64 {
				return fmt.Errorf("null counts of thrift type %d", elem)
			}
			pi.NullCounts = make([]int64, n)
			for i := range pi.NullCounts {
				if pi.NullCounts[i], err = r.varint(); err != nil {
					return err
				}
			}
		default:
			err = r.skip(typ, 1)
		}
		return err
	})
}
