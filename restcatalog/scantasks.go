package restcatalog

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// This file turns a planned scan's tasks into the ScanTasks object that
// planTableScan and fetchScanTasks answer with (REST catalog OpenAPI:
// ScanTasks, FileScanTask, DataFile, PositionDeleteFile,
// EqualityDeleteFile). Where the OpenAPI document leaves a form open, the
// JSON is what Iceberg Java 1.12's ContentFileParser writes and reads,
// since the Java client is the one that reads every field.

// scanTasks is the ScanTasks object of the REST catalog API.
type scanTasks struct {
	DeleteFiles   []json.RawMessage `json:"delete-files,omitempty"`
	FileScanTasks []json.RawMessage `json:"file-scan-tasks,omitempty"`
	PlanTasks     []string          `json:"plan-tasks,omitempty"`
}

// errFilesNotKept reports tasks planned without their files
// (planner.Request.KeepFiles), which a ScanTasks object describes.
var errFilesNotKept = errors.New("scan tasks without their files: plan with KeepFiles")

// newScanTasks describes tasks, planned with KeepFiles from the table of
// md, as a ScanTasks object: one file scan task per task, each data file
// with the column metrics of the field ids in stats, and each delete file
// the tasks name listed once and referenced by its index.
func newScanTasks(md *iceberg.TableMetadata, tasks []*scantask.Task, stats []int) (*scanTasks, error) {
	w := &scanTaskWriter{
		partitionTypes: partitionTypes(md),
		stats:          stats,
		deleteIndex:    map[deleteKey]int{},
		residuals:      map[*scantask.Residual]json.RawMessage{},
	}
	out := &scanTasks{FileScanTasks: make([]json.RawMessage, 0, len(tasks))}
	for _, task := range tasks {
		b, err := w.fileScanTask(task, &out.DeleteFiles)
		if err != nil {
			return nil, fmt.Errorf("data file %s: %w", task.Path, err)
		}
		out.FileScanTasks = append(out.FileScanTasks, b)
	}
	return out, nil
}

// scanTaskWriter holds what the tasks of one ScanTasks object share.
type scanTaskWriter struct {
	// partitionTypes are the partition tuple types by spec id.
	partitionTypes map[int]*iceberg.StructType
	// stats are the field ids whose metrics data files carry.
	stats []int
	// deleteIndex places each delete file already listed.
	deleteIndex map[deleteKey]int
	// residuals holds each residual's JSON once: tasks share residuals,
	// and one may be a filter of megabytes.
	residuals map[*scantask.Residual]json.RawMessage
}

// deleteKey tells delete files apart: the deletion vectors of many data
// files share one Puffin file, each at its own offset.
type deleteKey struct {
	path         string
	offset, size int64
}

// fileScanTask is the FileScanTask object of the REST catalog API.
type fileScanTask struct {
	DataFile             json.RawMessage `json:"data-file"`
	DeleteFileReferences []int           `json:"delete-file-references,omitempty"`
	// ResidualFilter is always written, true when every row matches. The
	// spec lets a server leave it out (the client then applies the scan's
	// filter), but Iceberg Java 1.12 then fails on the task's residual
	// when its spec is partitioned, and Java's own server always writes
	// one.
	ResidualFilter json.RawMessage `json:"residual-filter"`
}

// matchesAll is the residual of a task whose rows all match.
var matchesAll = json.RawMessage("true")

// fileScanTask describes task, appending the delete files it names that
// are not yet listed to deletes.
func (w *scanTaskWriter) fileScanTask(task *scantask.Task, deletes *[]json.RawMessage) (json.RawMessage, error) {
	if task.File == nil {
		return nil, errFilesNotKept
	}
	data, err := w.contentFile(task.File, int(task.SpecID))
	if err != nil {
		return nil, err
	}
	out := fileScanTask{DataFile: data, ResidualFilter: matchesAll}
	for _, d := range task.Deletes {
		if d.File == nil {
			return nil, fmt.Errorf("delete file %s: %w", d.Path, errFilesNotKept)
		}
		key := deleteKey{d.File.Path, d.ContentOffset, d.ContentSize}
		i, ok := w.deleteIndex[key]
		if !ok {
			b, err := w.contentFile(d.File, int(d.SpecID))
			if err != nil {
				return nil, fmt.Errorf("delete file %s: %w", d.File.Path, err)
			}
			i = len(*deletes)
			*deletes = append(*deletes, b)
			w.deleteIndex[key] = i
		}
		if !slices.Contains(out.DeleteFileReferences, i) {
			out.DeleteFileReferences = append(out.DeleteFileReferences, i)
		}
	}
	if r := task.Residual; r != nil {
		b, ok := w.residuals[r]
		if !ok {
			if b, err = json.Marshal(r.Expr); err != nil {
				return nil, fmt.Errorf("residual filter: %w", err)
			}
			w.residuals[r] = b
		}
		out.ResidualFilter = b
	}
	return json.Marshal(out)
}

