package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader/orc"
)

// orcSource reads an ORC file through package orc, whose Arrow schema
// carries the Iceberg field ids of the iceberg.id type attributes (spec:
// ORC, Appendix A). Files without ids (Hive, Impala) get them from the
// name mapping or by position, as Parquet files do.
type orcSource struct {
	cfg   *sourceConfig
	rr    *orc.RecordReader
	plans []*fieldPlan
}

func newORCSource(ctx context.Context, f fileio.File, cfg *sourceConfig) (source, error) {
	of, err := orc.Open(f, f.Size(), orc.WithMaxRead(cfg.maxRead))
	if err != nil {
		return nil, orcError(cfg.path, err)
	}
	schema, err := of.ArrowSchema()
	if err != nil {
		return nil, orcError(cfg.path, err)
	}
	roots := arrowTree(schema.Fields())
	assignIDs(roots, cfg.mapping, cfg.schema)
	pl := &planner{path: cfg.path, constants: cfg.constants}
	plans, err := pl.planFields(cfg.schema.Fields, roots, true)
	if err != nil {
		return nil, err
	}
	// Nested fields are decoded whole, so their place is their index among
	// their siblings; a top-level field's place is its index among the
	// columns asked of the record reader.
	setPositions(plans, roots, nil, true)
	columns := []int{}
	batchCol := make(map[int]int)
	for _, p := range plans {
		if p.src == nil {
			continue
		}
		col, ok := batchCol[p.pos]
		if !ok {
			col = len(columns)
			batchCol[p.pos] = col
			columns = append(columns, of.Schema().Children[p.pos].ID)
		}
		p.pos = col
	}
	rr, err := of.NewRecordReader(ctx, cfg.mem, orc.ReadOptions{
		Columns:   columns,
		Stripes:   orcStripes(of, cfg),
		BatchSize: cfg.batchSize,
	})
	if err != nil {
		releasePlans(plans)
		return nil, orcError(cfg.path, err)
	}
	return &orcSource{cfg: cfg, rr: rr, plans: plans}, nil
}

// orcStripes returns the stripes of a byte-range split: those that start
// in the range, as ORC's own reader assigns stripes to splits. Nil means
// every stripe.
func orcStripes(of *orc.File, cfg *sourceConfig) []int {
	if cfg.length <= 0 {
		return nil
	}
	stripes := []int{}
	for i, s := range of.Stripes() {
		if cfg.start <= s.Offset && s.Offset < cfg.start+cfg.length {
			stripes = append(stripes, i)
		}
	}
	return stripes
}

func orcError(path string, err error) error {
	switch {
	case errors.Is(err, orc.ErrTooLarge):
		return fmt.Errorf("ORC file %s: %w: %v", path, fileio.ErrTooLarge, err)
	case errors.Is(err, orc.ErrUnsupported):
		return fmt.Errorf("%w: ORC file %s: %v", ErrUnsupported, path, err)
	case errors.Is(err, orc.ErrInvalidFile):
		return fmt.Errorf("%w: ORC file %s: %v", ErrInvalidTask, path, err)
	}
	return fmt.Errorf("read ORC file %s: %w", path, err)
}

func (s *orcSource) next(ctx context.Context) (arrow.RecordBatch, int64, error) {
	rec, err := s.rr.Next()
	if errors.Is(err, io.EOF) {
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, orcError(s.cfg.path, err)
	}
	defer rec.Release()
	conv := &converter{ctx: ctx, mem: s.cfg.mem, path: s.cfg.path}
	out, err := assemble(s.cfg.mem, s.cfg.out, s.cfg.path, s.plans, int(rec.NumRows()), func(p *fieldPlan) (arrow.Array, error) {
		if p.pos >= int(rec.NumCols()) {
			return nil, fmt.Errorf("read %s: column %q not where expected (internal error)", s.cfg.path, p.src.name)
		}
		return conv.convert(p, rec.Column(p.pos))
	})
	return out, s.rr.Position(), err
}

func (s *orcSource) close() {
	s.rr.Close()
	releasePlans(s.plans)
}
