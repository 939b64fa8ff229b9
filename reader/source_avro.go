package reader

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/avro"
)

// Spec: Avro (Appendix A). Iceberg writes Avro data and delete files as
// records whose fields carry field-id properties; optional fields are
// unions of null and one type; list elements, and map keys and values, get
// their ids from element-id, key-id and value-id; maps with non-string keys
// are arrays of key/value records with logicalType "map". The source
// describes the file as an Arrow schema with those ids, so that the common
// projection, conversion and fill code plans it like any other file, and
// decodes goavro's values straight into Arrow builders of those types.

// avroSource reads an Avro Object Container File.
type avroSource struct {
	cfg    *sourceConfig
	c      *avro.Container
	record *avro.Schema
	roots  []arrow.Field // the file's top-level columns as Arrow fields
	plans  []*fieldPlan
	used   []int // indices of the top-level columns some plan reads
	done   bool
}

func newAvroSource(_ context.Context, f fileio.File, cfg *sourceConfig) (source, error) {
	c, err := avro.Open(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		return nil, fmt.Errorf("%w: avro file %s: %v", ErrInvalidTask, cfg.path, err)
	}
	c.DecodePhysical()
	c.SetMaxBlock(cfg.maxRead)
	if cfg.length > 0 {
		c.SetRange(cfg.start, cfg.start+cfg.length)
	}
	raw, err := c.SchemaJSON()
	if err != nil {
		return nil, fmt.Errorf("read avro file %s: %w", cfg.path, err)
	}
	record, err := avro.ParseSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("read avro file %s: %w", cfg.path, err)
	}
	if record.Type != "record" {
		return nil, fmt.Errorf("%w: avro file %s holds %s values, not records", ErrSchemaMismatch, cfg.path, record.Type)
	}
	s := &avroSource{cfg: cfg, c: c, record: record}
	for _, fld := range record.Fields {
		af, err := avroArrowField(fld.Name, fld.ID(), fld.Type, 0)
		if err != nil {
			return nil, fmt.Errorf("read avro file %s: column %q: %w", cfg.path, fld.Name, err)
		}
		s.roots = append(s.roots, af)
	}
	roots := arrowTree(s.roots)
	assignIDs(roots, cfg.mapping, cfg.schema)
	pl := &planner{path: cfg.path, constants: cfg.constants}
	if s.plans, err = pl.planFields(cfg.schema.Fields, roots, true); err != nil {
		return nil, err
	}
	// Every column is decoded whole, so a field's place is its index among
	// its siblings in the file.
	setPositions(s.plans, roots, nil, true)
	seen := make(map[int]bool)
	for _, p := range s.plans {
		if p.src != nil && !seen[p.pos] {
			seen[p.pos] = true
			s.used = append(s.used, p.pos)
		}
	}
	return s, nil
}

func (s *avroSource) next(ctx context.Context) (arrow.RecordBatch, int64, error) {
	if s.done {
		return nil, 0, io.EOF
	}
	builders := make(map[int]array.Builder, len(s.used))
	for _, i := range s.used {
		builders[i] = array.NewBuilder(s.cfg.mem, s.roots[i].Type)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	var n int
	var first int64
	for n < s.cfg.batchSize {
		v, err := s.c.Next()
		if errors.Is(err, io.EOF) {
			s.done = true
			break
		}
		if errors.Is(err, avro.ErrTooLarge) {
			return nil, 0, fmt.Errorf("avro file %s: %w: %v", s.cfg.path, fileio.ErrTooLarge, err)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%w: avro file %s: %v", ErrInvalidTask, s.cfg.path, err)
		}
		if n == 0 {
			first = s.c.Position()
		}
		rec, ok := v.(map[string]any)
		if !ok {
			return nil, 0, fmt.Errorf("%w: avro file %s: record %d is %T", ErrSchemaMismatch, s.cfg.path, s.c.Position(), v)
		}
		for _, i := range s.used {
			fld := s.record.Fields[i]
			if err := appendAvro(builders[i], fld.Type, rec[fld.Name]); err != nil {
				return nil, 0, fmt.Errorf("%w: avro file %s: record %d, column %q: %v", ErrSchemaMismatch, s.cfg.path, s.c.Position(), fld.Name, err)
			}
		}
		n++
	}
	if n == 0 {
		return nil, 0, io.EOF
	}
	cols := make(map[int]arrow.Array, len(builders))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, b := range builders {
		cols[i] = b.NewArray()
	}
	conv := &converter{ctx: ctx, mem: s.cfg.mem, path: s.cfg.path}
	out, err := assemble(ctx, s.cfg.mem, s.cfg.out, s.cfg.path, s.plans, n, func(p *fieldPlan) (arrow.Array, error) {
		return conv.convert(p, cols[p.pos])
	})
	return out, first, err
}

func (s *avroSource) close() { releasePlans(s.plans) }
