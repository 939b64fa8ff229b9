package planner

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/internal/panics"
)

var fileFormats = map[string]scantask.FileFormat{
	"PARQUET": scantask.Parquet,
	"AVRO":    scantask.Avro,
	"ORC":     scantask.ORC,
	"PUFFIN":  scantask.Puffin,
}

// taskOptions says what a plan's tasks carry and how files are split.
type taskOptions struct {
	cols taskColumns
	// targetSplit is the size large files are split to; 0 keeps each
	// file whole.
	targetSplit int64
	// keepFiles puts each file's manifest record on its task and delete
	// files (Request.KeepFiles).
	keepFiles bool
}

// tasks turns live files into one task per data file, each carrying the
// delete files that apply to it. Files are turned into tasks in parallel
// chunks; the tasks keep the order of the files.
func (p *Planner) tasks(t Table, data, deletes []liveFile, filter *scanFilter, opts taskOptions, stats *Stats) ([]*Task, error) {
	index, err := indexDeletes(t, deletes, opts.keepFiles)
	if err != nil {
		return nil, err
	}
	stats.DeleteFiles += len(deletes)
	return buildTasks(t, data, index, filter, opts, stats)
}

// indexDeletes checks the live delete files' locations and indexes them by
// the data files they may apply to.
func indexDeletes(t Table, deletes []liveFile, keepFiles bool) (*deleteIndex, error) {
	mapper, _ := t.IO.(Mapper)
	for i := range deletes {
		if _, err := t.locate("delete file", deletes[i].entry.DataFile.Path); err != nil {
			return nil, err
		}
	}
	return newDeleteIndex(deletes, mapper, keepFiles), nil
}

