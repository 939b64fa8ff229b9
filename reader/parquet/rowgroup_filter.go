package parquet

import (
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// Pruner skips Parquet row groups whose column statistics prove that no
// row matches a task's residual filter: the fourth pruning level, after
// manifests, partitions and file metrics. It turns each row group's
// statistics into the metrics Iceberg keeps per file and runs the same
// inclusive metrics evaluator over them.
type Pruner struct {
	eval   *expr.MetricsEvaluator
	fields map[int]iceberg.NestedField // filter fields by id
}

// NewPruner returns the pruner of filter e, bound to schema, or nil when
// there is no filter, no schema or the filter gives no metrics evaluator;
// the caller's row filter then decides every row.
func NewPruner(e expr.Expr, schema *iceberg.Schema) *Pruner {
	if e == nil || schema == nil {
		return nil
	}
	eval, err := expr.NewMetricsEvaluator(schema, e, true)
	if err != nil {
		return nil // no pruning: the row filter still decides every row
	}
	p := &Pruner{eval: eval, fields: map[int]iceberg.NestedField{}}
	expr.Walk(e, func(pr expr.Predicate) {
		if field, ok := schema.FieldByID(pr.Ref.ID); ok {
			p.fields[pr.Ref.ID] = field
		}
	})
	return p
}

// filterColumn is a column chunk of a row group that one of the filter's
// fields reads.
type filterColumn struct {
	field iceberg.NestedField
	col   *schema.Column
	chunk *metadata.ColumnChunkMetaData
}

// filterColumns returns rg's chunks of the filter's fields, in file order:
// flat columns at the top level whose name is the field's, whose chunk
// metadata reads.
func (p *Pruner) filterColumns(rg *metadata.RowGroupMetaData) []filterColumn {
	var out []filterColumn
	for c := 0; c < rg.NumColumns(); c++ {
		col := rg.Schema.Column(c)
		field, ok := p.fields[int(col.SchemaNode().FieldID())]
		if !ok || col.MaxRepetitionLevel() > 0 || col.ColumnPath().String() != field.Name {
			continue
		}
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			continue
		}
		out = append(out, filterColumn{field: field, col: col, chunk: cc})
	}
	return out
}

// MayMatch reports whether a row group may hold a matching row. Columns
// without trustworthy statistics, or with a physical form whose order is
// not the Iceberg type's, give no metrics and so never prune.
func (p *Pruner) MayMatch(rg *metadata.RowGroupMetaData) bool {
	var values, nulls []iceberg.ColumnCount
	var lower, upper []iceberg.ColumnBound
	for _, fc := range p.filterColumns(rg) {
		field, col, cc := fc.field, fc.col, fc.chunk
		if set, err := cc.StatsSet(); err != nil || !set {
			continue
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			continue
		}
		id := field.ID
		if st.HasNullCount() {
			nulls = append(nulls, iceberg.ColumnCount{ID: id, Count: st.NullCount()})
			values = append(values, iceberg.ColumnCount{ID: id, Count: cc.NumValues()})
		}
		if !st.HasMinMax() {
			continue
		}
		lo, hi, ok := statBounds(st, col, field.Type)
		if !ok {
			continue
		}
		lower = append(lower, iceberg.ColumnBound{ID: id, Value: lo})
		upper = append(upper, iceberg.ColumnBound{ID: id, Value: hi})
	}
	// Columns come in file order, not by id; should two carry one id, the
	// later wins, as it did when these were maps.
	m := expr.Metrics{RecordCount: rg.NumRows(),
		ValueCounts: iceberg.NewColumnCounts(values), NullCounts: iceberg.NewColumnCounts(nulls),
		Lower: iceberg.NewColumnBounds(lower), Upper: iceberg.NewColumnBounds(upper)}
	ok, err := p.eval.EvalMetrics(m)
	return err != nil || ok
}

// statBounds encodes a column chunk's min and max in Iceberg's
// single-value form, for the types whose Parquet order is Iceberg's.
func statBounds(st metadata.TypedStatistics, col *schema.Column, t iceberg.Type) ([]byte, []byte, bool) {
	enc := func(lo, hi any) ([]byte, []byte, bool) {
		l, err1 := iceberg.EncodeValue(t, lo)
		h, err2 := iceberg.EncodeValue(t, hi)
		return l, h, err1 == nil && err2 == nil
	}
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		switch t.(type) {
		case iceberg.IntType, iceberg.DateType:
			if col.SortOrder() == schema.SortSIGNED {
				return enc(s.Min(), s.Max())
			}
		}
	case *metadata.Int64Statistics:
		switch t.(type) {
		case iceberg.LongType:
			if col.SortOrder() == schema.SortSIGNED {
				return enc(s.Min(), s.Max())
			}
		case iceberg.TimestampType, iceberg.TimestampTzType, iceberg.TimeType:
			// Only microsecond columns are in Iceberg's unit.
			if ts, ok := col.LogicalType().(interface{ TimeUnit() schema.TimeUnitType }); ok && ts.TimeUnit() == schema.TimeUnitMicros {
				return enc(s.Min(), s.Max())
			}
		}
	case *metadata.Float32Statistics:
		if _, ok := t.(iceberg.FloatType); ok {
			return enc(s.Min(), s.Max())
		}
	case *metadata.Float64Statistics:
		if _, ok := t.(iceberg.DoubleType); ok {
			return enc(s.Min(), s.Max())
		}
	case *metadata.ByteArrayStatistics:
		switch t.(type) {
		case iceberg.StringType, iceberg.BinaryType:
			// Unsigned byte order is Iceberg's for both.
			if col.SortOrder() == schema.SortUNSIGNED {
				return append([]byte(nil), s.Min()...), append([]byte(nil), s.Max()...), true
			}
		}
	}
	return nil, nil, false
}
