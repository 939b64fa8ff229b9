package datafile

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/iceflight/iceflight/iceberg"
)

// dataMetrics are the metrics of a column computed from the data rather
// than the footer. Floats and doubles: Parquet statistics of floating point
// are not reliable around NaN, so Iceberg Java collects these in its
// writers too. Strings and binaries: the Parquet writer leaves out a min
// or max longer than its statistics limit (4 KiB), where Java would keep a
// truncated bound.
type dataMetrics struct {
	nan      int64
	min, max float64
	has      bool // min and max hold a non-NaN value

	lo, hi   string // string and binary bounds, copied out of the batches
	hasBytes bool
}

// newDataMetrics returns empty metrics for each float, double, string and
// binary leaf of fields outside lists and maps: the columns walkData
// visits. The map is complete before any batch is walked, so that the
// walks of different columns may run at once.
func newDataMetrics(fields []iceberg.NestedField) map[int]*dataMetrics {
	acc := map[int]*dataMetrics{}
	var add func(fields []iceberg.NestedField)
	add = func(fields []iceberg.NestedField) {
		for _, f := range fields {
			switch t := f.Type.(type) {
			case iceberg.FloatType, iceberg.DoubleType, iceberg.StringType, iceberg.BinaryType:
				acc[f.ID] = &dataMetrics{}
			case *iceberg.StructType:
				add(t.Fields)
			}
		}
	}
	add(fields)
	return acc
}

// dataTasks returns a task per top-level column of batch in walked, each
// adding that column's data metrics to acc.
func dataTasks(batch arrow.RecordBatch, fields []iceberg.NestedField, walked []int, acc map[int]*dataMetrics) []func() error {
	var tasks []func() error
	for _, i := range walked {
		f := fields[i]
		col := batch.Column(i)
		tasks = append(tasks, func() error {
			walkData(col, f, nil, acc)
			return nil
		})
	}
	return tasks
}

// hasDataMetrics reports whether f or a struct field below it is in acc.
func hasDataMetrics(f iceberg.NestedField, acc map[int]*dataMetrics) bool {
	if acc[f.ID] != nil {
		return true
	}
	if st, ok := f.Type.(*iceberg.StructType); ok {
		for _, cf := range st.Fields {
			if hasDataMetrics(cf, acc) {
				return true
			}
		}
	}
	return false
}

// walkData visits arr (of field f); valid, when not nil, tells which of
// arr's rows have every struct above them non-null. It only reads acc,
// which newDataMetrics filled.
func walkData(arr arrow.Array, f iceberg.NestedField, valid []bool, acc map[int]*dataMetrics) {
	switch t := f.Type.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		m := acc[f.ID]
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) || (valid != nil && !valid[i]) {
				continue
			}
			var v float64
			if a, ok := arr.(*array.Float32); ok {
				v = float64(a.Value(i))
			} else {
				v = arr.(*array.Float64).Value(i)
			}
			if math.IsNaN(v) {
				m.nan++
				continue
			}
			if !m.has || floatLess(v, m.min) {
				m.min = v
			}
			if !m.has || floatLess(m.max, v) {
				m.max = v
			}
			m.has = true
		}
	case iceberg.StringType, iceberg.BinaryType:
		m := acc[f.ID]
		value := func(i int) string { return arr.(*array.Binary).ValueString(i) }
		if a, ok := arr.(*array.String); ok {
			value = a.Value
		}
		for i := 0; i < arr.Len(); i++ {
			if arr.IsNull(i) || (valid != nil && !valid[i]) {
				continue
			}
			v := value(i)
			// A first byte strictly between the bounds' decides both
			// comparisons; most values of a column take this branch.
			if m.hasBytes && v != "" && m.lo != "" && m.hi != "" && v[0] > m.lo[0] && v[0] < m.hi[0] {
				continue
			}
			if !m.hasBytes || v < m.lo {
				m.lo = strings.Clone(v)
			}
			if !m.hasBytes || v > m.hi {
				m.hi = strings.Clone(v)
			}
			m.hasBytes = true
		}
	case *iceberg.StructType:
		s := arr.(*array.Struct)
		var kidValid []bool
		if s.NullN() > 0 || valid != nil {
			kidValid = make([]bool, s.Len())
			for i := range kidValid {
				kidValid[i] = s.IsValid(i) && (valid == nil || valid[i])
			}
		}
		for j, cf := range t.Fields {
			walkData(s.Field(j), cf, kidValid, acc)
		}
	}
	// Lists and maps keep no counts or bounds (see fileMetrics), so their
	// floats are not visited.
}

// floatLess orders -0 before +0, as Java's Double.compare does.
func floatLess(a, b float64) bool {
	if a == b {
		return math.Signbit(a) && !math.Signbit(b)
	}
	return a < b
}

