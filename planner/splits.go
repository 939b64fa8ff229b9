package planner

import "github.com/iceflight/iceflight/iceberg/scantask"

// DefaultTargetSplitBytes is the split size when a request sets none, as
// Iceberg's read.split.target-size defaults.
const DefaultTargetSplitBytes = 128 << 20

// splitTask cuts a data file's task into byte ranges of about target bytes
// along its split offsets (row group or stripe starts), so one large file
// is read by several endpoints in parallel. A reader keeps the row groups
// whose midpoint falls in a task's range, so the ranges need not match row
// groups exactly for every row to be read once.
//
// Files without usable offsets, and Avro files (which the reader streams
// whole), stay one task.
func splitTask(t *Task, offsets []int64, target int64) []*Task {
	if target <= 0 || t.FileSize <= target || len(offsets) < 2 || t.Format == scantask.Avro {
		return []*Task{t}
	}
	if !validOffsets(offsets, t.FileSize) {
		return []*Task{t}
	}
	var out []*Task
	start := offsets[0]
	for i := 1; i <= len(offsets); i++ {
		end := t.FileSize
		if i < len(offsets) {
			end = offsets[i]
			if end-start < target {
				continue
			}
		}
		out = append(out, rangeTask(t, start, end-start))
		start = end
	}
	if len(out) == 1 {
		return []*Task{t}
	}
	// The first range starts at the first offset, after the file header;
	// the last ends at the file's end, over the footer. Record counts are
	// estimates in proportion to bytes.
	var assigned int64
	for i, s := range out {
		if i == len(out)-1 {
			s.RecordCount = t.RecordCount - assigned
			break
		}
		s.RecordCount = t.RecordCount * s.Length / (t.FileSize - offsets[0])
		assigned += s.RecordCount
	}
	return out
}

func rangeTask(t *Task, start, length int64) *Task {
	s := &scantask.Task{
		Path: t.Path, FilePath: t.FilePath, Format: t.Format, FileSize: t.FileSize,
		Start: start, Length: length,
		Constants: t.Constants, SpecID: t.SpecID,
		DataSequenceNumber: t.DataSequenceNumber, FileSequenceNumber: t.FileSequenceNumber,
		FirstRowID: t.FirstRowID, Deletes: t.Deletes, PartitionJSON: t.PartitionJSON,
		Residual: t.Residual, File: t.File,
	}
	return s
}

// validOffsets reports whether split offsets are ascending and inside the
// file; writers have recorded bad ones, and a bad split would lose rows.
func validOffsets(offsets []int64, size int64) bool {
	for i, o := range offsets {
		if o < 0 || o >= size || (i > 0 && o <= offsets[i-1]) {
			return false
		}
	}
	return true
}
