package parquet

import (
	"bytes"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/iceflight/iceflight/iceberg"
)

// MayHoldPath reports whether row group rg may hold rows naming data file
// path. It reads the min/max statistics of a position delete file's
// file_path column: position delete files are sorted by file_path (spec:
// Position Delete Files), so most row groups name other data files.
func MayHoldPath(rg *metadata.RowGroupMetaData, path string) bool {
	schema := rg.Schema
	for c := 0; c < rg.NumColumns(); c++ {
		if schema.Column(c).SchemaNode().FieldID() != iceberg.FieldIDDeleteFilePath {
			continue
		}
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			return true
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasMinMax() {
			return true
		}
		bs, ok := st.(*metadata.ByteArrayStatistics)
		if !ok {
			return true
		}
		p := []byte(path)
		// A truncated max is a prefix of the true one, so a path it
		// prefixes may still be in the row group.
		return bytes.Compare(bs.Min(), p) <= 0 && (bytes.Compare(p, bs.Max()) <= 0 || bytes.HasPrefix(p, bs.Max()))
	}
	return true
}

// RowGroupMidpoint is the byte offset halfway through a row group's column
// chunks. A byte-range split of a file reads the row groups whose midpoint
// falls in its range, as parquet-mr assigns row groups to splits for
// Iceberg Java, so that splits of one file never read a row twice.
func RowGroupMidpoint(rg *metadata.RowGroupMetaData) (int64, error) {
	var start, size int64 = -1, 0
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			return 0, err
		}
		off := cc.DataPageOffset()
		if d := cc.DictionaryPageOffset(); d > 0 && d < off {
			off = d
		}
		if start < 0 || off < start {
			start = off
		}
		size += cc.TotalCompressedSize()
	}
	return start + size/2, nil
}