// listRange returns the values a list-like array's rows reach; the caller
// releases it.
func listRange(l array.ListLike) arrow.Array {
	if l.Len() == 0 {
		return array.NewSlice(l.ListValues(), 0, 0)
	}
	start, _ := l.ValueOffsets(0)
	_, end := l.ValueOffsets(l.Len() - 1)
	return array.NewSlice(l.ListValues(), start, end)
}

// fileMetrics fills df's record count, metrics and split offsets from the
// Parquet footer and, for floats, from the data, as Iceberg Java's
// ParquetMetrics does: a column of mode none has nothing, one inside a list
// or map only its size, counts mode adds value and null (and NaN) counts,
// truncate and full add bounds. A row group without statistics for a
// column drops that column's counts and bounds.
func fileMetrics(meta *metadata.FileMetaData, cols map[int]*leafColumn, floats map[int]*dataMetrics, df *iceberg.DataFile) error {
	type acc struct {
		size, values, nulls int64
		noStats             bool
		noBounds            bool // a chunk with values has no min or max
		lower, upper        any
	}
	byID := map[int]*acc{}
	var ids []int
	df.RecordCount = meta.NumRows
	sch := meta.Schema
	for r := 0; r < meta.NumRowGroups(); r++ {
		rg := meta.RowGroup(r)
		var start int64 = -1
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return err
			}
			off := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < off {
				off = cc.DictionaryPageOffset()
			}
			if start < 0 || off < start {
				start = off
			}
			id := int(sch.Column(c).SchemaNode().FieldID())
			col := cols[id]
			if col == nil || col.mode.kind == metricsNone {
				continue
			}
			a := byID[id]
			if a == nil {
				a = &acc{}
				byID[id] = a
				ids = append(ids, id)
			}
			a.size += cc.TotalCompressedSize()
			if col.repeated {
				continue
			}
			a.values += cc.NumValues()
			st, err := chunkStats(cc)
			if err != nil {
				return err
			}
			if st == nil {
				a.noStats = true
				continue
			}
			a.nulls += st.NullCount()
			if col.mode.kind == metricsCounts || isFloat(col.typ) || isBytes(col.typ) {
				continue
			}
			if !st.HasMinMax() {
				// The Parquet writer leaves out a min or max longer than its
				// statistics limit; the other chunks' bounds would not bound
				// this one's values.
				if st.NullCount() < cc.NumValues() {
					a.noBounds = true
				}
				continue
			}
			lo, hi, ok := statBounds(st, col.typ)
			if !ok {
				continue
			}
			if a.lower == nil || compareLiteral(lo, a.lower) < 0 {
				a.lower = lo
			}
			if a.upper == nil || compareLiteral(hi, a.upper) > 0 {
				a.upper = hi
			}
		}
		if start >= 0 {
			df.SplitOffsets = append(df.SplitOffsets, start)
		}
	}
	var sizes, values, nulls, nans []iceberg.ColumnCount
	var lowers, uppers []iceberg.ColumnBound
	for _, id := range ids {
		a, col := byID[id], cols[id]
		sizes = append(sizes, iceberg.ColumnCount{ID: id, Count: a.size})
		if col.repeated || a.noStats {
			continue
		}
		values = append(values, iceberg.ColumnCount{ID: id, Count: a.values})
		nulls = append(nulls, iceberg.ColumnCount{ID: id, Count: a.nulls})
		fm := floats[id]
		if fm == nil {
			fm = &dataMetrics{}
		}
		if isFloat(col.typ) {
			nans = append(nans, iceberg.ColumnCount{ID: id, Count: fm.nan})
			if fm.has && col.mode.kind >= metricsTruncate {
				a.lower, a.upper = floatLiteral(col.typ, fm.min), floatLiteral(col.typ, fm.max)
			}
		}
		if isBytes(col.typ) {
			a.lower, a.upper, a.noBounds = nil, nil, false
			if fm.hasBytes && col.mode.kind >= metricsTruncate {
				a.lower, a.upper = bytesLiteral(col.typ, fm.lo), bytesLiteral(col.typ, fm.hi)
			}
		}
		if a.lower == nil || a.upper == nil || a.noBounds {
			continue
		}
		lo, hi := a.lower, a.upper
		if _, ok := col.typ.(iceberg.StringType); ok && col.mode.kind == metricsTruncate {
			lo, hi = truncateLower(lo, col.mode.n), truncateUpper(hi, col.mode.n)
		}
		if _, ok := col.typ.(iceberg.BinaryType); ok && col.mode.kind == metricsTruncate {
			lo, hi = truncateLower(lo, col.mode.n), truncateUpper(hi, col.mode.n)
		}
		if lo != nil {
			b, err := iceberg.EncodeValue(col.typ, lo)
			if err != nil {
				return fmt.Errorf("lower bound of column %s: %w", col.name, err)
			}
			lowers = append(lowers, iceberg.ColumnBound{ID: id, Value: b})
		}
		if hi != nil {
			b, err := iceberg.EncodeValue(col.typ, hi)
			if err != nil {
				return fmt.Errorf("upper bound of column %s: %w", col.name, err)
			}
			uppers = append(uppers, iceberg.ColumnBound{ID: id, Value: b})
		}
	}
	df.ColumnSizes = iceberg.NewColumnCounts(sizes)
	df.ValueCounts = iceberg.NewColumnCounts(values)
	df.NullValueCounts = iceberg.NewColumnCounts(nulls)
	df.NaNValueCounts = iceberg.NewColumnCounts(nans)
	df.LowerBounds = iceberg.NewColumnBounds(lowers)
	df.UpperBounds = iceberg.NewColumnBounds(uppers)
	return nil
}

