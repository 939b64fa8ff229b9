package planner

import (
	"reflect"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

func TestSplitTask(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	parquet := func(size int64) *scantask.Task {
		return &scantask.Task{Path: "f", Format: scantask.Parquet, FileSize: size, RecordCount: 1000}
	}
	cases := []struct {
		name    string
		task    *scantask.Task
		offsets []int64
		target  int64
		ranges  [][2]int64 // start, length; nil means the task is kept whole
	}{
		{"a file below the target stays whole", parquet(10 * mb), []int64{4, 5 * mb}, 64 * mb, nil},
		{"a file without offsets stays whole", parquet(300 * mb), nil, 64 * mb, nil},
		{"row groups are grouped up to the target",
			parquet(400 * mb), []int64{4, 100 * mb, 200 * mb, 300 * mb}, 150 * mb,
			[][2]int64{{4, 200*mb - 4}, {200 * mb, 200 * mb}}},
		{"one range per row group when each reaches the target",
			parquet(300 * mb), []int64{4, 100 * mb, 200 * mb}, 50 * mb,
			[][2]int64{{4, 100*mb - 4}, {100 * mb, 100 * mb}, {200 * mb, 100 * mb}}},
		{"descending offsets are not trusted", parquet(300 * mb), []int64{4, 200 * mb, 100 * mb}, 50 * mb, nil},
		{"offsets past the end are not trusted", parquet(300 * mb), []int64{4, 400 * mb}, 50 * mb, nil},
		{"avro files are never split",
			&scantask.Task{Format: scantask.Avro, FileSize: 300 * mb}, []int64{4, 100 * mb}, 50 * mb, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := splitTask(tc.task, tc.offsets, tc.target)
			if tc.ranges == nil {
				if len(got) != 1 || got[0] != tc.task {
					t.Fatalf("split into %d tasks, want the task whole", len(got))
				}
				return
			}
			if len(got) != len(tc.ranges) {
				t.Fatalf("%d splits, want %d", len(got), len(tc.ranges))
			}
			var records int64
			for i, r := range tc.ranges {
				if got[i].Start != r[0] || got[i].Length != r[1] {
					t.Errorf("split %d is [%d, +%d), want [%d, +%d)", i, got[i].Start, got[i].Length, r[0], r[1])
				}
				records += got[i].RecordCount
			}
			if records != tc.task.RecordCount {
				t.Errorf("split record estimates add up to %d, want %d", records, tc.task.RecordCount)
			}
		})
	}
}

// A range of a file is the same task over fewer bytes: every field but the
// range and the record estimate is the file's (a lost residual served the
// split file's rows unfiltered).
func TestSplitTaskKeepsEveryFieldOfTheFile(t *testing.T) {
	t.Parallel()
	first := int64(7)
	task := &scantask.Task{
		Path: "s3://b/f.parquet", FilePath: "f.parquet", Format: scantask.Parquet,
		FileSize: 300, RecordCount: 30,
		Constants: []*scantask.PartitionConstant{{FieldID: 3}},
		SpecID:    2, DataSequenceNumber: 5, FileSequenceNumber: 6, FirstRowID: &first,
		Deletes:       []*scantask.DeleteFile{{Path: "d.parquet"}},
		PartitionJSON: `{"k":1}`,
		Residual:      &scantask.Residual{Expr: expr.GreaterThan("x", 1)},
		File:          &iceberg.DataFile{Path: "f.parquet"},
	}
	// RowGroups is not set before a file is split.
	ranged := map[string]bool{"Start": true, "Length": true, "RecordCount": true, "RowGroups": true}
	want := reflect.ValueOf(task).Elem()
	splits := splitTask(task, []int64{4, 100, 200}, 50)
	if len(splits) < 2 {
		t.Fatalf("%d tasks, want the file split", len(splits))
	}
	for _, got := range splits {
		for i := range want.NumField() {
			name := want.Type().Field(i).Name
			if ranged[name] {
				continue
			}
			if want.Field(i).IsZero() {
				t.Fatalf("the test task leaves %s unset: set it so that the test checks it", name)
			}
			if g := reflect.ValueOf(got).Elem().Field(i); !reflect.DeepEqual(g.Interface(), want.Field(i).Interface()) {
				t.Errorf("range %d+%d: %s = %v, want the file's %v", got.Start, got.Length, name, g.Interface(), want.Field(i).Interface())
			}
		}
	}
}