// contentFile is the ContentFile object of the REST catalog API, with the
// fields of DataFile, PositionDeleteFile and EqualityDeleteFile.
type contentFile struct {
	SpecID          int               `json:"spec-id"`
	Content         string            `json:"content"`
	FilePath        string            `json:"file-path"`
	FileFormat      string            `json:"file-format"`
	Partition       []json.RawMessage `json:"partition"`
	FileSizeInBytes int64             `json:"file-size-in-bytes"`
	RecordCount     int64             `json:"record-count"`
	KeyMetadata     string            `json:"key-metadata,omitempty"`
	SplitOffsets    []int64           `json:"split-offsets,omitempty"`
	SortOrderID     *int              `json:"sort-order-id,omitempty"`

	FirstRowID      *int64    `json:"first-row-id,omitempty"`
	ColumnSizes     *countMap `json:"column-sizes,omitempty"`
	ValueCounts     *countMap `json:"value-counts,omitempty"`
	NullValueCounts *countMap `json:"null-value-counts,omitempty"`
	NaNValueCounts  *countMap `json:"nan-value-counts,omitempty"`
	LowerBounds     *valueMap `json:"lower-bounds,omitempty"`
	UpperBounds     *valueMap `json:"upper-bounds,omitempty"`

	EqualityIDs []int `json:"equality-ids,omitempty"`
	// Java's ContentFileParser writes and reads the data file a position
	// delete file or deletion vector applies to, which the OpenAPI
	// document does not name yet.
	ReferencedDataFile string `json:"referenced-data-file,omitempty"`
	ContentOffset      *int64 `json:"content-offset,omitempty"`
	ContentSizeInBytes *int64 `json:"content-size-in-bytes,omitempty"`
}

// fileContents are the names of file contents in the REST catalog API.
var fileContents = map[iceberg.FileContent]string{
	iceberg.FileContentData:            "data",
	iceberg.FileContentPositionDeletes: "position-deletes",
	iceberg.FileContentEqualityDeletes: "equality-deletes",
}

// contentFile describes a data or delete file of the partition spec
// specID.
func (w *scanTaskWriter) contentFile(df *iceberg.DataFile, specID int) (json.RawMessage, error) {
	content := df.Content
	name, ok := fileContents[content]
	if !ok {
		return nil, fmt.Errorf("%w: file content %v", iceberg.ErrInvalidMetadata, content)
	}
	partition, err := w.partition(df.Partition, specID)
	if err != nil {
		return nil, err
	}
	out := contentFile{
		SpecID:          specID,
		Content:         name,
		FilePath:        df.Path,
		FileFormat:      strings.ToLower(df.Format),
		Partition:       partition,
		FileSizeInBytes: df.FileSize,
		RecordCount:     df.RecordCount,
		SplitOffsets:    df.SplitOffsets,
		SortOrderID:     df.SortOrderID,
	}
	if df.KeyMetadata != nil {
		out.KeyMetadata = upperHex(df.KeyMetadata)
	}
	// A data file carries the metrics of the stats fields; a delete file
	// those Java's planning keeps of it: a position delete file's of
	// file_path, whose bounds tell the data files it may touch, an
	// equality delete file's of its equality columns.
	keep := func(id int) bool { return slices.Contains(w.stats, id) }
	switch content {
	case iceberg.FileContentPositionDeletes:
		keep = func(id int) bool { return id == iceberg.FieldIDDeleteFilePath }
	case iceberg.FileContentEqualityDeletes:
		keep = func(id int) bool { return slices.Contains(df.EqualityIDs, id) }
	}
	out.ColumnSizes = counts(df.ColumnSizes, keep)
	out.ValueCounts = counts(df.ValueCounts, keep)
	out.NullValueCounts = counts(df.NullValueCounts, keep)
	out.NaNValueCounts = counts(df.NaNValueCounts, keep)
	out.LowerBounds = bounds(df.LowerBounds, keep)
	out.UpperBounds = bounds(df.UpperBounds, keep)
	switch content {
	case iceberg.FileContentData:
		out.FirstRowID = df.FirstRowID
	case iceberg.FileContentEqualityDeletes:
		out.EqualityIDs = df.EqualityIDs
	case iceberg.FileContentPositionDeletes:
		out.ReferencedDataFile = df.ReferencedDataFile
		out.ContentOffset = df.ContentOffset
		out.ContentSizeInBytes = df.ContentSizeInBytes
	}
	return json.Marshal(out)
}

