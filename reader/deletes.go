package reader

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/internal/panics"
)

// Spec: Row-level Deletes. The planner attaches to each task exactly the
// delete files that apply to its data file (by sequence number, partition
// and spec); the reader applies every one of them. A row is deleted when
// its file position is in a position delete file or deletion vector for
// this data file, or when its equality key is in an equality delete file.

// maxDeleteLoaders bounds the delete files one task loads at once.
const maxDeleteLoaders = 4

// deleteFilter holds the deletes that apply to one data file.
type deleteFilter struct {
	// positions are the deleted file positions; nil when none.
	positions *roaring64.Bitmap
	// equality are the equality delete sets, grouped by their equality ids
	// so that a row's key is built once per group.
	equality []equalityGroup
}

// equalityGroup is the equality delete files of one list of equality ids
// (as idsKey spells it).
type equalityGroup struct {
	ids  string
	sets []*keySet
}

// idsKey spells a list of equality field ids as a map key.
func idsKey(ids []int32) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(id)))
	}
	return b.String()
}

// loadDeletes reads delete files of the task (its own, or those a
// deletedSelection names), a few at a time. A deletion
// vector replaces the position delete files of its data file (spec:
// Deletion Vectors); position deletes and DVs that reference another data
// file are ignored.
func (r *Reader) loadDeletes(ctx context.Context, scan Scan, task *Task, deletes []*DeleteFile) (*deleteFilter, error) {
	target := recordedPath(task)
	var dvs, positional, equality []*DeleteFile
	for _, d := range deletes {
		switch d.Kind {
		case scantask.DeletionVector:
			if ref := d.ReferencedDataFile; ref == "" || ref == target {
				dvs = append(dvs, d)
			}
		case scantask.PositionDeletes:
			if ref := d.ReferencedDataFile; ref == "" || ref == target {
				positional = append(positional, d)
			}
		case scantask.EqualityDeletes:
			equality = append(equality, d)
		default:
			return nil, fmt.Errorf("%w: delete file %s for %s has kind %v", ErrInvalidTask, d.Path, task.Path, d.Kind)
		}
	}
	if len(dvs) > 0 {
		positional = dvs
	}
	bitmaps := make([]*roaring64.Bitmap, len(positional))
	sets := make([]*keySet, len(equality))
	setKeys := make([]string, len(equality))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxDeleteLoaders)
	for i, d := range positional {
		g.Go(panics.Func("read delete file "+d.Path, func() error {
			var err error
			if d.Kind == scantask.DeletionVector {
				bitmaps[i], err = r.loadDeletionVector(gctx, d)
			} else {
				bitmaps[i], err = r.loadPositionDeletes(gctx, scan, d, target)
			}
			return err
		}))
	}
	for i, d := range equality {
		g.Go(panics.Func("read delete file "+d.Path, func() error {
			var err error
			sets[i], setKeys[i], err = r.equalitySet(gctx, scan, d)
			return err
		}))
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	f := &deleteFilter{}
	for _, bm := range bitmaps {
		if bm.IsEmpty() {
			continue
		}
		if f.positions == nil {
			f.positions = bm
		} else {
			f.positions.Or(bm)
		}
	}
	groups := make(map[string]int)
	var groupKeys [][]string
	for i, set := range sets {
		if len(set.keys) == 0 {
			continue
		}
		ids := idsKey(equality[i].EqualityIDs)
		g, ok := groups[ids]
		if !ok {
			g = len(f.equality)
			groups[ids] = g
			f.equality = append(f.equality, equalityGroup{ids: ids})
			groupKeys = append(groupKeys, nil)
		}
		f.equality[g].sets = append(f.equality[g].sets, set)
		groupKeys[g] = append(groupKeys[g], setKeys[i])
	}
	for g := range f.equality {
		u, err := r.unionSet(ctx, groupKeys[g], f.equality[g].sets)
		if err != nil {
			return nil, err
		}
		f.equality[g].sets = []*keySet{u}
	}
	if f.positions == nil && len(f.equality) == 0 {
		return nil, nil
	}
	return f, nil
}

// keep returns the indices of the batch's rows that no delete removes:
// nil when every row is kept, an empty slice when none is. pos is the file
// position of the batch's first row; keys locates each equality key in the
// batch.
func (f *deleteFilter) keep(batch arrow.RecordBatch, pos int64, keys map[string][]keyPath) ([]int32, error) {
	deleted, some, err := f.mark(batch, pos, keys)
	if err != nil || !some {
		return nil, err
	}
	keep := make([]int32, 0, len(deleted))
	for i, d := range deleted {
		if !d {
			keep = append(keep, int32(i))
		}
	}
	return keep, nil
}

// mark returns which of the batch's rows a delete removes, and whether
// any is.
func (f *deleteFilter) mark(batch arrow.RecordBatch, pos int64, keys map[string][]keyPath) ([]bool, bool, error) {
	n := int(batch.NumRows())
	deleted := make([]bool, n)
	some := false
	if f.positions != nil {
		end := uint64(pos) + uint64(n)
		it := f.positions.Iterator()
		it.AdvanceIfNeeded(uint64(pos))
		for it.HasNext() {
			v := it.PeekNext()
			if v >= end {
				break
			}
			deleted[v-uint64(pos)] = true
			some = true
			it.Next()
		}
	}
	var buf []byte
	for _, g := range f.equality {
		paths, found := keys[g.ids]
		if !found {
			return nil, false, fmt.Errorf("no key columns for equality ids %s (internal error)", g.ids)
		}
		if len(g.sets) == 1 && len(paths) == 1 && len(paths[0]) == 1 {
			if hit, ok := g.sets[0].intMatches(batch.Column(paths[0][0]), deleted); ok {
				some = some || hit
				continue
			}
		}
		enc, err := newKeyEncoder(batch, paths)
		if err != nil {
			return nil, false, err
		}
		for i := 0; i < n; i++ {
			if deleted[i] {
				continue
			}
			buf = enc.appendKey(buf[:0], i)
			for _, set := range g.sets {
				if set.contains(buf) {
					deleted[i] = true
					some = true
					break
				}
			}
		}
	}
	return deleted, some, nil
}

// intMatches marks the rows of an integer key column found in a set of
// single integer keys, without encoding keys. It reports whether it
// marked any, and false in ok when the column or set has another shape.
func (s *keySet) intMatches(col arrow.Array, deleted []bool) (hit, ok bool) {
	width := s.intKeys()
	lookup := func(i int, v uint64) {
		if deleted[i] {
			return
		}
		if col.IsNull(i) {
			if s.nullKey {
				deleted[i], hit = true, true
			}
			return
		}
		if _, found := s.ints[v]; found {
			deleted[i], hit = true, true
		}
	}
	switch a := col.(type) {
	case *array.Int64:
		if width != 8 {
			return false, false
		}
		for i, v := range a.Int64Values() {
			lookup(i, uint64(v))
		}
	case *array.Int32:
		if width != 4 {
			return false, false
		}
		for i, v := range a.Int32Values() {
			lookup(i, uint64(uint32(v)))
		}
	default:
		return false, false
	}
	return hit, true
}