// chunkStats returns a column chunk's statistics, nil when it has none
// or no null count (Java's "stats == null || stats.isEmpty()").
func chunkStats(cc *metadata.ColumnChunkMetaData) (metadata.TypedStatistics, error) {
	set, err := cc.StatsSet()
	if err != nil || !set {
		return nil, err
	}
	st, err := cc.Statistics()
	if err != nil {
		return nil, err
	}
	if st == nil || !st.HasNullCount() {
		return nil, nil
	}
	return st, nil
}

func isFloat(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		return true
	}
	return false
}

func isBytes(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.StringType, iceberg.BinaryType:
		return true
	}
	return false
}

func bytesLiteral(t iceberg.Type, v string) any {
	if _, ok := t.(iceberg.BinaryType); ok {
		return []byte(v)
	}
	return v
}

func floatLiteral(t iceberg.Type, v float64) any {
	if _, ok := t.(iceberg.FloatType); ok {
		return float32(v)
	}
	return v
}

// statBounds converts a column chunk's min and max to literals of type t.
func statBounds(st metadata.TypedStatistics, t iceberg.Type) (lo, hi any, ok bool) {
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		return s.Min(), s.Max(), true
	case *metadata.Int32Statistics:
		switch t.(type) {
		case iceberg.IntType, iceberg.DateType:
			return s.Min(), s.Max(), true
		}
	case *metadata.Int64Statistics:
		switch t.(type) {
		case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestampTzType,
			iceberg.TimestampNsType, iceberg.TimestampTzNsType:
			return s.Min(), s.Max(), true
		}
	case *metadata.ByteArrayStatistics:
		switch t.(type) {
		case iceberg.StringType:
			return string(s.Min()), string(s.Max()), true
		case iceberg.BinaryType:
			return bytes.Clone(s.Min()), bytes.Clone(s.Max()), true
		}
	case *metadata.FixedLenByteArrayStatistics:
		switch t.(type) {
		case iceberg.DecimalType:
			return iceberg.DecimalFromBigEndian(s.Min()), iceberg.DecimalFromBigEndian(s.Max()), true
		case iceberg.UUIDType:
			if len(s.Min()) == 16 && len(s.Max()) == 16 {
				return [16]byte(s.Min()), [16]byte(s.Max()), true
			}
		case iceberg.FixedType:
			return bytes.Clone(s.Min()), bytes.Clone(s.Max()), true
		}
	}
	return nil, nil, false
}

// compareLiteral orders two literals of type t.
func compareLiteral(a, b any) int {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int32:
		return cmpOrdered(x, b.(int32))
	case int64:
		return cmpOrdered(x, b.(int64))
	case string:
		return cmpOrdered(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case [16]byte:
		y := b.([16]byte)
		return bytes.Compare(x[:], y[:])
	case decimal128.Num:
		y := b.(decimal128.Num)
		switch {
		case x.Less(y):
			return -1
		case y.Less(x):
			return 1
		}
	}
	return 0
}

func cmpOrdered[T int32 | int64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// truncateLower cuts a string to n code points or a binary to n bytes:
// still a lower bound (Iceberg's UnicodeUtil/BinaryUtil.truncate*Min).
func truncateLower(v any, n int) any {
	switch x := v.(type) {
	case string:
		return truncateRunes(x, n)
	case []byte:
		if len(x) > n {
			return x[:n]
		}
	}
	return v
}

// truncateUpper cuts to n and increments the last code point (or byte)
// that can be, dropping what follows, so the result stays an upper bound;
// nil when there is none (Iceberg's truncateStringMax/truncateBinaryMax).
func truncateUpper(v any, n int) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) <= n {
			return x
		}
		rs := []rune(truncateRunes(x, n))
		for i := len(rs) - 1; i >= 0; i-- {
			next := rs[i] + 1
			if next >= 0xD800 && next <= 0xDFFF {
				next = 0xE000 // skip the surrogates, which UTF-8 cannot hold
			}
			if next <= utf8.MaxRune {
				rs[i] = next
				return string(rs[:i+1])
			}
		}
		return nil
	case []byte:
		if len(x) <= n {
			return x
		}
		out := bytes.Clone(x[:n])
		for i := len(out) - 1; i >= 0; i-- {
			if out[i] != 0xFF {
				out[i]++
				return out[:i+1]
			}
		}
		return nil
	}
	return v
}

func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
