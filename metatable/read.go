package metatable

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg"
)

// Read streams one unit of a metadata table scan of t, calling emit with
// each batch of at most WithBatchRows rows, in the Schema of the scan that
// planned the unit; emit owns the batch and releases it. Batches are built
// with WithAllocator's allocator. A unit reads the same rows in the same
// order each time. Read stops at emit's first error and returns it, and
// stops when ctx ends. Errors name the table and the file that failed.
func Read(ctx context.Context, t Table, u Unit, emit func(arrow.RecordBatch) error, opts ...Option) error {
	o := newOptions(opts)
	s, err := newScanState(t, u)
	if err != nil {
		return fmt.Errorf("%s.%s: %w", t.Name, u.Kind, err)
	}
	switch {
	case u.Kind == Manifests || u.Kind == AllManifests:
		err = readManifestRows(ctx, s, u, emit, o)
	case u.Kind == Partitions:
		err = readPartitions(ctx, s, emit, o)
	case u.Kind.fileKind():
		err = readFileRows(ctx, s, u, emit, o)
	default:
		err = readTableRows(ctx, s, emit, o)
	}
	if err != nil {
		return fmt.Errorf("%s.%s: %w", t.Name, u.Kind, err)
	}
	return nil
}

// readFileRows streams a unit of a files or entries table: its manifests
// one at a time, each one's entries (live ones only, but for the entries
// tables) in manifest order.
func readFileRows(ctx context.Context, s *scanState, u Unit, emit func(arrow.RecordBatch) error, o *options) error {
	w, err := newRowWriter(ctx, s, fileColumns(s.kind, s.t.Metadata.CurrentSchema(), s.full), emit, o)
	if err != nil {
		return err
	}
	defer w.release()
	metrics := s.metricColumns()
	for _, ref := range u.Manifests {
		if err := ctx.Err(); err != nil {
			return err
		}
		spec, _ := s.t.Metadata.SpecByID(ref.SpecID)
		entries, err := manifestEntries(ctx, s.t, ref, metrics, o)
		if err != nil {
			return err
		}
		o.stats.hold(len(entries))
		for i := range entries {
			if !s.kind.entryKind() && entries[i].Status == iceberg.EntryDeleted {
				continue
			}
			if err := w.add(&fileRow{e: &entries[i], spec: &spec}); err != nil {
				o.stats.release(len(entries))
				return fmt.Errorf("manifest %s: %w", ref.Path, err)
			}
		}
		o.stats.release(len(entries))
	}
	return w.flush()
}

// metricColumns returns the columns whose metrics a files or entries read
// decodes: every column's when the projection or the filter reaches a
// metrics map or readable_metrics, none otherwise.
func (s *scanState) metricColumns() iceberg.MetricColumns {
	rm := s.full.Fields[len(s.full.Fields)-1].ID
	for _, id := range []int{idColumnSizes, idValueCounts, idNullValueCounts, idNaNValueCounts, idLowerBounds, idUpperBounds, rm} {
		if _, ok := s.projected.FieldByID(id); ok {
			return iceberg.AllMetrics()
		}
		for _, path := range s.filterPaths {
			for _, p := range path {
				if p == id {
					return iceberg.AllMetrics()
				}
			}
		}
	}
	return iceberg.MetricsOf()
}
