package planner

import (
	"errors"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// A plan that keeps files has one task per data file, however small the
// split size, each with its manifest record, and every delete file with
// its own; a plan that does not keeps none.
func TestKeepFiles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		table func(*testing.T) Table
	}{
		{"files larger than the split size stay whole", func(t *testing.T) Table { return loadSampleTable(t, "trips") }},
		{"position and equality deletes keep their files", func(t *testing.T) Table {
			return loadCorpusTable(t, "apache-impala__iceberg_v2_delete_both_eq_and_pos")
		}},
		{"deletion vectors keep their files", func(t *testing.T) Table { return loadSampleTable(t, "dv_many_files") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tbl := tc.table(t)
			plan, tasks := planTasks(t, New(), tbl, Request{KeepFiles: true, TargetSplitBytes: 1})
			if want := summary(t, plan.Snapshot, "total-data-files"); int64(len(tasks)) != want {
				t.Fatalf("%d tasks, want one per data file (%d)", len(tasks), want)
			}
			mapper, _ := tbl.IO.(Mapper)
			mapped := func(path string) string {
				if mapper == nil {
					return path
				}
				return mapper.Map(path)
			}
			deletes := 0
			for _, task := range tasks {
				if task.File == nil || mapped(task.File.Path) != task.Path || task.File.RecordCount != task.RecordCount || task.Length != 0 {
					t.Fatalf("task %s (range %d+%d) keeps file %+v", task.Path, task.Start, task.Length, task.File)
				}
				for _, d := range task.Deletes {
					if d.File == nil || mapped(d.File.Path) != d.Path || d.File.Content == iceberg.FileContentData {
						t.Fatalf("delete file %s keeps %+v", d.Path, d.File)
					}
					deletes++
				}
			}
			if plan.Stats.DeleteFiles > 0 && deletes == 0 {
				t.Fatal("the table's deletes apply to no task")
			}
			_, plain := planTasks(t, New(), tbl, Request{})
			for _, task := range plain {
				if task.File != nil || slices.ContainsFunc(task.Deletes, func(d *scantask.DeleteFile) bool { return d.File != nil }) {
					t.Fatalf("task %s of a plan that keeps no files keeps one", task.Path)
				}
			}
		})
	}
}

// The files of a plan keep the metrics of the stats fields and of the
// columns the filter tests, and no others.
func TestStatsFieldsKeepMetrics(t *testing.T) {
	t.Parallel()
	tbl := loadSampleTable(t, "trips") // id 1, vendor 2, fare 3, passengers 4, pickup 5, note 6
	filter, err := ParseFilter("id > 5")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		req    Request
		fields []int // Plan.StatsFields
		want   []int // columns with metrics
	}{
		{"no stats fields and no filter keep none", Request{CaseSensitive: true}, nil, nil},
		{"the filter's columns", Request{Filter: filter, CaseSensitive: true}, nil, []int{1}},
		{"stats fields", Request{StatsFields: []string{"fare", "pickup"}, CaseSensitive: true}, []int{3, 5}, []int{3, 5}},
		{"stats fields and the filter's columns", Request{Filter: filter, StatsFields: []string{"note"}, CaseSensitive: true}, []int{6}, []int{1, 6}},
		{"stats fields without case sensitivity", Request{StatsFields: []string{"FARE"}}, []int{3}, []int{3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := tc.req
			req.KeepFiles = true
			plan, tasks := planTasks(t, New(), tbl, req)
			if !slices.Equal(plan.StatsFields, tc.fields) {
				t.Errorf("Plan.StatsFields = %v, want %v", plan.StatsFields, tc.fields)
			}
			for _, task := range tasks {
				var got []int
				for _, c := range task.File.ValueCounts {
					got = append(got, c.ID)
				}
				for _, b := range task.File.LowerBounds {
					if !slices.Contains(got, b.ID) {
						t.Errorf("%s: a lower bound of column %d without its value count", task.Path, b.ID)
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: metrics of columns %v, want %v", task.Path, got, tc.want)
				}
			}
		})
	}
	if _, err := New().Plan(t.Context(), tbl, Request{StatsFields: []string{"fares"}, CaseSensitive: true}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("an unknown stats field: %v, want %v", err, ErrInvalidRequest)
	}
}

// Stats fields are named as Iceberg Java's Schema.findField names fields:
// dotted through structs, lists by "element", maps by "key" and "value",
// and struct members of list elements and map values by short names too.
func TestStatsFieldNames(t *testing.T) {
	t.Parallel()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: 2, Name: "loc", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 3, Name: "lat", Type: iceberg.DoubleType{}},
			{ID: 4, Name: "Lon", Type: iceberg.DoubleType{}},
		}}},
		iceberg.NestedField{ID: 5, Name: "points", Type: &iceberg.ListType{ElementID: 6, Element: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 7, Name: "x", Type: iceberg.IntType{}},
		}}}},
		iceberg.NestedField{ID: 8, Name: "m", Type: &iceberg.MapType{KeyID: 9, Key: iceberg.StringType{}, ValueID: 10, Value: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 11, Name: "v", Type: iceberg.IntType{}},
		}}}},
		iceberg.NestedField{ID: 12, Name: "a.b", Type: iceberg.IntType{}},
		iceberg.NestedField{ID: 13, Name: "ID", Type: iceberg.IntType{}},
	)
	cases := []struct {
		name          string
		caseSensitive bool
		want          int // 0: an ErrInvalidRequest
	}{
		{"id", true, 1},
		{"loc", true, 2},
		{"loc.lat", true, 3},
		{"loc.Lon", true, 4},
		{"loc.lon", true, 0},
		{"loc.lon", false, 4},
		{"points.element", true, 6},
		{"points.element.x", true, 7},
		{"points.x", true, 7},
		{"m.key", true, 9},
		{"m.value", true, 10},
		{"m.value.v", true, 11},
		{"m.v", true, 11},
		{"a.b", true, 12},
		{"Id", false, 0}, // id and ID
		{"ID", false, 13},
		{"nope", false, 0},
	}
	for _, tc := range cases {
		got, err := statsFieldIDs(schema, []string{tc.name}, tc.caseSensitive)
		switch {
		case tc.want == 0 && !errors.Is(err, ErrInvalidRequest):
			t.Errorf("%q (case sensitive %v): %v, %v; want %v", tc.name, tc.caseSensitive, got, err, ErrInvalidRequest)
		case tc.want != 0 && (err != nil || len(got) != 1 || got[0] != tc.want):
			t.Errorf("%q (case sensitive %v): %v, %v; want field %d", tc.name, tc.caseSensitive, got, err, tc.want)
		}
	}
}
