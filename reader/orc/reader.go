package orc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchSize is the number of rows per batch when ReadOptions does
// not set one.
const DefaultBatchSize = 64 * 1024

// ReadOptions chooses what a RecordReader reads.
type ReadOptions struct {
	// Columns are the ORC column ids (Type.ID) of the top-level fields to
	// read, in the order the batches should have them; each brings its
	// whole subtree. Nil reads every column.
	Columns []int
	// Stripes are the indexes of the stripes to read, in the order given.
	// Nil reads every stripe.
	Stripes []int
	// BatchSize caps the rows of a batch; 0 means DefaultBatchSize.
	BatchSize int
	// TimestampUnit picks the unit each timestamp column (by ORC column
	// id, at any depth) is decoded into; nil decodes every one into
	// nanoseconds. Nanoseconds end in 2262; microseconds, Iceberg's unit
	// for timestamp and timestamptz, reach the year 294247 and so hold
	// every time Iceberg can.
	TimestampUnit func(id int) arrow.TimeUnit
}

// RecordReader streams a file's rows as Arrow record batches. A batch never
// spans two stripes. It is not safe for concurrent use.
type RecordReader struct {
	ctx       context.Context
	f         *File
	schema    *arrow.Schema
	rb        *array.RecordBuilder
	cols      []column
	include   []bool // column ids whose streams are read
	stripes   []int
	batchSize int
	dec       *decompressor

	err      error // sticky: a failed batch leaves the builders unusable
	next     int   // index into stripes of the next stripe to load
	left     int64 // rows of the current stripe not yet returned
	row      int64 // file position of the next row
	position int64 // file position of the first row of the last batch
}

