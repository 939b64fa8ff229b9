package reader

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Late materialisation: with a residual filter, a Parquet source decodes
// the filter's columns of a batch first and evaluates the filter on them;
// when no row survives, the other columns of those rows are stepped over
// (pqcodec's Skip) instead of decoded, and the batch is never built. When
// some row survives, the rest is decoded and the filter runs once more in
// the pipeline, on the whole batch, as it does without this step.
//
// It applies to a row group whose every other column pqcodec reads: the
// columns pqarrow reads come out of one RecordReader in lockstep, so a
// row group that has one outside the filter decodes them all.

// lateFilter is what a source needs of a task's residual filter to read
// its columns first.
type lateFilter struct {
	// cols are the indices of the top-level read fields the filter reads.
	cols map[int]bool
	// none reports whether no row of a batch passes the filter; the
	// batch's other columns are placeholders.
	none func(ctx context.Context, batch arrow.RecordBatch) (bool, error)
}

// late returns the late-materialisation view of f, or nil for no filter.
func (f *rowFilter) late(mem memory.Allocator) *lateFilter {
	if f == nil {
		return nil
	}
	cols := make(map[int]bool, len(f.paths))
	for _, p := range f.paths {
		if len(p) > 0 {
			cols[p[0]] = true
		}
	}
	return &lateFilter{cols: cols, none: func(ctx context.Context, batch arrow.RecordBatch) (bool, error) {
		keep, err := f.keep(ctx, mem, batch, nil)
		return keep != nil && len(keep) == 0, err
	}}
}

// lateState is a Parquet source's late-materialisation state.
type lateState struct {
	filter *lateFilter
	// reads marks the plans of the filter's columns.
	reads map[*fieldPlan]bool
	// types are the output types of the other plans, for placeholders.
	types map[*fieldPlan]arrow.DataType
	// on is set while the open row group qualifies (see above).
	on bool
	// nulls caches the placeholder of each other plan, of the last
	// batch's length.
	nulls map[*fieldPlan]arrow.Array
}

func newLateState(f *lateFilter, plans []*fieldPlan, out *arrow.Schema) *lateState {
	if f == nil {
		return nil
	}
	st := &lateState{filter: f, reads: map[*fieldPlan]bool{}, types: map[*fieldPlan]arrow.DataType{}, nulls: map[*fieldPlan]arrow.Array{}}
	for i, p := range plans {
		if f.cols[i] {
			st.reads[p] = true
		} else {
			st.types[p] = out.Field(i).Type
		}
	}
	return st
}

// placeholder returns a null array standing for plan p's column in a
// batch of n rows that only the filter reads. The caller releases it.
func (st *lateState) placeholder(mem memory.Allocator, p *fieldPlan, n int) arrow.Array {
	a := st.nulls[p]
	if a == nil || a.Len() != n {
		if a != nil {
			a.Release()
		}
		a = array.MakeArrayOfNull(mem, st.types[p], n)
		st.nulls[p] = a
	}
	a.Retain()
	return a
}

func (st *lateState) release() {
	for p, a := range st.nulls {
		a.Release()
		delete(st.nulls, p)
	}
}

// qualifies reports whether late materialisation pays in the open row
// group: pqcodec reads every column outside the filter that the file
// holds, and there is at least one such column to step over.
func (s *parquetSource) lateQualifies() bool {
	st := s.late
	skippable := 0
	for _, p := range s.proj.fields {
		if p.src == nil || st.reads[p] {
			continue
		}
		if s.pages[p] == nil {
			return false
		}
		skippable++
	}
	return skippable > 0
}

// readLate reads the next n rows of the open row group filter columns
// first. It returns the batch, or nil when no row passes the filter and
// the other columns were stepped over.
func (s *parquetSource) readLate(ctx context.Context, conv *converter, rec arrow.RecordBatch, n int) (arrow.RecordBatch, error) {
	st := s.late
	read := make(map[*fieldPlan]arrow.Array, len(st.reads))
	defer func() {
		for _, a := range read {
			a.Release()
		}
	}()
	probe, err := assemble(ctx, s.cfg.mem, s.cfg.out, s.cfg.path, s.proj.fields, n, func(p *fieldPlan) (arrow.Array, error) {
		if !st.reads[p] {
			return st.placeholder(s.cfg.mem, p, n), nil
		}
		a, err := s.column(conv, rec, p, n)
		if err != nil {
			return nil, err
		}
		a.Retain()
		read[p] = a
		return a, nil
	})
	if err != nil {
		return nil, err
	}
	none, err := st.filter.none(ctx, probe)
	probe.Release()
	if err != nil {
		return nil, err
	}
	if none {
		for p := range st.types {
			if cr := s.pages[p]; cr != nil {
				if err := cr.Skip(n); err != nil {
					return nil, corruptFile(wrapColumn(s.cfg.path, p, err))
				}
			}
		}
		s.count(func(c *counters) { c.rowsSkippedLate.Add(int64(n)) })
		return nil, nil
	}
	return assemble(ctx, s.cfg.mem, s.cfg.out, s.cfg.path, s.proj.fields, n, func(p *fieldPlan) (arrow.Array, error) {
		if a := read[p]; a != nil {
			a.Retain()
			return a, nil
		}
		return s.column(conv, rec, p, n)
	})
}
