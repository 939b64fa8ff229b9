package orc

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// column decodes one ORC column of the current stripe straight into the
// Arrow builder it was made with. Columns are built once per RecordReader
// and pointed at each stripe's streams in turn.
type column interface {
	// startStripe points the column, and its children, at a stripe.
	startStripe(s *stripe) error
	// read appends the next n values. parent, when not nil, holds n flags
	// that are false where an enclosing struct is null: the column's
	// streams hold nothing for those rows, and the value is null.
	read(n int, parent []bool) error
}

// streamKey names one stream of a stripe.
type streamKey struct {
	column uint32
	kind   streamKind
}

// stripe is one stripe's decompressed streams for the selected columns.
type stripe struct {
	index     int
	streams   map[streamKey][]byte
	encodings []columnEncoding
	// loc is the writer's time zone from the stripe footer, in which
	// TIMESTAMP columns count their seconds.
	loc *time.Location
	// maxItems bounds the items that the lists and maps of one batch may
	// claim, so that corrupt lengths fail instead of exhausting memory:
	// every item takes some stream bytes, and no encoding packs more than
	// about 520 values (booleans) into a byte.
	maxItems int
}

// stream returns a stream's bytes and whether the stripe has it. Writers
// leave out empty streams, so a missing stream reads as empty.
func (s *stripe) stream(col int, kind streamKind) ([]byte, bool) {
	b, ok := s.streams[streamKey{uint32(col), kind}]
	return b, ok
}

func (s *stripe) encoding(col int) encodingKind { return s.encodings[col].kind }

// presence decodes a column's PRESENT stream, which every column kind has.
type presence struct {
	id      int
	present *boolRLE // nil when the stripe has no PRESENT stream: no nulls
	valid   []bool
}

func (p *presence) startPresence(s *stripe) {
	p.present = nil
	if b, ok := s.stream(p.id, streamPresent); ok {
		p.present = newBoolRLE(b)
	}
}

// load reads the validity of the next n rows. It returns nil when every row
// has a value, else n flags, and the number of values the column's data
// streams hold for these rows.
func (p *presence) load(n int, parent []bool) ([]bool, int, error) {
	if p.present == nil {
		if parent == nil {
			return nil, n, nil
		}
		return parent, countTrue(parent), nil
	}
	valid := resize(&p.valid, n)
	k := n
	if parent != nil {
		k = countTrue(parent)
	}
	if err := p.present.next(valid[:k]); err != nil {
		return nil, 0, fmt.Errorf("column %d PRESENT: %w", p.id, err)
	}
	if parent != nil {
		// Spread the k bits read over the rows whose parent is present;
		// going backwards, no bit is overwritten before it is moved.
		j := k - 1
		for i := n - 1; i >= 0; i-- {
			if parent[i] {
				valid[i] = valid[j]
				j--
			} else {
				valid[i] = false
			}
		}
	}
	count := countTrue(valid)
	if count == n {
		return nil, n, nil
	}
	return valid, count, nil
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// resize returns (*buf)[:n], growing the buffer when it is too small.
func resize[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, max(n, 2*cap(*buf)))
	}
	return (*buf)[:n]
}

// newColumn makes the decoder of type t, writing into b, a builder of the
// Arrow type arrowType gives t.
func newColumn(t *Type, b array.Builder) (column, error) {
	p := presence{id: t.ID}
	bad := func() (column, error) {
		return nil, fmt.Errorf("column %d (%v): builder %T", t.ID, t.Kind, b)
	}
	switch t.Kind {
	case Boolean:
		if bb, ok := b.(*array.BooleanBuilder); ok {
			return &boolColumn{presence: p, b: bb}, nil
		}
	case Byte:
		if bb, ok := b.(*array.Int8Builder); ok {
			return &byteColumn{presence: p, b: bb}, nil
		}
	case Short:
		if bb, ok := b.(*array.Int16Builder); ok {
			return &intColumn[int16]{presence: p, appendValues: bb.AppendValues}, nil
		}
	case Int:
		if bb, ok := b.(*array.Int32Builder); ok {
			return &intColumn[int32]{presence: p, appendValues: bb.AppendValues}, nil
		}
	case Long:
		if bb, ok := b.(*array.Int64Builder); ok {
			return &intColumn[int64]{presence: p, appendValues: bb.AppendValues}, nil
		}
	case Date:
		if bb, ok := b.(*array.Date32Builder); ok {
			return &intColumn[arrow.Date32]{presence: p, appendValues: bb.AppendValues}, nil
		}
	case Float:
		if bb, ok := b.(*array.Float32Builder); ok {
			return &floatColumn{presence: p, b: bb}, nil
		}
	case Double:
		if bb, ok := b.(*array.Float64Builder); ok {
			return &doubleColumn{presence: p, b: bb}, nil
		}
	case String:
		if bb, ok := b.(*array.StringBuilder); ok {
			return &bytesColumn{presence: p, b: bb.BinaryBuilder, text: true}, nil
		}
	case Varchar, Char:
		if bb, ok := b.(*array.StringBuilder); ok {
			return &bytesColumn{presence: p, b: bb.BinaryBuilder, text: true, maxChars: t.MaxLength, trimPad: t.Kind == Char}, nil
		}
	case Binary:
		if bb, ok := b.(*array.BinaryBuilder); ok {
			return &bytesColumn{presence: p, b: bb}, nil
		}
	case Decimal:
		if bb, ok := b.(*array.Decimal128Builder); ok {
			return &decimalColumn{presence: p, b: bb, scale: t.Scale}, nil
		}
	case Timestamp, TimestampInstant:
		if bb, ok := b.(*array.TimestampBuilder); ok {
			unit := bb.Type().(*arrow.TimestampType).Unit
			return &timestampColumn{presence: p, b: bb, unit: unit, instant: t.Kind == TimestampInstant}, nil
		}
	case Struct:
		if bb, ok := b.(*array.StructBuilder); ok {
			return newStructColumn(t, bb)
		}
	case List:
		if bb, ok := b.(*array.ListBuilder); ok {
			return newListColumn(t, bb)
		}
	case Map:
		if bb, ok := b.(*array.MapBuilder); ok {
			return newMapColumn(t, bb)
		}
	default:
		return nil, fmt.Errorf("%w: column %d is a %v", ErrUnsupported, t.ID, t.Kind)
	}
	return bad()
}
