package reader

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/testutil"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// lateFile writes rows rows of an ascending id, a string of few values, a
// float with nulls and a bool, in row groups of group rows.
func lateFile(t *testing.T, rows, group int) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(2)},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: fid(3)},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Metadata: fid(4)},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i%13))
		if i%7 == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(i) / 4)
		}
		b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeRecord(t, rec, int64(group))
}

// TestLateMaterialisation reads residual filters with the filter's
// columns decoded first and the other columns stepped over in batches no
// row passes, and wants the rows, row positions included, that a read
// with pqarrow alone (which decodes everything) gives.
func TestLateMaterialisation(t *testing.T) {
	t.Parallel()
	files := memIO{"data.parquet": lateFile(t, 20_000, 7_000)}
	schema := schemaOf(t, `[
		{"id":1,"name":"id","type":"long","required":true},
		{"id":2,"name":"name","type":"string","required":false},
		{"id":3,"name":"score","type":"double","required":false},
		{"id":4,"name":"flag","type":"boolean","required":true}]`)
	withPos := iceberg.NewSchema(0, append(append([]iceberg.NestedField{}, schema.Fields...), metadataField(t, "_pos"))...)
	tests := []struct {
		name    string
		filter  string
		project *iceberg.Schema
		skips   bool // whether some batch must be stepped over
	}{
		{"a narrow range skips every batch outside it", "id >= 15500 AND id < 15700", withPos, true},
		{"no row passes, though the statistics allow some", "name = 'n10x'", schema, true},
		{"every row passes", "id >= 0", schema, false},
		{"a filter on a column that is also projected late", "score > 4000.0", withPos, true},
		{"a scattered filter leaves no batch to skip", "name = 'n7'", schema, false},
		{"nulls of the filter column", "score IS NULL AND id > 19000", withPos, true},
		{"a filter column outside the projection", "flag = true AND id < 900", iceberg.NewSchema(0, schema.Fields[1]), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			task := &iceflightv1.Task{Path: "data.parquet", Format: iceflightv1.FileFormat_FILE_FORMAT_PARQUET,
				ResidualJson: residualJSON(t, schema, tc.filter)}
			scan := Scan{Schema: tc.project, FilterSchema: schema}
			mem := checkedAlloc(t)
			late := New(files, WithAllocator(mem), WithBatchSize(1000), WithValidation(true))
			got := readAll(t, late, scan, task)
			full := readAll(t, New(files, WithAllocator(mem), WithBatchSize(1000), WithArrowGoDecoder(true)), scan, task)
			if got.err != nil || full.err != nil {
				t.Fatalf("late: %v; pqarrow: %v", got.err, full.err)
			}
			if d := testutil.DiffRows(rowStrings(t, got.rows), rowStrings(t, full.rows)); d != "" {
				t.Errorf("late materialisation reads other rows: %s", d)
			}
			for _, r := range got.rows {
				// Row i of the file holds id i.
				if pos, ok := r["_pos"]; ok && pos != r["id"] {
					t.Fatalf("row %v has position %v", r["id"], pos)
				}
			}
			skipped := late.Stats().RowsSkippedLate
			if tc.skips != (skipped > 0) {
				t.Errorf("%d rows skipped late, want some: %v", skipped, tc.skips)
			}
		})
	}
}

// rowStrings renders rows as sortable strings for DiffRows.
func rowStrings(t *testing.T, rows []map[string]any) []string {
	t.Helper()
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = toJSON(t, r)
	}
	return out
}
