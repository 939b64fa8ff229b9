package testutil

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
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
