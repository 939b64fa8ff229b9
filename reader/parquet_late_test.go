package reader

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// lateFile writes rows rows of an ascending id, a string of few values, a
// float with nulls, a bool and nested columns (appendNested), in row
// groups of group rows, with props.
func lateFile(t *testing.T, rows, group int, props ...parquet.WriterProperty) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(2)},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true, Metadata: fid(3)},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Metadata: fid(4)},
		{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: fid(6)},
			arrow.Field{Name: "tags", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: fid(8)}), Nullable: true, Metadata: fid(7)},
		), Nullable: true, Metadata: fid(5)},
		{Name: "m", Type: arrow.MapOfWithMetadata(arrow.BinaryTypes.String, fid(10), arrow.PrimitiveTypes.Int64, fid(11)), Nullable: true, Metadata: fid(9)},
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
		appendNested(b.Field(4).(*array.StructBuilder), b.Field(5).(*array.MapBuilder), i)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	props = append(props, parquet.WithMaxRowGroupLength(int64(group)))
	return testutil.WriteParquet(t, rec, parquet.NewWriterProperties(props...))
}

// appendNested appends row i of the nested columns: a struct, null every
// eleventh row, of an int and a list of 0 to 3 strings (every fifth one
// null); a map of 0 to 2 entries.
func appendNested(st *array.StructBuilder, m *array.MapBuilder, i int) {
	if i%11 == 5 {
		st.AppendNull()
	} else {
		st.Append(true)
		st.FieldBuilder(0).(*array.Int32Builder).Append(int32(i % 100))
		tags := st.FieldBuilder(1).(*array.ListBuilder)
		tags.Append(true)
		for k := range i % 4 {
			if (i+k)%5 == 0 {
				tags.ValueBuilder().AppendNull()
			} else {
				tags.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d", (i+k)%9))
			}
		}
	}
	m.Append(true)
	for k := range i % 3 {
		m.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", k))
		m.ItemBuilder().(*array.Int64Builder).Append(int64(i * k))
	}
}

// TestLateMaterialisation reads residual filters with the filter's
// columns decoded first and the other columns stepped over in batches no
// row passes, and wants the rows, row positions included, that a read
// with pqarrow alone (which decodes everything) gives.
func TestLateMaterialisation(t *testing.T) {
	t.Parallel()
	files := memIO{
		"data.parquet": lateFile(t, 20_000, 7_000),
		// Pages of a few hundred rows, with a page index.
		"indexed.parquet": lateFile(t, 20_000, 7_000, parquet.WithPageIndexEnabled(true),
			parquet.WithDataPageSize(2048), parquet.WithBatchSize(200)),
	}
	schema := schemaOf(t, `[
		{"id":1,"name":"id","type":"long","required":true},
		{"id":2,"name":"name","type":"string","required":false},
		{"id":3,"name":"score","type":"double","required":false},
		{"id":4,"name":"flag","type":"boolean","required":true},
		{"id":5,"name":"st","required":false,"type":{"type":"struct","fields":[
			{"id":6,"name":"a","type":"int","required":false},
			{"id":7,"name":"tags","required":false,"type":{"type":"list","element-id":8,"element":"string","element-required":false}}]}},
		{"id":9,"name":"m","required":false,"type":{"type":"map","key-id":10,"key":"string","value-id":11,"value":"long","value-required":false}}]`)
	// Only the struct's list: pqcodec reads the struct in part.
	tagsOnly := schemaOf(t, `[
		{"id":1,"name":"id","type":"long","required":true},
		{"id":5,"name":"st","required":false,"type":{"type":"struct","fields":[
			{"id":7,"name":"tags","required":false,"type":{"type":"list","element-id":8,"element":"string","element-required":false}}]}}]`)
	withPos := iceberg.NewSchema(0, append(append([]iceberg.NestedField{}, schema.Fields...), metadataField(t, "_pos"))...)
	tests := []struct {
		name    string
		filter  string
		project *iceberg.Schema
		skips   bool // whether some batch must be stepped over
		pages   bool // whether the page index must rule out some page
	}{
		{"a narrow range skips every batch outside it", "id >= 15500 AND id < 15700", withPos, true, true},
		{"no row passes, though the statistics allow some", "name = 'n10x'", schema, true, false},
		{"every row passes", "id >= 0", schema, false, false},
		{"a filter on a column that is also projected late", "score > 4000.0", withPos, true, true},
		{"a scattered filter leaves no batch to skip", "name = 'n7'", schema, false, false},
		{"nulls of the filter column", "score IS NULL AND id > 19000", withPos, true, true},
		{"a filter column outside the projection", "flag = true AND id < 900", iceberg.NewSchema(0, schema.Fields[1]), true, true},
		{"either of two ranges", "id < 300 OR (id > 12000 AND id <= 12010)", withPos, true, true},
		{"a page range and a string", "id > 18000 AND name = 'n3'", withPos, true, true},
		{"a filter on a struct's field", "st.a = 42 AND id < 5000", withPos, true, true},
		{"part of a struct, a range", "id >= 3000 AND id < 3100", tagsOnly, true, true},
		// The filter's part of the struct is a plan of its own.
		{"part of a struct, filtered by another part", "st.a = 42 AND id > 15000", tagsOnly, true, true},
	}
	for _, tc := range tests {
		for _, path := range []string{"data.parquet", "indexed.parquet"} {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				checkLateRead(t, files, schema, path, tc.filter, tc.project, tc.skips, tc.pages && path == "indexed.parquet")
			})
		}
	}
}

// checkLateRead reads path through filter with pqcodec and with pqarrow
// alone, which must agree, and checks what pqcodec's read skipped.
func checkLateRead(t *testing.T, files memIO, schema *iceberg.Schema, path, filter string, project *iceberg.Schema, skips, pages bool) {
	t.Helper()
	task := &scantask.Task{Path: path, Format: scantask.Parquet,
		Residual: residualOf(t, residualJSON(t, schema, filter))}
	scan := Scan{Schema: project, FilterSchema: schema}
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
	st := late.Stats()
	if pages != (st.RowsSkippedByPageIndex > 0) {
		t.Errorf("%d rows skipped by the page index, want some: %v", st.RowsSkippedByPageIndex, pages)
	}
	if skipped := st.RowsSkippedLate + st.RowsSkippedByPageIndex; skips != (skipped > 0) {
		t.Errorf("%d rows skipped late and by the page index, want some: %v", skipped, skips)
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
