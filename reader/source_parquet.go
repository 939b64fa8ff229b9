package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/reader/parquet"
)

// parquetSource reads a Parquet file row group by row group, so that every
// batch lies within one row group and its rows have consecutive file
// positions even when the task skips row groups. Package parquet opens the
// file and makes the choices the footer allows (row groups, pages,
// dictionary columns); pqcodec and pqarrow decode the pages; the plans of
// the projection (parquet_columns.go) turn the columns into the read
// schema.
type parquetSource struct {
	cfg    *sourceConfig
	file   fileio.File // told each row group's byte ranges (prefetch.go)
	pf     *file.Reader
	whole  *memory.Buffer // the whole file when parquet.Open read it so, or nil
	fr     *pqarrow.FileReader
	proj   *projection
	groups []int   // row groups to read, in file order
	starts []int64 // file position of each row group's first row

	nextGroup int // index into groups of the next row group to open
	rr        pqarrow.RecordReader
	int96     map[*fieldPlan]*parquet.Int96Column
	paged     []*fieldPlan              // plans pqcodec may decode (pageColumns)
	pages     map[*fieldPlan]pageReader // the open row group's
	left      int64                     // rows left in the open row group
	late      *lateState                // nil without a residual filter or pqcodec
	skipRows  []parquet.RowRange        // the open row group's rows the page index rules out
	groupRows int64                     // rows of the open row group
	pos       int64                     // file position of the next row
}

func newParquetSource(ctx context.Context, f fileio.File, cfg *sourceConfig) (_ source, err error) {
	// The read fills every byte of a file read whole, so its buffer need
	// not be cleared.
	pf, whole, err := parquet.Open(f, cfg.mem, uninitialized(cfg.mem), cfg.path, cfg.maxRead)
	if err != nil {
		return nil, fromParquet(err)
	}
	s := &parquetSource{cfg: cfg, file: f, pf: pf, whole: whole}
	// On error the source is not returned: free what it holds.
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if err = s.selectRowGroups(); err != nil {
		return nil, err
	}
	props := pqarrow.ArrowReadProperties{BatchSize: int64(cfg.batchSize)}
	for _, c := range parquet.DictionaryColumns(pf.MetaData(), s.groups) {
		props.SetReadDict(c, true)
	}
	for _, c := range parquet.PassThroughColumns(pf.MetaData(), cfg.dict) {
		props.SetReadDict(c, true)
	}
	if s.fr, err = pqarrow.NewFileReader(pf, props, cfg.mem); err != nil {
		return nil, corruptFile(fmt.Errorf("read parquet schema of %s: %w", cfg.path, err))
	}
	if s.proj, err = planProjection(s.fr, cfg); err != nil {
		return nil, err
	}
	if cfg.pages {
		s.paged = pageColumns(s.proj.fields)
		s.pages = make(map[*fieldPlan]pageReader, len(s.paged))
		s.late = newLateState(cfg.late, s.proj.fields, cfg.out)
	}
	return s, nil
}

// selectRowGroups decides the row groups the source reads: those the task
// names; else, for a byte-range split, those whose midpoint falls in the
// range (as parquet-mr assigns row groups to splits for Iceberg Java), so
// that splits of one file never read a row twice; else all. Row groups
// whose file_path statistics rule out cfg.pathStats are dropped.
func (s *parquetSource) selectRowGroups() error {
	md := s.pf.MetaData()
	s.starts = make([]int64, md.NumRowGroups())
	var pos int64
	for i := range s.starts {
		s.starts[i] = pos
		pos += md.RowGroup(i).NumRows()
	}
	cfg := s.cfg
	switch {
	case len(cfg.rowGroups) == 0 && cfg.length > 0:
		start, end := cfg.start, cfg.start+cfg.length
		for i := 0; i < md.NumRowGroups(); i++ {
			mid, err := parquet.RowGroupMidpoint(md.RowGroup(i))
			if err != nil {
				return corruptFile(fmt.Errorf("read row group %d of %s: %w", i, cfg.path, err))
			}
			if start <= mid && mid < end {
				s.groups = append(s.groups, i)
			}
		}
	case len(cfg.rowGroups) == 0:
		for i := 0; i < md.NumRowGroups(); i++ {
			s.groups = append(s.groups, i)
		}
	default:
		for _, g := range cfg.rowGroups {
			if g < 0 || int(g) >= md.NumRowGroups() {
				return fmt.Errorf("%w: row group %d of %s, which has %d", ErrInvalidTask, g, cfg.path, md.NumRowGroups())
			}
			s.groups = append(s.groups, int(g))
		}
	}
	if cfg.prune != nil {
		kept := s.groups[:0]
		for _, g := range s.groups {
			if cfg.prune.MayMatch(md.RowGroup(g)) {
				kept = append(kept, g)
			} else if cfg.counts != nil {
				cfg.counts.rowGroupsSkipped.Add(1)
			}
		}
		s.groups = kept
	}
	if cfg.counts != nil {
		cfg.counts.rowGroupsRead.Add(int64(len(s.groups)))
	}
	if cfg.pathStats != "" {
		kept := s.groups[:0]
		for _, g := range s.groups {
			if parquet.MayHoldPath(md.RowGroup(g), cfg.pathStats) {
				kept = append(kept, g)
			}
		}
		s.groups = kept
	}
	return nil
}

