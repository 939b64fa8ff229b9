package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/iceberg/scantask"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// This file is the one place where scan tasks and their wire form meet:
// encodeTasks puts a plan's tasks into a ticket, decodeTasks takes a
// verified ticket's back out.

// encodeTasks puts tasks into t in their wire form. What the tasks share
// goes in once: each distinct residual in t.Residuals, which the tasks
// name by index (tasks sharing a *scantask.Residual are encoded once, and
// equal residuals of different files share one entry too), and the folder
// of their paths in t.PathPrefix. A ticket of thousands of files, or of a
// filter of megabytes, then does not repeat them for each task.
func encodeTasks(t *iceflightv1.Ticket, tasks []*scantask.Task) error {
	slab := make([]iceflightv1.Task, len(tasks))
	t.Tasks = make([]*iceflightv1.Task, len(tasks))
	byPointer := make(map[*scantask.Residual]int32)
	byText := make(map[string]int32)
	deletes := make(map[*scantask.DeleteFile]*iceflightv1.DeleteFile)
	for i, task := range tasks {
		w := &slab[i]
		fillWireTask(w, task, deletes)
		if r := task.Residual; r != nil {
			index, ok := byPointer[r]
			if !ok {
				b, err := json.Marshal(r.Expr)
				if err != nil {
					return fmt.Errorf("encode the residual of %s: %w", task.Path, err)
				}
				if index, ok = byText[string(b)]; !ok {
					t.Residuals = append(t.Residuals, string(b))
					index = int32(len(t.Residuals))
					byText[string(b)] = index
				}
				byPointer[r] = index
			}
			w.ResidualIndex = index
		}
		t.Tasks[i] = w
	}
	compactPaths(t)
	return nil
}

// fillWireTask copies task's own fields into w; deletes holds the wire
// form of the delete files already converted, which tasks share.
func fillWireTask(w *iceflightv1.Task, task *scantask.Task, deletes map[*scantask.DeleteFile]*iceflightv1.DeleteFile) {
	w.Path = task.Path
	w.FilePath = task.FilePath
	w.Format = iceflightv1.FileFormat(task.Format)
	w.FileSize = task.FileSize
	w.RecordCount = task.RecordCount
	w.RowGroups = task.RowGroups
	w.Start, w.Length = task.Start, task.Length
	w.SpecId = task.SpecID
	w.DataSequenceNumber = task.DataSequenceNumber
	w.FileSequenceNumber = task.FileSequenceNumber
	w.FirstRowId = task.FirstRowID
	w.PartitionJson = task.PartitionJSON
	if len(task.Constants) > 0 {
		w.Constants = make([]*iceflightv1.PartitionConstant, len(task.Constants))
		for j, c := range task.Constants {
			w.Constants[j] = &iceflightv1.PartitionConstant{FieldId: c.FieldID, Value: c.Value}
		}
	}
	if len(task.Deletes) > 0 {
		w.Deletes = make([]*iceflightv1.DeleteFile, len(task.Deletes))
		for j, d := range task.Deletes {
			wd, ok := deletes[d]
			if !ok {
				wd = wireDelete(d)
				deletes[d] = wd
			}
			w.Deletes[j] = wd
		}
	}
}

// WireTask is task as a ticket's message, its residual in the task itself
// (residual_json) instead of named by index: the form flightd plan prints.
func WireTask(task *scantask.Task) (*iceflightv1.Task, error) {
	w := new(iceflightv1.Task)
	fillWireTask(w, task, map[*scantask.DeleteFile]*iceflightv1.DeleteFile{})
	if task.Residual != nil {
		b, err := json.Marshal(task.Residual.Expr)
		if err != nil {
			return nil, fmt.Errorf("encode the residual of %s: %w", task.Path, err)
		}
		w.ResidualJson = string(b)
	}
	return w, nil
}

func wireDelete(d *scantask.DeleteFile) *iceflightv1.DeleteFile {
	return &iceflightv1.DeleteFile{
		Path:               d.Path,
		Format:             iceflightv1.FileFormat(d.Format),
		Kind:               iceflightv1.DeleteKind(d.Kind),
		FileSize:           d.FileSize,
		RecordCount:        d.RecordCount,
		EqualityIds:        d.EqualityIDs,
		DataSequenceNumber: d.DataSequenceNumber,
		ReferencedDataFile: d.ReferencedDataFile,
		ContentOffset:      d.ContentOffset,
		ContentSize:        d.ContentSize,
		SpecId:             d.SpecID,
	}
}

