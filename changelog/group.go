package changelog

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// group holds the rows of one snapshot that both deletes and inserts, to
// drop its carry-overs and compute its updates as Spark's view does.
// Spark sorts the changes of a whole range by their rows; the rows of
// different snapshots never meet there (the ordinal is part of what is
// compared), so one snapshot at a time is enough. What is held is
// bounded by the Arrow bytes of the batches (WithMaxGroupBytes); a
// snapshot beyond it is refused with ErrGroupTooLarge rather than held.
type group struct {
	u       Unit
	o       *options
	batches []heldBatch
	bytes   int64
}

type heldBatch struct {
	rows arrow.RecordBatch
	kind string
}

// rowRef names one held row.
type rowRef struct{ batch, row int }

func newGroup(u Unit, o *options) *group { return &group{u: u, o: o} }

func (g *group) add(b arrow.RecordBatch, kind string) error {
	g.bytes += batchBytes(b)
	if g.bytes > g.o.maxGroup {
		return fmt.Errorf("%w: more than %d bytes of changed rows in snapshot %d", ErrGroupTooLarge, g.o.maxGroup, g.u.CommitSnapshotID)
	}
	b.Retain()
	g.batches = append(g.batches, heldBatch{rows: b, kind: kind})
	return nil
}

func (g *group) release() {
	for _, b := range g.batches {
		b.rows.Release()
	}
	g.batches = nil
}

// emit resolves the held rows into their final change types and emits
// them batch by batch, in the order they were read.
func (g *group) emit(ctx context.Context, out *arrow.Schema, emit func(arrow.RecordBatch) error) error {
	kinds, err := g.resolve()
	if err != nil {
		return err
	}
	for bi, b := range g.batches {
		if err := ctx.Err(); err != nil {
			return err
		}
		var keep []int32
		var ks []string
		for r, k := range kinds[bi] {
			if k != "" {
				keep = append(keep, int32(r))
				ks = append(ks, k)
			}
		}
		if len(keep) == 0 {
			continue
		}
		rows, err := take(ctx, g.o.mem, b.rows, keep)
		if err != nil {
			return err
		}
		rec, err := withChangeColumns(g.o.mem, out, rows, ks, g.u)
		rows.Release()
		if err != nil {
			return err
		}
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// resolve returns each held row's change type, "" for a row dropped.
// Carry-overs first: per identical row, as many deletes and inserts as
// there are of both cancel (Spark's RemoveCarryoverIterator). Then, with
// identifier fields, per identifier: one delete and an insert become
// update_before and update_after, two deletes are an error (Spark's
// ComputeUpdateIterator).
func (g *group) resolve() ([][]string, error) {
	kinds := make([][]string, len(g.batches))
	all := []int{}
	for i := range g.u.Schema.Fields {
		all = append(all, i)
	}
	byRow := map[string]*[2][]rowRef{}
	var order []string
	for bi, b := range g.batches {
		kinds[bi] = constantKinds(b.kind, int(b.rows.NumRows()))
		for r := range int(b.rows.NumRows()) {
			key := rowKey(b.rows, all, r)
			e, ok := byRow[key]
			if !ok {
				e = &[2][]rowRef{}
				byRow[key] = e
				order = append(order, key)
			}
			side := 0
			if b.kind == Insert {
				side = 1
			}
			e[side] = append(e[side], rowRef{bi, r})
		}
	}
	for _, key := range order {
		e := byRow[key]
		n := min(len(e[0]), len(e[1]))
		for i := range n {
			kinds[e[0][i].batch][e[0][i].row] = ""
			kinds[e[1][i].batch][e[1][i].row] = ""
		}
	}
	if len(g.u.Identifier) == 0 {
		return kinds, nil
	}
	var idCols []int
	for _, id := range g.u.Identifier {
		for i, f := range g.u.Schema.Fields {
			if f.ID == id {
				idCols = append(idCols, i)
			}
		}
	}
	byID := map[string]*[2][]rowRef{}
	order = order[:0]
	for bi, b := range g.batches {
		for r := range int(b.rows.NumRows()) {
			if kinds[bi][r] == "" {
				continue
			}
			key := rowKey(b.rows, idCols, r)
			e, ok := byID[key]
			if !ok {
				e = &[2][]rowRef{}
				byID[key] = e
				order = append(order, key)
			}
			side := 0
			if kinds[bi][r] == Insert {
				side = 1
			}
			e[side] = append(e[side], rowRef{bi, r})
		}
	}
	sort.Strings(order)
	for _, key := range order {
		e := byID[key]
		switch {
		case len(e[0]) > 1:
			return nil, fmt.Errorf("%w: snapshot %d deletes %d rows of one identifier", ErrDuplicateIdentifier, g.u.CommitSnapshotID, len(e[0]))
		case len(e[0]) == 1 && len(e[1]) > 0:
			kinds[e[0][0].batch][e[0][0].row] = UpdateBefore
			kinds[e[1][0].batch][e[1][0].row] = UpdateAfter
		}
	}
	return kinds, nil
}

// rowKey encodes the values of the columns of one row so that equal keys
// are equal values (Java's Objects.equals: NaN equals NaN, -0.0 does not
// equal 0.0): each value length-prefixed, a null apart from any value.
func rowKey(b arrow.RecordBatch, cols []int, row int) string {
	var buf []byte
	for _, c := range cols {
		col := b.Column(c)
		if col.IsNull(row) {
			buf = append(buf, 0)
			continue
		}
		v := col.ValueStr(row)
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	return string(buf)
}

// take returns the rows of b at keep.
func take(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, keep []int32) (arrow.RecordBatch, error) {
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.AppendValues(keep, nil)
	idx := ib.NewArray()
	defer idx.Release()
	res, err := compute.Take(compute.WithAllocator(ctx, mem), *compute.DefaultTakeOptions(), compute.NewDatumWithoutOwning(b), compute.NewDatumWithoutOwning(idx))
	if err != nil {
		return nil, fmt.Errorf("take changed rows: %w", err)
	}
	return res.(*compute.RecordDatum).Value, nil
}

// batchBytes is the bytes of a batch's buffers.
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += dataBytes(dict)
	}
	return n
}