// openGroup starts reading the next selected row group.
func (s *parquetSource) openGroup(ctx context.Context) error {
	s.closeGroup()
	g := s.groups[s.nextGroup]
	s.nextGroup++
	s.left = s.pf.MetaData().RowGroup(g).NumRows()
	s.groupRows, s.skipRows = s.left, nil
	s.pos = s.starts[g]
	if s.left == 0 {
		return nil
	}
	s.announceRowGroup(ctx, g)
	leaves, err := s.openPageColumns(g)
	if err != nil {
		return err
	}
	if len(leaves) > 0 {
		rr, err := s.fr.GetRecordReader(ctx, leaves, []int{g})
		if err != nil {
			return corruptFile(fmt.Errorf("read %s: %w", s.cfg.path, err))
		}
		s.rr = rr
	}
	if s.late != nil {
		s.late.on = s.lateQualifies()
		if s.cfg.prune != nil && s.allPaged() {
			s.skipRows = s.cfg.prune.ExcludedRows(s.indexReader(), s.pf.MetaData().RowGroup(g))
		}
	}
	for _, p := range s.proj.fields {
		if !p.int96 {
			continue
		}
		c, err := parquet.NewInt96Column(s.pf, p.src.col, []int{g}, p.target, s.cfg.path, p.src.name)
		if err != nil {
			return fromParquet(err)
		}
		if s.int96 == nil {
			s.int96 = make(map[*fieldPlan]*parquet.Int96Column)
		}
		s.int96[p] = c
	}
	return nil
}

func (s *parquetSource) closeGroup() {
	s.closePages()
	if s.rr != nil {
		s.rr.Release()
		s.rr = nil
	}
	for p, c := range s.int96 {
		c.Close()
		delete(s.int96, p)
	}
}

func (s *parquetSource) next(ctx context.Context) (arrow.RecordBatch, int64, error) {
	for {
		// Batches that the filter or the page index rule out are not
		// returned: a file of nothing else must still stop when the call does.
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		for s.left == 0 {
			if s.nextGroup == len(s.groups) {
				return nil, 0, io.EOF
			}
			if err := s.openGroup(ctx); err != nil {
				return nil, 0, err
			}
		}
		n := min(int64(s.cfg.batchSize), s.left)
		if len(s.skipRows) > 0 {
			skipped, err := s.skipPages(&n)
			if err != nil {
				return nil, 0, err
			}
			if skipped {
				continue
			}
		}
		var rec arrow.RecordBatch
		if s.rr != nil {
			var err error
			if rec, err = s.nextRecord(); err != nil {
				return nil, 0, err
			}
			n = rec.NumRows()
		}
		conv := &converter{ctx: ctx, mem: s.cfg.mem, path: s.cfg.path, dict: s.cfg.dict}
		var (
			out arrow.RecordBatch
			err error
		)
		if s.late != nil && s.late.on {
			out, err = s.readLate(ctx, conv, rec, int(n))
		} else {
			out, err = assemble(ctx, s.cfg.mem, s.cfg.out, s.cfg.path, s.proj.fields, int(n), func(p *fieldPlan) (arrow.Array, error) {
				return s.column(conv, rec, p, int(n))
			})
		}
		if err != nil {
			return nil, 0, err
		}
		pos := s.pos
		s.pos += n
		s.left -= n
		if out != nil {
			return out, pos, nil
		}
	}
}

// nextRecord returns pqarrow's next batch of the open row group's columns
// that pqcodec does not read.
func (s *parquetSource) nextRecord() (arrow.RecordBatch, error) {
	path := s.cfg.path
	if !s.rr.Next() {
		if err := s.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, corruptFile(fmt.Errorf("read %s: %w", path, err))
		}
		return nil, fmt.Errorf("%w: %s ended %d rows early", ErrInvalidTask, path, s.left)
	}
	rec := s.rr.RecordBatch()
	if n := rec.NumRows(); n <= 0 || n > s.left {
		return nil, fmt.Errorf("%w: %s: batch of %d rows with %d left to read", ErrInvalidTask, path, n, s.left)
	}
	return rec, nil
}

// column returns the next n rows of p's column, converted to its output
// type, from whichever decoder reads it: the INT96 reader, pqcodec, or
// pqarrow's batch rec. The caller releases the result.
func (s *parquetSource) column(conv *converter, rec arrow.RecordBatch, p *fieldPlan, n int) (arrow.Array, error) {
	if p.int96 {
		arr, err := s.int96[p].Read(s.cfg.mem, n)
		return arr, fromParquet(err)
	}
	if arr, ok, err := s.readPages(p, n); ok {
		if err != nil {
			return nil, err
		}
		defer arr.Release()
		return conv.convert(p, arr)
	}
	if rec == nil || p.pos >= int(rec.NumCols()) || rec.Schema().Field(p.pos).Name != p.src.name {
		return nil, fmt.Errorf("read %s: column %q not where expected (internal error)", s.cfg.path, p.src.name)
	}
	return conv.convert(p, rec.Column(p.pos))
}

func (s *parquetSource) close() {
	s.closeGroup()
	if s.late != nil {
		s.late.release()
	}
	if s.proj != nil {
		s.proj.release()
	}
	if s.whole != nil {
		s.whole.Release()
		s.whole = nil
	}
}

// newRowGroupPruner returns the pruner of row groups and pages by the
// task's residual filter f, nil for none.
func newRowGroupPruner(f *rowFilter, schema *iceberg.Schema) *parquet.Pruner {
	if f == nil {
		return nil
	}
	return parquet.NewPruner(f.expr, schema)
}