// NewRecordReader prepares to read the chosen columns and stripes of f,
// allocating batches from mem. ctx is checked before every batch.
func (f *File) NewRecordReader(ctx context.Context, mem memory.Allocator, opts ReadOptions) (*RecordReader, error) {
	cols := f.schema.Children
	if opts.Columns != nil {
		byID := map[int]*Type{}
		for _, c := range f.schema.Children {
			byID[c.ID] = c
		}
		seen := map[int]bool{}
		cols = make([]*Type, len(opts.Columns))
		for i, id := range opts.Columns {
			c, ok := byID[id]
			if !ok || seen[id] {
				return nil, fmt.Errorf("orc: column %d is not a top-level column, or is chosen twice", id)
			}
			seen[id] = true
			cols[i] = c
		}
	}
	stripes := opts.Stripes
	if stripes == nil {
		stripes = make([]int, len(f.stripes))
		for i := range stripes {
			stripes[i] = i
		}
	}
	for _, s := range stripes {
		if s < 0 || s >= len(f.stripes) {
			return nil, fmt.Errorf("orc: stripe %d of %d", s, len(f.stripes))
		}
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	schema, err := arrowSchema(cols, opts.TimestampUnit)
	if err != nil {
		return nil, err
	}
	dec, err := newDecompressor(f.compression, f.blockSize)
	if err != nil {
		return nil, err
	}
	dec.max = f.maxRead
	rr := &RecordReader{
		ctx: ctx, f: f, schema: schema, include: make([]bool, len(f.types)),
		stripes: stripes, batchSize: batch, dec: dec,
	}
	rr.rb = array.NewRecordBuilder(mem, schema)
	for i, t := range cols {
		c, err := newColumn(t, rr.rb.Field(i))
		if err != nil {
			rr.rb.Release()
			return nil, err
		}
		rr.cols = append(rr.cols, c)
		markSubtree(t, rr.include)
	}
	if len(stripes) > 0 {
		rr.row = f.stripes[stripes[0]].FirstRow
	}
	return rr, nil
}

func markSubtree(t *Type, include []bool) {
	include[t.ID] = true
	for _, c := range t.Children {
		markSubtree(c, include)
	}
}

// Schema returns the Arrow schema of the batches.
func (rr *RecordReader) Schema() *arrow.Schema { return rr.schema }

// Next returns the next batch, which the caller must release, or io.EOF
// after the last one.
func (rr *RecordReader) Next() (arrow.RecordBatch, error) {
	if rr.err != nil {
		return nil, rr.err
	}
	if err := rr.ctx.Err(); err != nil {
		return nil, err
	}
	for rr.left == 0 {
		if rr.next >= len(rr.stripes) {
			return nil, io.EOF
		}
		idx := rr.stripes[rr.next]
		rr.next++
		info := rr.f.stripes[idx]
		rr.row, rr.left = info.FirstRow, info.NumRows
		if rr.left == 0 {
			continue
		}
		if err := rr.loadStripe(idx); err != nil {
			return nil, rr.fail(fmt.Errorf("orc stripe %d: %w", idx, err))
		}
	}
	n := int(min(rr.left, int64(rr.batchSize)))
	for _, c := range rr.cols {
		if err := c.read(n, nil); err != nil {
			return nil, rr.fail(fmt.Errorf("orc stripe %d: %w", rr.stripes[rr.next-1], err))
		}
	}
	var rec arrow.RecordBatch
	if len(rr.cols) == 0 {
		rec = array.NewRecordBatch(rr.schema, nil, int64(n))
	} else {
		rec = rr.rb.NewRecordBatch()
	}
	rr.position = rr.row
	rr.row += int64(n)
	rr.left -= int64(n)
	return rec, nil
}

// fail makes err the answer to every later Next and drops the builders,
// which may hold part of a batch.
func (rr *RecordReader) fail(err error) error {
	rr.err = err
	rr.Close()
	return err
}

// Position returns the file position of the first row of the batch Next
// returned last: the row's index among all the file's rows, as Iceberg's
// _pos and position deletes count them.
func (rr *RecordReader) Position() int64 { return rr.position }

// errClosed answers Next after Close.
var errClosed = errors.New("orc: record reader is closed")

// Close releases the reader's builders. Batches already returned stay
// valid.
func (rr *RecordReader) Close() error {
	if rr.err == nil {
		rr.err = errClosed
	}
	if rr.rb != nil {
		rr.rb.Release()
		rr.rb = nil
	}
	rr.cols = nil
	return nil
}

// loadStripe reads the stripe footer and the selected columns' streams,
// and points the columns at them.
func (rr *RecordReader) loadStripe(idx int) error {
	info := rr.f.stripes[idx]
	if err := rr.f.tooLarge(fmt.Sprintf("footer of stripe %d", idx), info.FooterLength); err != nil {
		return err
	}
	raw := make([]byte, info.FooterLength)
	if err := readAt(rr.f.r, raw, info.Offset+info.IndexLength+info.DataLength); err != nil {
		return fmt.Errorf("read stripe footer: %w", err)
	}
	raw, err := rr.dec.decode(nil, raw)
	if err != nil {
		return fmt.Errorf("stripe footer: %w", err)
	}
	sf, err := parseStripeFooter(raw)
	if err != nil {
		return fmt.Errorf("%w: stripe footer: %v", ErrInvalidFile, err)
	}
	if sf.encrypted {
		return fmt.Errorf("%w: column encryption", ErrUnsupported)
	}
	if len(sf.columns) < len(rr.f.types) {
		return fmt.Errorf("%w: stripe footer has %d column encodings for %d columns",
			ErrInvalidFile, len(sf.columns), len(rr.f.types))
	}
	s := &stripe{index: idx, streams: map[streamKey][]byte{}, encodings: sf.columns}
	if s.loc, err = zone(sf.writerTimezone); err != nil {
		return err
	}
	// Spec: Stripes — the streams lie back to back from the stripe's start
	// in the order the stripe footer lists them, index streams first.
	off, end := info.Offset, info.Offset+info.IndexLength+info.DataLength
	for _, st := range sf.streams {
		start := off
		off += int64(st.length)
		if off < start || off > end {
			return fmt.Errorf("%w: stream of column %d overruns the stripe", ErrInvalidFile, st.column)
		}
		if int(st.column) >= len(rr.include) || !rr.include[st.column] {
			continue
		}
		switch st.kind {
		case streamPresent, streamData, streamLength, streamDictionaryData, streamSecondary:
		default:
			continue
		}
		if err := rr.f.tooLarge(fmt.Sprintf("stream %d of column %d", st.kind, st.column), int64(st.length)); err != nil {
			return err
		}
		buf := make([]byte, st.length)
		if err := readAt(rr.f.r, buf, start); err != nil {
			return fmt.Errorf("read stream %d of column %d: %w", st.kind, st.column, err)
		}
		if buf, err = rr.dec.decode(nil, buf); err != nil {
			return fmt.Errorf("stream %d of column %d: %w", st.kind, st.column, err)
		}
		s.streams[streamKey{st.column, st.kind}] = buf
		s.maxItems += 1024*len(buf) + 1024
	}
	for _, c := range rr.cols {
		if err := c.startStripe(s); err != nil {
			return err
		}
	}
	return nil
}

// zones caches the writer time zones loaded so far, by name.
var zones sync.Map

// zone loads a writer time zone by its IANA name. Files that name none
// (written before Hive 0.14) are read as UTC: ORC Java would take its own
// default zone, which a server cannot know.
func zone(name string) (*time.Location, error) {
	switch name {
	case "", "UTC", "GMT", "Etc/UTC", "Z":
		return time.UTC, nil
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%w: writer time zone %q: %v", ErrUnsupported, name, err)
	}
	zones.Store(name, loc)
	return loc, nil
}

// readAt fills buf from r at off; an io.EOF that comes with a full buffer
// is no error (io.ReaderAt allows it).
func readAt(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %d bytes at %d: file ends early", ErrInvalidFile, len(buf), off)
	}
	return err
}
