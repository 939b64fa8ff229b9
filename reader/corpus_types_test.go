package reader

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/iceflight/iceflight/iceberg"
)

// TestCorpusTypes reads one-row files with every type that Spark and Trino
// write. The corpus has no expected rows for them, so each top-level
// primitive value is checked against the column's min/max statistics that
// the writing engine put in the Parquet footer (for one row, both are the
// value).
func TestCorpusTypes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"iceberg-cxx__types_all_spark_types", "iceberg-cxx__types_all_trino_types", "iceberg-cxx__types_decimals"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, md := corpusTable(t, name)
			files := corpusDataFiles(t, dir)
			if len(files) != 1 {
				t.Fatalf("data files %v, want one", files)
			}
			stats := footerStats(t, files[0])
			mem := checkedAlloc(t)
			r := New(dirIO{}, WithAllocator(mem), WithValidation(true))
			schema := md.CurrentSchema()
			res := readAll(t, r, Scan{Schema: schema}, parquetTask(files[0]))
			if res.err != nil || len(res.rows) != 1 {
				t.Fatalf("rows %d, err %v", len(res.rows), res.err)
			}
			checked := 0
			err := r.Read(context.Background(), Scan{Schema: schema}, parquetTask(files[0]), func(rec arrow.RecordBatch) error {
				for i, f := range schema.Fields {
					st, ok := stats[f.ID]
					if !ok {
						continue
					}
					got, err := scalarOf(rec.Column(i))
					if err != nil {
						return fmt.Errorf("%s: %v", f.Name, err)
					}
					if want := statValue(st); !equalScalar(got, want) {
						t.Errorf("%s (%s) = %v, footer statistics say %v", f.Name, f.Type, got, want)
					}
					checked++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if checked < 5 {
				t.Errorf("only %d columns had statistics to check", checked)
			}
		})
	}
}

// footerStats returns the statistics of top-level leaf columns that have
// min == max, by field id.
func footerStats(t *testing.T, path string) map[int]metadata.TypedStatistics {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	out := make(map[int]metadata.TypedStatistics)
	sc := pf.MetaData().Schema
	rg := pf.MetaData().RowGroup(0)
	for j := 0; j < sc.NumColumns(); j++ {
		col := sc.Column(j)
		if len(col.ColumnPath()) != 1 {
			continue
		}
		cc, err := rg.ColumnChunk(j)
		if err != nil {
			t.Fatal(err)
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasMinMax() {
			continue
		}
		out[int(col.SchemaNode().FieldID())] = st
	}
	return out
}

func statValue(st metadata.TypedStatistics) any {
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		return s.Min()
	case *metadata.Int32Statistics:
		return int64(s.Min())
	case *metadata.Int64Statistics:
		return s.Min()
	case *metadata.Float32Statistics:
		return float64(s.Min())
	case *metadata.Float64Statistics:
		return s.Min()
	case *metadata.ByteArrayStatistics:
		return append([]byte(nil), s.Min()...)
	case *metadata.FixedLenByteArrayStatistics:
		return append([]byte(nil), s.Min()...)
	}
	return nil
}

// scalarOf returns row 0 of a primitive column in the form statValue uses.
func scalarOf(col arrow.Array) (any, error) {
	switch a := col.(type) {
	case *array.Boolean:
		return a.Value(0), nil
	case *array.Int32:
		return int64(a.Value(0)), nil
	case *array.Date32:
		return int64(a.Value(0)), nil
	case *array.Int64:
		return a.Value(0), nil
	case *array.Time64:
		return int64(a.Value(0)), nil
	case *array.Timestamp:
		return int64(a.Value(0)), nil
	case *array.Float32:
		return float64(a.Value(0)), nil
	case *array.Float64:
		return a.Value(0), nil
	case *array.String:
		return []byte(a.Value(0)), nil
	case *array.Binary:
		return a.Value(0), nil
	case *array.FixedSizeBinary:
		return a.Value(0), nil
	case *array.Decimal128:
		return a.Value(0), nil
	}
	return nil, fmt.Errorf("no scalar for %s", col.DataType())
}

func equalScalar(got, want any) bool {
	switch g := got.(type) {
	case []byte:
		w, ok := want.([]byte)
		return ok && bytes.Equal(g, w)
	case decimal128.Num:
		switch w := want.(type) {
		case int64:
			return g == decimal128.FromI64(w)
		case []byte: // big-endian two's complement
			return g == iceberg.DecimalFromBigEndian(w)
		}
		return false
	}
	return got == want
}