// partition writes a partition tuple as the spec's values in field order,
// each in the JSON single-value form of the field's result type.
func (w *scanTaskWriter) partition(values []any, specID int) ([]json.RawMessage, error) {
	pt, ok := w.partitionTypes[specID]
	if !ok {
		return nil, fmt.Errorf("%w: partition spec %d not in table metadata", iceberg.ErrInvalidMetadata, specID)
	}
	if len(values) != len(pt.Fields) {
		return nil, fmt.Errorf("%w: %d partition values for the %d fields of partition spec %d", iceberg.ErrInvalidMetadata, len(values), len(pt.Fields), specID)
	}
	out := make([]json.RawMessage, len(values))
	for i, f := range pt.Fields {
		b, err := iceberg.FormatJSONValue(f.Type, values[i])
		if err != nil {
			return nil, fmt.Errorf("partition field %s: %w", f.Name, err)
		}
		out[i] = b
	}
	return out, nil
}

// partitionTypes returns the partition tuple type of each of md's specs by
// spec id. A field's source column may have been dropped since; its type
// is then found in the older schemas, as the planner reads the tuples.
func partitionTypes(md *iceberg.TableMetadata) map[int]*iceberg.StructType {
	byField := map[int]iceberg.Type{}
	for _, f := range md.PartitionUnionType().Fields {
		byField[f.ID] = f.Type
	}
	out := make(map[int]*iceberg.StructType, len(md.Specs))
	for _, spec := range md.Specs {
		pt := spec.PartitionType(md.CurrentSchema())
		for i := range pt.Fields {
			if _, unknown := pt.Fields[i].Type.(iceberg.UnknownType); unknown {
				pt.Fields[i].Type = byField[pt.Fields[i].ID]
			}
		}
		out[spec.ID] = pt
	}
	return out
}

// countMap is the CountMap object of the REST catalog API: counts by
// field id, in two arrays.
type countMap struct {
	Keys   []int   `json:"keys"`
	Values []int64 `json:"values"`
}

// valueMap is the ValueMap object of the REST catalog API. Its values are
// the bounds' single-value binary serializations as upper-case hex, as
// Iceberg Java's ContentFileParser writes them and, reading them as a map
// of binary values, requires: a bound written as its decoded value (the
// OpenAPI example's 100 or "test") fails Java's parser.
type valueMap struct {
	Keys   []int    `json:"keys"`
	Values []string `json:"values"`
}

// counts returns the entries of c whose field ids keep accepts; nil when
// there are none.
func counts(c iceberg.ColumnCounts, keep func(id int) bool) *countMap {
	var out *countMap
	for _, e := range c {
		if !keep(e.ID) {
			continue
		}
		if out == nil {
			out = &countMap{}
		}
		out.Keys = append(out.Keys, e.ID)
		out.Values = append(out.Values, e.Count)
	}
	return out
}

// bounds returns the entries of b whose field ids keep accepts; nil when
// there are none.
func bounds(b iceberg.ColumnBounds, keep func(id int) bool) *valueMap {
	var out *valueMap
	for _, e := range b {
		if !keep(e.ID) {
			continue
		}
		if out == nil {
			out = &valueMap{}
		}
		out.Keys = append(out.Keys, e.ID)
		out.Values = append(out.Values, upperHex(e.Value))
	}
	return out
}

// upperHex writes bytes as the spec's binary JSON form.
func upperHex(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }
