package testutil

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// WriteParquet writes rec as a Parquet file with arrow-go's writer, with
// props (nil: arrow-go's defaults) and opts, and returns the file's bytes.
func WriteParquet(tb testing.TB, rec arrow.RecordBatch, props *parquet.WriterProperties, opts ...pqarrow.WriterOption) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties(opts...))
	if err != nil {
		tb.Fatalf("parquet writer: %v", err)
	}
	if err := w.Write(rec); err != nil {
		tb.Fatalf("write parquet: %v", err)
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("close parquet: %v", err)
	}
	return buf.Bytes()
}

// ReadParquet reads the Parquet file raw whole with arrow-go's pqarrow,
// allocating from mem; the caller releases the table.
func ReadParquet(tb testing.TB, mem memory.Allocator, raw []byte) arrow.Table {
	tb.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(raw), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		tb.Fatalf("parquet reader: %v", err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		tb.Fatalf("pqarrow reader: %v", err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		tb.Fatalf("read parquet: %v", err)
	}
	return tbl
}
