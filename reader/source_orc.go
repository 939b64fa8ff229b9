package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
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
	units := map[int]arrow.TimeUnit{}
	orcTimestampUnits(of.Schema().Children, roots, cfg.schema, units)
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
		TimestampUnit: func(id int) arrow.TimeUnit {
			if u, ok := units[id]; ok {
				return u
			}
			return arrow.Microsecond
		},
	})
	if err != nil {
		releasePlans(plans)
		return nil, orcError(cfg.path, err)
	}
	return &orcSource{cfg: cfg, rr: rr, plans: plans}, nil
}

// orcTimestampUnits picks the unit each timestamp column of types (whose
// fileFields are nodes) is decoded into, by ORC column id: nanoseconds for
// a field read as timestamp_ns or timestamptz_ns, microseconds for every
// other. Decoding straight into microseconds is what lets Iceberg's
// timestamps past 2262 read (Spark's end of time is 9999-12-31), where
// nanoseconds would overflow. The leaf's typ records the unit.
func orcTimestampUnits(types []*orc.Type, nodes []*fileField, schema *iceberg.Schema, units map[int]arrow.TimeUnit) {
	for i, t := range types {
		n := nodes[i]
		if ts, ok := n.typ.(*arrow.TimestampType); ok {
			unit := arrow.Microsecond
			if f, ok := schema.FieldByID(n.id); ok {
				switch f.Type.(type) {
				case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
					unit = arrow.Nanosecond
				}
			}
			units[t.ID] = unit
			n.typ = &arrow.TimestampType{Unit: unit, TimeZone: ts.TimeZone}
		}
		orcTimestampUnits(t.Children, n.children, schema, units)
	}
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
	out, err := assemble(ctx, s.cfg.mem, s.cfg.out, s.cfg.path, s.plans, int(rec.NumRows()), func(p *fieldPlan) (arrow.Array, error) {
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