// decodeTasks takes the tasks back out of a verified ticket: full paths,
// and each residual decoded once and shared by the tasks that name it.
// A ticket that names a residual it does not carry, or carries a task's
// own residual_json (which tickets never do), is refused.
func decodeTasks(t *iceflightv1.Ticket) ([]*scantask.Task, error) {
	expandPaths(t)
	residuals := make([]*scantask.Residual, len(t.Residuals))
	for i, r := range t.Residuals {
		e, err := expr.ParseJSON([]byte(r))
		if err != nil {
			return nil, fmt.Errorf("%w: table %s: residual filter %d: %v", ErrTicketInvalid, t.Table, i+1, err)
		}
		residuals[i] = &scantask.Residual{Expr: e}
	}
	slab := make([]scantask.Task, len(t.Tasks))
	out := make([]*scantask.Task, len(t.Tasks))
	for i, w := range t.Tasks {
		if w.ResidualJson != "" {
			return nil, fmt.Errorf("%w: table %s: task %s carries its own residual", ErrTicketInvalid, t.Table, w.Path)
		}
		if r := w.ResidualIndex; r < 0 || int(r) > len(residuals) {
			return nil, fmt.Errorf("%w: table %s: task %s names residual %d of %d", ErrTicketInvalid, t.Table, w.Path, r, len(residuals))
		}
		task := &slab[i]
		task.Path = w.Path
		task.FilePath = w.FilePath
		task.Format = scantask.FileFormat(w.Format)
		task.FileSize = w.FileSize
		task.RecordCount = w.RecordCount
		task.RowGroups = w.RowGroups
		task.Start, task.Length = w.Start, w.Length
		task.SpecID = w.SpecId
		task.DataSequenceNumber = w.DataSequenceNumber
		task.FileSequenceNumber = w.FileSequenceNumber
		task.FirstRowID = w.FirstRowId
		task.PartitionJSON = w.PartitionJson
		if len(w.Constants) > 0 {
			task.Constants = make([]*scantask.PartitionConstant, len(w.Constants))
			for j, c := range w.Constants {
				task.Constants[j] = &scantask.PartitionConstant{FieldID: c.GetFieldId(), Value: c.GetValue()}
			}
		}
		if len(w.Deletes) > 0 {
			task.Deletes = make([]*scantask.DeleteFile, len(w.Deletes))
			for j, d := range w.Deletes {
				task.Deletes[j] = &scantask.DeleteFile{
					Path:               d.GetPath(),
					Format:             scantask.FileFormat(d.GetFormat()),
					Kind:               scantask.DeleteKind(d.GetKind()),
					FileSize:           d.GetFileSize(),
					RecordCount:        d.GetRecordCount(),
					EqualityIDs:        d.GetEqualityIds(),
					DataSequenceNumber: d.GetDataSequenceNumber(),
					ReferencedDataFile: d.GetReferencedDataFile(),
					ContentOffset:      d.GetContentOffset(),
					ContentSize:        d.GetContentSize(),
					SpecID:             d.GetSpecId(),
				}
			}
		}
		if r := w.ResidualIndex; r > 0 {
			task.Residual = residuals[r-1]
		}
		out[i] = task
	}
	return out, nil
}

// compactPaths moves the folder that every task path shares into the
// ticket's path prefix.
func compactPaths(t *iceflightv1.Ticket) {
	if len(t.Tasks) == 0 {
		return
	}
	prefix := t.Tasks[0].Path
	for _, task := range t.Tasks[1:] {
		prefix = commonPrefix(prefix, task.Path)
	}
	// Cut back to a folder boundary so no task path becomes empty.
	prefix = prefix[:strings.LastIndexByte(prefix, '/')+1]
	if prefix == "" {
		return
	}
	t.PathPrefix = prefix
	for _, task := range t.Tasks {
		task.Path = task.Path[len(prefix):]
	}
}

// expandPaths restores the full task paths of a verified ticket.
func expandPaths(t *iceflightv1.Ticket) {
	if t.PathPrefix == "" {
		return
	}
	for _, task := range t.Tasks {
		task.Path = t.PathPrefix + task.Path
	}
	t.PathPrefix = ""
}

// decodeScan decodes a verified ticket into the reader's scan (the
// schemas and the name mapping, once per ticket) and its tasks.
func decodeScan(t *iceflightv1.Ticket) (reader.Scan, []*scantask.Task, error) {
	var scan reader.Scan
	for _, s := range []struct {
		src *iceflightv1.Schema
		dst **iceberg.Schema
	}{{t.Schema, &scan.Schema}, {t.EqualitySchema, &scan.EqualitySchema}, {t.FilterSchema, &scan.FilterSchema}} {
		var err error
		if *s.dst, err = decodeSchema(s.src); err != nil {
			return reader.Scan{}, nil, fmt.Errorf("%w: table %s: schema: %v", ErrTicketInvalid, t.Table, err)
		}
	}
	if scan.Schema == nil {
		return reader.Scan{}, nil, fmt.Errorf("%w: table %s: no schema", ErrTicketInvalid, t.Table)
	}
	var err error
	if scan.NameMapping, err = decodeNameMapping(t.NameMapping); err != nil {
		return reader.Scan{}, nil, fmt.Errorf("%w: table %s: name mapping: %v", ErrTicketInvalid, t.Table, err)
	}
	tasks, err := decodeTasks(t)
	if err != nil {
		return reader.Scan{}, nil, err
	}
	for _, id := range t.DictionaryFieldIds {
		scan.Dictionary = append(scan.Dictionary, int(id))
	}
	return scan, tasks, nil
}
