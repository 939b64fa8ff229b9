package parquet

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/iceflight/iceflight/testkit/testutil"
)

// fid returns field metadata carrying a Parquet field id.
func fid(id int) arrow.Metadata {
	return arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(id)})
}

// writeParquet writes rows (JSON objects, one array) of the Arrow schema sc
// to Parquet, with at most rowGroup rows per row group.
func writeParquet(t *testing.T, sc *arrow.Schema, rowsJSON string, rowGroup int64) []byte {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rowsJSON))
	if err != nil {
		t.Fatalf("build record: %v", err)
	}
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup), parquet.WithStoreDecimalAsInteger(true))
	return testutil.WriteParquet(t, rec, props)
}

// seqFile has one column "i" (id 1) of n rows 0..n-1 in row groups of rg.
func seqFile(t *testing.T, n, rg int) []byte {
	sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)}}, nil)
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"i":` + strconv.Itoa(i) + `}`)
	}
	sb.WriteString("]")
	return writeParquet(t, sc, sb.String(), int64(rg))
}