// buildTasks turns data files into tasks with the delete files of index.
func buildTasks(t Table, data []liveFile, index *deleteIndex, filter *scanFilter, opts taskOptions, stats *Stats) ([]*Task, error) {
	b := &taskBuilder{t: t, index: index, filter: filter, opts: opts}
	chunks := max(1, min(runtime.GOMAXPROCS(0), len(data)/minTaskChunk))
	parts := make([]taskChunk, chunks)
	var g errgroup.Group
	for i := range parts {
		lo, hi := i*len(data)/chunks, (i+1)*len(data)/chunks
		g.Go(panics.Func("table "+t.Name+": build scan tasks", func() error { return b.build(data[lo:hi], &parts[i]) }))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	n := 0
	for i := range parts {
		n += len(parts[i].tasks)
	}
	tasks := make([]*Task, 0, n)
	for i := range parts {
		tasks = append(tasks, parts[i].tasks...)
		stats.DataFiles += parts[i].files
		stats.Records += parts[i].records
		stats.Bytes += parts[i].bytes
	}
	return tasks, nil
}

// minTaskChunk is the fewest files worth a goroutine of their own.
const minTaskChunk = 2048

// taskColumns says which per-file values the scan's reader uses, so that
// tickets carry only those.
type taskColumns struct {
	// partition: the _partition column reads the partition tuple.
	partition bool
	// recordedPath: the _file column reads the file's path as metadata
	// records it. (Filters bind to table columns only.)
	recordedPath bool
}

// columnsOf returns the per-file values a scan reading schema needs.
func columnsOf(schema *iceberg.Schema) taskColumns {
	var c taskColumns
	_, c.partition = schema.FieldByID(iceberg.FieldIDPartition)
	_, c.recordedPath = schema.FieldByID(iceberg.FieldIDFilePath)
	return c
}

// taskBuilder holds what building the tasks of one plan shares; it is only
// read, so chunks of files are built at the same time.
type taskBuilder struct {
	t      Table
	index  *deleteIndex
	filter *scanFilter
	opts   taskOptions
}

// taskChunk is the tasks of a run of files, with their statistics.
type taskChunk struct {
	tasks          []*Task
	files          int
	records, bytes int64
}

// build appends the tasks of files to out.
func (b *taskBuilder) build(files []liveFile, out *taskChunk) error {
	// One allocation holds the task of every file; only split files add
	// more.
	slab := make([]scantask.Task, len(files))
	out.tasks = make([]*Task, 0, len(files))
	for i := range files {
		lf := &files[i]
		df := &lf.entry.DataFile
		format, ok := fileFormats[strings.ToUpper(df.Format)]
		if !ok || format == scantask.Puffin {
			return fmt.Errorf("%w: %s data file %s", ErrUnsupported, df.Format, df.Path)
		}
		constants, err := partitionConstants(b.t.Metadata, lf.spec, df.Partition)
		if err != nil {
			return fmt.Errorf("data file %s: %w", df.Path, err)
		}
		// Only the _partition column reads the tuple: leave it out of
		// tickets otherwise, as it is a large share of a big plan.
		var partJSON string
		if b.opts.cols.partition {
			if partJSON, err = partitionJSON(b.t.Metadata, lf.spec, df.Partition); err != nil {
				return fmt.Errorf("data file %s: %w", df.Path, err)
			}
		}
		residual := b.filter.residual(lf.spec, df)
		// Tickets are signed and any worker opens their paths: this is
		// the last place that knows the caller (see Table.Check).
		path, err := b.t.locate("data file", df.Path)
		if err != nil {
			return err
		}
		deletes := b.index.forDataFile(lf)
		task := &slab[i]
		task.Path = path
		// The reader reads the recorded path only for _file and to match
		// position deletes to the file (Task.file_path): leave it out
		// otherwise, as it would double the size of a big plan's tickets.
		if b.opts.cols.recordedPath || hasPositionDeletes(deletes) {
			task.FilePath = recordedIfMapped(df.Path, path)
		}
		task.Format = format
		task.FileSize = df.FileSize
		task.RecordCount = df.RecordCount
		task.Constants = constants
		task.SpecID = int32(lf.spec.ID)
		task.DataSequenceNumber = lf.entry.SequenceNumber
		task.FileSequenceNumber = lf.entry.FileSequenceNumber
		task.FirstRowID = df.FirstRowID
		task.PartitionJSON = partJSON
		task.Deletes = deletes
		task.Residual = residual
		if b.opts.keepFiles {
			task.File = df
		}
		out.tasks = append(out.tasks, splitTask(task, df.SplitOffsets, b.opts.targetSplit)...)
		out.files++
		out.records += df.RecordCount
		out.bytes += df.FileSize
	}
	return nil
}

// hasPositionDeletes reports whether any of deletes is a position delete
// file or a deletion vector.
func hasPositionDeletes(deletes []*DeleteFile) bool {
	for _, d := range deletes {
		if d.Kind != scantask.EqualityDeletes {
			return true
		}
	}
	return false
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
func partitionConstants(md *iceberg.TableMetadata, spec iceberg.PartitionSpec, partition []any) ([]*PartitionConstant, error) {
	var out []*PartitionConstant
	for i, f := range spec.Fields {
		if _, ok := f.Transform.(iceberg.IdentityTransform); !ok || i >= len(partition) {
			continue
		}
		src, ok := findField(md, f.SourceID)
		if !ok {
			continue
		}
		c := &scantask.PartitionConstant{FieldID: int32(f.SourceID)}
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
func groupEndpoints(tasks []*Task, max int) []Endpoint {
	n := min(max, len(tasks))
	if n == 0 {
		return nil
	}
	type sized struct {
		i     int
		bytes int64
	}
	order := make([]sized, len(tasks))
	for i, t := range tasks {
		order[i] = sized{i, TaskBytes(t)}
	}
	// Largest first; equal sizes keep plan order, so plans are stable.
	slices.SortFunc(order, func(a, b sized) int {
		if c := cmp.Compare(b.bytes, a.bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	eps := make([]Endpoint, n)
	h := &endpointHeap{eps: eps, idx: make([]int, n)}
	for i := range h.idx {
		h.idx[i] = i
	}
	for _, o := range order {
		lightest := h.idx[0]
		eps[lightest].Tasks = append(eps[lightest].Tasks, tasks[o.i])
		eps[lightest].Bytes += o.bytes
		eps[lightest].Records += tasks[o.i].RecordCount
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

// TaskBytes is the bytes a task reads: its range, or the whole file.
func TaskBytes(t *Task) int64 {
	if t.Length > 0 {
		return t.Length
	}
	return t.FileSize
}

// Regroup spreads the plan's tasks over at most max endpoints, balanced by
// bytes as Plan groups them. Each endpoint's ticket repeats what its tasks
// share (schemas, residual filters), so a caller that must send a smaller
// plan asks for fewer endpoints.
func (p *Plan) Regroup(max int) {
	var tasks []*Task
	for _, ep := range p.Endpoints {
		tasks = append(tasks, ep.Tasks...)
	}
	p.Endpoints = groupEndpoints(tasks, max)
	p.Stats.Endpoints = len(p.Endpoints)
}
