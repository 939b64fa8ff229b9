package planner

import (
	"testing"

	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

func TestSplitTask(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	parquet := func(size int64) *iceflightv1.Task {
		return &iceflightv1.Task{Path: "f", Format: iceflightv1.FileFormat_FILE_FORMAT_PARQUET, FileSize: size, RecordCount: 1000}
	}
	cases := []struct {
		name    string
		task    *iceflightv1.Task
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
			&iceflightv1.Task{Format: iceflightv1.FileFormat_FILE_FORMAT_AVRO, FileSize: 300 * mb}, []int64{4, 100 * mb}, 50 * mb, nil},
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
	task := &iceflightv1.Task{
		Path: "s3://b/f.parquet", FilePath: "f.parquet", Format: iceflightv1.FileFormat_FILE_FORMAT_PARQUET,
		FileSize: 300, RecordCount: 30,
		Constants: []*iceflightv1.PartitionConstant{{FieldId: 3}},
		SpecId:    2, DataSequenceNumber: 5, FileSequenceNumber: 6, FirstRowId: &first,
		Deletes:       []*iceflightv1.DeleteFile{{Path: "d.parquet"}},
		PartitionJson: `{"k":1}`,
		ResidualJson:  `{"type":"gt","term":"x","value":1}`,
		ResidualIndex: 1,
	}
	// row_groups is not set before a file is split.
	ranged := map[string]bool{"start": true, "length": true, "record_count": true, "row_groups": true}
	want := task.ProtoReflect()
	splits := splitTask(task, []int64{4, 100, 200}, 50)
	if len(splits) < 2 {
		t.Fatalf("%d tasks, want the file split", len(splits))
	}
	for _, got := range splits {
		fields := want.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if ranged[string(fd.Name())] {
				continue
			}
			if !want.Has(fd) {
				t.Fatalf("the test task leaves %s unset: set it so that the test checks it", fd.Name())
			}
			if !got.ProtoReflect().Get(fd).Equal(want.Get(fd)) {
				t.Errorf("range %d+%d: %s = %v, want the file's %v", got.Start, got.Length, fd.Name(), got.ProtoReflect().Get(fd), want.Get(fd))
			}
		}
	}
}
