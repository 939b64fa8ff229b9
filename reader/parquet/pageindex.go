package parquet

import (
	"io"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/pqcodec"
)

// Page skipping: where a row group's filter columns carry a page index
// (parquet-format PageIndex.md; parquet-mr and Arrow C++ write one when
// asked, Spark and Trino by default), the residual filter is evaluated on
// each page's bounds as on a row group's statistics, and the rows of
// pages it rules out are stepped over in every column (pqcodec's Skip,
// which passes whole pages without decompressing them). It applies to
// row groups whose every projected column pqcodec reads (package reader
// decides that, and steps over the rows).

// RowRange is the rows [Start, End) of a row group.
type RowRange struct{ Start, End int64 }

// ExcludedRows returns the ranges of rg's rows that the page index of the
// filter's columns rules out, ascending and disjoint; nil when no column
// has a page index or none rules anything out. r holds the file's bytes.
// An unreadable index rules nothing out: it is optional, and the rows are
// then filtered one by one.
func (p *Pruner) ExcludedRows(r io.ReaderAt, rg *metadata.RowGroupMetaData) []RowRange {
	rows := rg.NumRows()
	type indexed struct {
		field iceberg.NestedField
		col   *schema.Column
		pages *pqcodec.PageIndex
	}
	var (
		cols   []indexed
		chunks []*metadata.ColumnChunkMetaData
	)
	for _, fc := range p.filterColumns(rg) {
		cols = append(cols, indexed{field: fc.field, col: fc.col})
		chunks = append(chunks, fc.chunk)
	}
	if len(cols) == 0 {
		return nil
	}
	// One read for every filter column's index, not two per column.
	ir, err := pqcodec.PageIndexReader(r, chunks)
	if err != nil {
		return nil
	}
	bounds := []int64{0, rows}
	kept := cols[:0]
	for i, c := range cols {
		pi, err := pqcodec.ReadPageIndex(ir, chunks[i])
		if err != nil || pi == nil || pi.FirstRows[len(pi.FirstRows)-1] >= rows {
			continue
		}
		c.pages = pi
		kept = append(kept, c)
		bounds = append(bounds, pi.FirstRows...)
	}
	cols = kept
	if len(cols) == 0 {
		return nil
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	var out []RowRange
	for i := 0; i+1 < len(bounds); i++ {
		start, end := bounds[i], bounds[i+1]
		var values, nulls []iceberg.ColumnCount
		var lower, upper []iceberg.ColumnBound
		for _, c := range cols {
			// The page holding the interval: the last to start at or before it.
			j, found := slices.BinarySearch(c.pages.FirstRows, start)
			if !found {
				j--
			}
			id, n := c.field.ID, end-start
			switch {
			case c.pages.NullPages[j]:
				nulls = append(nulls, iceberg.ColumnCount{ID: id, Count: n})
				values = append(values, iceberg.ColumnCount{ID: id, Count: n})
				continue
			case c.pages.NullCounts != nil && c.pages.NullCounts[j] == 0:
				nulls = append(nulls, iceberg.ColumnCount{ID: id, Count: 0})
				values = append(values, iceberg.ColumnCount{ID: id, Count: n})
			}
			if lo, hi, ok := pageBounds(c.col, c.field.Type, c.pages.Min[j], c.pages.Max[j]); ok {
				lower = append(lower, iceberg.ColumnBound{ID: id, Value: lo})
				upper = append(upper, iceberg.ColumnBound{ID: id, Value: hi})
			}
		}
		m := expr.Metrics{RecordCount: end - start,
			ValueCounts: iceberg.NewColumnCounts(values), NullCounts: iceberg.NewColumnCounts(nulls),
			Lower: iceberg.NewColumnBounds(lower), Upper: iceberg.NewColumnBounds(upper)}
		if ok, err := p.eval.EvalMetrics(m); err != nil || ok {
			continue
		}
		if k := len(out); k > 0 && out[k-1].End == start {
			out[k-1].End = end
		} else {
			out = append(out, RowRange{start, end})
		}
	}
	return out
}

// pageBounds returns a page's PLAIN-encoded min and max as Iceberg's
// single-value bounds, for the types whose PLAIN form is that encoding
// (little-endian integers and IEEE floats, the bytes of strings and
// binaries) and whose Parquet order is Iceberg's; statBounds makes the
// same choices for a row group's statistics.
func pageBounds(col *schema.Column, t iceberg.Type, lo, hi []byte) ([]byte, []byte, bool) {
	ok := false
	switch col.PhysicalType() {
	case parquet.Types.Int32:
		switch t.(type) {
		case iceberg.IntType, iceberg.DateType:
			ok = col.SortOrder() == schema.SortSIGNED && len(lo) == 4 && len(hi) == 4
		}
	case parquet.Types.Int64:
		switch t.(type) {
		case iceberg.LongType:
			ok = col.SortOrder() == schema.SortSIGNED
		case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimeType:
			ts, isTime := col.LogicalType().(interface{ TimeUnit() schema.TimeUnitType })
			ok = isTime && ts.TimeUnit() == schema.TimeUnitMicros
		}
		ok = ok && len(lo) == 8 && len(hi) == 8
	case parquet.Types.Float:
		_, isFloat := t.(iceberg.FloatType)
		ok = isFloat && len(lo) == 4 && len(hi) == 4 && !isNaN32(lo) && !isNaN32(hi)
	case parquet.Types.Double:
		_, isDouble := t.(iceberg.DoubleType)
		ok = isDouble && len(lo) == 8 && len(hi) == 8 && !isNaN64(lo) && !isNaN64(hi)
	case parquet.Types.ByteArray:
		switch t.(type) {
		case iceberg.StringType, iceberg.BinaryType:
			ok = col.SortOrder() == schema.SortUNSIGNED
		}
	}
	return lo, hi, ok
}

func isNaN32(b []byte) bool {
	return math.IsNaN(float64(math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)))
}

func isNaN64(b []byte) bool {
	var u uint64
	for i := 7; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return math.IsNaN(math.Float64frombits(u))
}
