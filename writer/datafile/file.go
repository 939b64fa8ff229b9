package datafile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// countingWriter counts the bytes that reach the file. It has no Close on
// purpose: the Parquet writer closes a sink that has one, and the file's
// commit (fileio's Close) is ours to call and check.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// parquetFile is one data file being written.
type parquetFile struct {
	location string
	tuple    []any
	wc       io.WriteCloser
	cancel   context.CancelFunc // abandons the upload on Abort
	sink     *countingWriter
	enc      *encoder
	floats   map[int]*dataMetrics
	fields   []iceberg.NestedField
	walked   []int // the top-level columns whose data metrics walkData takes
	rowGroup int64 // bytes at which a row group is cut
	lastUse  int64
	// buffered estimates the Arrow bytes in the open row group, which the
	// Parquet writer keeps in memory and does not count until it flushes;
	// flushedRaw and the sink's count of the groups flushed so far give
	// the ratio at which buffered bytes shrink on the way to the file.
	buffered, flushedRaw int64
}

// openParquet starts a Parquet file at location for batches of schema.
// The upload's context outlives ctx (a file spans many Write calls) but
// is cancelled by abort.
func openParquet(ctx context.Context, fio fileio.FileIO, location string, schema *arrow.Schema, fields []iceberg.NestedField, cfg config) (*parquetFile, error) {
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	wc, err := fileio.Create(fctx, fio, location)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("create data file %s: %w", location, err)
	}
	sink := &countingWriter{w: wc}
	enc, err := newEncoder(schema, sink, cfg.writerProps(), cfg.mem, cfg.workers, cfg.arrowGo)
	if err != nil {
		cancel()
		_ = wc.Close()
		return nil, fmt.Errorf("create data file %s: %w", location, err)
	}
	f := &parquetFile{location: location, wc: wc, cancel: cancel, sink: sink, enc: enc,
		floats: newDataMetrics(fields), fields: fields, rowGroup: cfg.rowGroupSize}
	for i, fld := range fields {
		// pqwrite collects a primitive column's data metrics as it
		// encodes it (takeBounds); the others are walked.
		if hasDataMetrics(fld, f.floats) && !enc.hasBounds(i) {
			f.walked = append(f.walked, i)
		}
	}
	return f, nil
}

// write appends rec to the file's current row group, first starting a new
// one when the buffered group has reached the row group size (so a file
// never ends in an empty group).
func (f *parquetFile) write(rec arrow.RecordBatch) error {
	if f.buffered >= f.rowGroup {
		if err := f.enc.newRowGroup(); err != nil {
			return fmt.Errorf("write data file %s: %w", f.location, err)
		}
		f.flushedRaw += f.buffered
		f.buffered = 0
	}
	if err := f.enc.write(rec, dataTasks(rec, f.fields, f.walked, f.floats)...); err != nil {
		return fmt.Errorf("write data file %s: %w", f.location, err)
	}
	for _, c := range rec.Columns() {
		f.buffered += arrayBytes(c)
	}
	return nil
}

// size estimates the file's size so far: bytes written plus the open
// row group's buffered bytes at the compression ratio seen so far.
func (f *parquetFile) size() int64 {
	if f.flushedRaw == 0 {
		return f.sink.n + f.buffered
	}
	return f.sink.n + int64(float64(f.buffered)*float64(f.sink.n)/float64(f.flushedRaw))
}

// arrayBytes estimates the bytes of the values arr's rows reach (not of
// whole shared buffers, which a slice may only partly use).
func arrayBytes(arr arrow.Array) int64 {
	n := int64(arr.Len())
	size := (n + 7) / 8 // validity
	switch a := arr.(type) {
	case *array.String:
		if n > 0 {
			size += int64(a.ValueOffset(int(n)-1)+len(a.Value(int(n)-1))-a.ValueOffset(0)) + 4*n
		}
	case *array.Binary:
		if n > 0 {
			size += int64(a.ValueOffset(int(n)-1)+len(a.Value(int(n)-1))-a.ValueOffset(0)) + 4*n
		}
	case *array.Struct:
		for i := 0; i < a.NumField(); i++ {
			size += arrayBytes(a.Field(i))
		}
	case array.ListLike:
		vals := listRange(a)
		size += arrayBytes(vals) + 4*n
		vals.Release()
	default:
		if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok {
			size += n * int64(max(fw.BitWidth()/8, 1))
		}
	}
	return size
}

// finish writes the footer, commits the file and returns its data_file
// struct.
func (f *parquetFile) finish(cols map[int]*leafColumn, specID int) (iceberg.DataFile, error) {
	defer f.cancel()
	if err := f.enc.close(); err != nil {
		_ = f.wc.Close()
		return iceberg.DataFile{}, fmt.Errorf("finish data file %s: %w", f.location, err)
	}
	if err := f.wc.Close(); err != nil {
		return iceberg.DataFile{}, fmt.Errorf("commit data file %s: %w", f.location, err)
	}
	meta, err := f.enc.metadata()
	if err != nil {
		return iceberg.DataFile{}, fmt.Errorf("footer of data file %s: %w", f.location, err)
	}
	f.takeBounds()
	df := iceberg.DataFile{
		Content:   iceberg.FileContentData,
		Path:      f.location,
		Format:    "PARQUET",
		Partition: f.tuple,
		FileSize:  f.sink.n,
		SpecID:    specID,
	}
	if err := fileMetrics(meta, cols, f.floats, &df); err != nil {
		return iceberg.DataFile{}, fmt.Errorf("metrics of data file %s: %w", f.location, err)
	}
	return df, nil
}

// takeBounds fills the data metrics of the columns pqwrite encoded from
// the bounds it collected.
func (f *parquetFile) takeBounds() {
	for i, fld := range f.fields {
		m := f.floats[fld.ID]
		if m == nil || !f.enc.hasBounds(i) {
			continue
		}
		b := f.enc.bounds(i)
		m.nan, m.min, m.max, m.has = b.NaNs, b.FloatMin, b.FloatMax, b.HasFloats
		m.lo, m.hi, m.hasBytes = string(b.Min), string(b.Max), b.HasBytes
	}
}

// abandon stops the upload; whatever the store committed anyway is
// removed by the caller.
func (f *parquetFile) abandon() error {
	f.cancel()
	// The Parquet writer is closed to free its buffers, its footer sent
	// nowhere; the upload is closed under a cancelled context, which
	// stores nothing on the stores that honour it.
	f.sink.w = io.Discard
	_ = f.enc.close()
	err := f.wc.Close()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}
