package reader

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ReadDeleted streams the rows of task that its delete files
// (task.Deletes) remove and that the delete files in earlier do not: the
// rows a change stream reports deleted when a snapshot adds delete files
// to a data file that already had some. The batches have Read's schema
// and pass the task's residual filter; emit owns each batch only for the
// call, as with Read. A task without delete files yields no rows.
func (r *Reader) ReadDeleted(ctx context.Context, scan Scan, task *Task, earlier []*DeleteFile, emit func(arrow.RecordBatch) error) error {
	if task == nil {
		return fmt.Errorf("%w: nil task", ErrInvalidTask)
	}
	if len(task.Deletes) == 0 {
		return nil
	}
	sel := &deletedSelection{now: task.Deletes, earlier: earlier}
	// The read plan finds equality keys in the task's delete files, so the
	// task read holds both lists.
	both := *task
	both.Deletes = append(append([]*DeleteFile(nil), task.Deletes...), earlier...)
	return r.read(ctx, scan, &both, sel, emit)
}

// rowSelector picks the rows of a read batch that go on: nil keeps every
// row, an empty slice none.
type rowSelector interface {
	keep(batch arrow.RecordBatch, pos int64, keys map[string][]keyPath) ([]int32, error)
}

// deletedSelection names the two lists of delete files of ReadDeleted.
type deletedSelection struct {
	now, earlier []*DeleteFile
}

// deletedRows keeps the rows that now deletes and earlier does not; either
// is nil when its files delete nothing here.
type deletedRows struct {
	now, earlier *deleteFilter
}

// selector loads the deletes of a read: the task's, or, for ReadDeleted,
// both lists of sel. A nil result keeps every row.
func (r *Reader) selector(ctx context.Context, scan Scan, task *Task, sel *deletedSelection) (rowSelector, error) {
	if sel == nil {
		f, err := r.loadDeletes(ctx, scan, task, task.Deletes)
		if f == nil || err != nil {
			return nil, err
		}
		return f, nil
	}
	now, err := r.loadDeletes(ctx, scan, task, sel.now)
	if err != nil {
		return nil, err
	}
	earlier, err := r.loadDeletes(ctx, scan, task, sel.earlier)
	if err != nil {
		return nil, err
	}
	return &deletedRows{now: now, earlier: earlier}, nil
}

func (d *deletedRows) keep(batch arrow.RecordBatch, pos int64, keys map[string][]keyPath) ([]int32, error) {
	keep := []int32{}
	if d.now == nil {
		return keep, nil
	}
	now, some, err := d.now.mark(batch, pos, keys)
	if err != nil || !some {
		return keep, err
	}
	var before []bool
	if d.earlier != nil {
		if before, _, err = d.earlier.mark(batch, pos, keys); err != nil {
			return nil, err
		}
	}
	for i, deleted := range now {
		if deleted && (before == nil || !before[i]) {
			keep = append(keep, int32(i))
		}
	}
	return keep, nil
}
