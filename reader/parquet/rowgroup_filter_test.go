package parquet

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// keptRowGroups runs the row group pruner of filter over every row group
// of a Parquet file.
func keptRowGroups(t *testing.T, data []byte, schema *iceberg.Schema, filter string) []int {
	t.Helper()
	e, err := expr.Parse(filter)
	if err != nil {
		t.Fatalf("parse %q: %v", filter, err)
	}
	if e, err = expr.Bind(e, schema, true); err != nil {
		t.Fatalf("bind %q: %v", filter, err)
	}
	p := NewPruner(expr.RewriteNot(e), schema)
	if p == nil {
		t.Fatalf("%q: no pruner", filter)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	var kept []int
	for g := range pf.NumRowGroups() {
		if p.MayMatch(pf.MetaData().RowGroup(g)) {
			kept = append(kept, g)
		}
	}
	return kept
}

// The truth here is the data written: a row group is kept exactly when
// one of its rows matches, for filters whose match set is a range.
func TestRowGroupPrunerUsesStatistics(t *testing.T) {
	t.Parallel()
	// Column i (id 1) holds 0..999 in row groups of 100 rows.
	seq := seqFile(t, 1000, 100)
	seqSchema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "i", Type: iceberg.LongType{}})

	// Columns b (id 2) then a (id 1), in that file order: b = n, a = 999-n,
	// in row groups of 100 rows.
	two := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(2)},
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Metadata: fid(1)},
	}, nil)
	var sb strings.Builder
	sb.WriteString("[")
	for n := range 1000 {
		if n > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"b":` + strconv.Itoa(n) + `,"a":` + strconv.Itoa(999-n) + `}`)
	}
	sb.WriteString("]")
	twoData := writeParquet(t, two, sb.String(), 100)
	twoSchema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "a", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 2, Name: "b", Type: iceberg.LongType{}},
	)

	cases := []struct {
		name   string
		data   []byte
		schema *iceberg.Schema
		filter string
		want   []int
	}{
		{"a range below a group's lower bound skips it", seq, seqSchema, "i < 100", []int{0}},
		{"a range above a group's upper bound skips it", seq, seqSchema, "i >= 950", []int{9}},
		{"equality keeps the one group within bounds", seq, seqSchema, "i = 450", []int{4}},
		{"is null skips groups with a null count of 0", seq, seqSchema, "i IS NULL", nil},
		{"a filter every row matches keeps every group", seq, seqSchema, "i > -1", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"columns out of id order: the first column's bounds", twoData, twoSchema, "b < 150", []int{0, 1}},
		{"columns out of id order: the second column's bounds", twoData, twoSchema, "a < 150", []int{8, 9}},
		{"columns out of id order: both columns", twoData, twoSchema, "a < 850 AND b < 250", []int{1, 2}},
	}
	for _, tc := range cases {
		got := keptRowGroups(t, tc.data, tc.schema, tc.filter)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q kept row groups %v, want %v", tc.name, tc.filter, got, tc.want)
		}
	}
}
