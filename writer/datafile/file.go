package datafile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

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
	fw       *pqarrow.FileWriter
	floats   map[int]*floatMetrics
	fields   []iceberg.NestedField
	rowGroup int64 // bytes at which a row group is cut
	lastUse  int64
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
	fw, err := pqarrow.NewFileWriter(schema, sink, cfg.writerProps(), pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(cfg.mem)))
	if err != nil {
		cancel()
		_ = wc.Close()
		return nil, fmt.Errorf("create data file %s: %w", location, err)
	}
	return &parquetFile{location: location, wc: wc, cancel: cancel, sink: sink, fw: fw,
		floats: map[int]*floatMetrics{}, fields: fields, rowGroup: cfg.rowGroupSize}, nil
}

// write appends rec to the file's current row group, starting a new one
// once the buffered group reaches the row group size.
func (f *parquetFile) write(rec arrow.RecordBatch) error {
	if err := f.fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("write data file %s: %w", f.location, err)
	}
	collectFloats(rec, f.fields, f.floats)
	if f.fw.RowGroupTotalCompressedBytes()+f.fw.RowGroupTotalBytesWritten() >= f.rowGroup {
		if err := f.fw.NewBufferedRowGroupChecked(); err != nil {
			return fmt.Errorf("write data file %s: %w", f.location, err)
		}
	}
	return nil
}

// size estimates the file's size so far: bytes written plus the open
// row group's buffered pages.
func (f *parquetFile) size() int64 {
	return f.sink.n + f.fw.RowGroupTotalCompressedBytes() + f.fw.RowGroupTotalBytesWritten()
}

// finish writes the footer, commits the file and returns its data_file
// struct.
func (f *parquetFile) finish(cols map[int]*leafColumn, specID int) (iceberg.DataFile, error) {
	defer f.cancel()
	if err := f.fw.Close(); err != nil {
		_ = f.wc.Close()
		return iceberg.DataFile{}, fmt.Errorf("finish data file %s: %w", f.location, err)
	}
	if err := f.wc.Close(); err != nil {
		return iceberg.DataFile{}, fmt.Errorf("commit data file %s: %w", f.location, err)
	}
	meta, err := f.fw.FileMetadata()
	if err != nil {
		return iceberg.DataFile{}, fmt.Errorf("footer of data file %s: %w", f.location, err)
	}
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

// abandon stops the upload; whatever the store committed anyway is
// removed by the caller.
func (f *parquetFile) abandon() error {
	f.cancel()
	// The Parquet writer is closed to free its buffers, its footer sent
	// nowhere; the upload is closed under a cancelled context, which
	// stores nothing on the stores that honour it.
	f.sink.w = io.Discard
	_ = f.fw.Close()
	err := f.wc.Close()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}
