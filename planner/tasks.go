package planner

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

var fileFormats = map[string]iceflightv1.FileFormat{
	"PARQUET": iceflightv1.FileFormat_FILE_FORMAT_PARQUET,
	"AVRO":    iceflightv1.FileFormat_FILE_FORMAT_AVRO,
	"ORC":     iceflightv1.FileFormat_FILE_FORMAT_ORC,
	"PUFFIN":  iceflightv1.FileFormat_FILE_FORMAT_PUFFIN,
}

// tasks turns live files into one task per data file, each carrying the
// delete files that apply to it.
func (p *Planner) tasks(t Table, data, deletes []liveFile, filter *scanFilter, withPartition bool, targetSplit int64, stats *Stats) ([]*iceflightv1.Task, error) {
	mapper, _ := t.IO.(Mapper)
	stats.DeleteFiles = len(deletes)
	index := newDeleteIndex(deletes, mapper)
	var tasks []*iceflightv1.Task
	for i := range data {
		lf := &data[i]
		df := &lf.entry.DataFile
		format, ok := fileFormats[strings.ToUpper(df.Format)]
		if !ok || format == iceflightv1.FileFormat_FILE_FORMAT_PUFFIN {
			return nil, fmt.Errorf("%w: %s data file %s", ErrUnsupported, df.Format, df.Path)
		}
		constants, err := partitionConstants(t.Metadata, lf.spec, df.Partition)
		if err != nil {
			return nil, fmt.Errorf("data file %s: %w", df.Path, err)
		}
		// Only the _partition column reads the tuple: leave it out of
		// tickets otherwise, as it is a large share of a big plan.
		var partJSON string
		if withPartition {
			if partJSON, err = partitionJSON(t.Metadata, lf.spec, df.Partition); err != nil {
				return nil, fmt.Errorf("data file %s: %w", df.Path, err)
			}
		}
		residual, err := filter.residual(lf.spec, df)
		if err != nil {
			return nil, fmt.Errorf("data file %s: %w", df.Path, err)
		}
		path := df.Path
		if mapper != nil {
			path = mapper.Map(path)
		}
		task := &iceflightv1.Task{
			Path:               path,
			FilePath:           recordedIfMapped(df.Path, path),
			Format:             format,
			FileSize:           df.FileSize,
			RecordCount:        df.RecordCount,
			Constants:          constants,
			SpecId:             int32(lf.spec.ID),
			DataSequenceNumber: lf.entry.SequenceNumber,
			FileSequenceNumber: lf.entry.FileSequenceNumber,
			FirstRowId:         df.FirstRowID,
			PartitionJson:      partJSON,
			Deletes:            index.forDataFile(lf),
			ResidualJson:       residual,
		}
		tasks = append(tasks, splitTask(task, df.SplitOffsets, targetSplit)...)
		stats.DataFiles++
		stats.Records += df.RecordCount
		stats.Bytes += df.FileSize
	}
	return tasks, nil
}

// recordedIfMapped returns the recorded path when remapping changed it;
// empty (the reader then uses the path) when it did not, to keep tickets
// small.
func recordedIfMapped(recorded, path string) string {
	if recorded == path {
		return ""
	}
	return recorded
}

// partitionConstants returns the values of identity-partitioned source
// columns, which readers fill in for every row of the file.
func partitionConstants(md *iceberg.TableMetadata, spec iceberg.PartitionSpec, partition []any) ([]*iceflightv1.PartitionConstant, error) {
	var out []*iceflightv1.PartitionConstant
	for i, f := range spec.Fields {
		if _, ok := f.Transform.(iceberg.IdentityTransform); !ok || i >= len(partition) {
			continue
		}
		src, ok := findField(md, f.SourceID)
		if !ok {
			continue
		}
		c := &iceflightv1.PartitionConstant{FieldId: int32(f.SourceID)}
		if v := partition[i]; v != nil {
			b, err := iceberg.EncodeValue(src.Type, v)
			if err != nil {
				return nil, fmt.Errorf("partition field %s: %w", f.Name, err)
			}
			c.Value = b
		}
		out = append(out, c)
	}
	return out, nil
}

// partitionJSON renders the partition tuple as a JSON object keyed by
// partition field name, values in the spec's JSON single-value form, for
// endpoint metadata and the _partition column.
func partitionJSON(md *iceberg.TableMetadata, spec iceberg.PartitionSpec, partition []any) (string, error) {
	if len(spec.Fields) == 0 {
		return "", nil
	}
	pt := partitionType(md, spec)
	m := make(map[string]json.RawMessage, len(spec.Fields))
	for i, f := range pt.Fields {
		if i >= len(partition) {
			break
		}
		v, err := iceberg.FormatJSONValue(f.Type, partition[i])
		if err != nil {
			return "", fmt.Errorf("partition field %s: %w", f.Name, err)
		}
		m[f.Name] = v
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// groupEndpoints packs tasks into at most max endpoints of similar byte
// size: largest task first onto the lightest endpoint (a min-heap keyed by
// bytes, then endpoint index, so plans are deterministic).
func groupEndpoints(tasks []*iceflightv1.Task, max int) []Endpoint {
	n := min(max, len(tasks))
	if n == 0 {
		return nil
	}
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return taskBytes(tasks[order[a]]) > taskBytes(tasks[order[b]]) })
	eps := make([]Endpoint, n)
	h := &endpointHeap{eps: eps, idx: make([]int, n)}
	for i := range h.idx {
		h.idx[i] = i
	}
	for _, i := range order {
		lightest := h.idx[0]
		eps[lightest].Tasks = append(eps[lightest].Tasks, tasks[i])
		eps[lightest].Bytes += taskBytes(tasks[i])
		eps[lightest].Records += tasks[i].RecordCount
		heap.Fix(h, 0)
	}
	return eps
}

// endpointHeap orders endpoint indexes by bytes, lightest first.
type endpointHeap struct {
	eps []Endpoint
	idx []int
}

func (h *endpointHeap) Len() int { return len(h.idx) }
func (h *endpointHeap) Less(a, b int) bool {
	ea, eb := h.eps[h.idx[a]].Bytes, h.eps[h.idx[b]].Bytes
	return ea < eb || ea == eb && h.idx[a] < h.idx[b]
}
func (h *endpointHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *endpointHeap) Push(any)      {}
func (h *endpointHeap) Pop() any      { return nil }

// taskBytes is the bytes a task reads: its range, or the whole file.
func taskBytes(t *iceflightv1.Task) int64 {
	if t.Length > 0 {
		return t.Length
	}
	return t.FileSize
}
