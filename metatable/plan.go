package metatable

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// Request is a scan of a metadata table.
type Request struct {
	Kind Kind
	// SnapshotID reads a table of one snapshot at that snapshot (Kind's
	// TimeTravel); nil reads it at the current snapshot. Other tables
	// refuse it with ErrNoTimeTravel. A caller resolves refs and
	// timestamps to a snapshot first (iceberg.TableMetadata's Ref and
	// SnapshotAsOf).
	SnapshotID *int64
	// Columns selects columns by name, fields of nested structs dotted
	// ("readable_metrics.id.lower_bound"); nil selects all of them. The
	// batches have them in the table's order, as Java's projections do.
	Columns []string
	// Filter selects rows; nil keeps all. Its names are the metadata
	// table's columns ("partition.day", "data_file.record_count").
	Filter        expr.Expr
	CaseSensitive bool
}

// Scan is a planned scan of a metadata table.
type Scan struct {
	Kind Kind
	// Schema is the schema of the batches: the metadata table's schema
	// (Schema) projected to the request's columns.
	Schema *iceberg.Schema
	// SnapshotID is the snapshot read by a table of one snapshot; nil for
	// the other tables, and for a table without snapshots.
	SnapshotID *int64
	// Units are the pieces Read streams, in order; none when there is
	// nothing to read.
	Units []Unit
	// ManifestsSkipped counts the manifests (and, for all_manifests, the
	// snapshots) the filter pruned.
	ManifestsSkipped int
}

// allManifestsSnapshotsPerUnit is how many snapshots' manifest lists a
// unit of all_manifests reads.
const allManifestsSnapshotsPerUnit = 64

// Plan plans a scan of a metadata table of t: it checks the request,
// resolves the projection and the snapshot, and splits the work into
// units. The tables of the metadata file and the partitions table are one
// unit; manifests one unit (a manifest list); all_manifests a unit per 64
// snapshots; the files and entries tables a unit per run of manifests of
// up to WithUnitBytes bytes, after pruning, read from the manifest lists
// now (every snapshot's for the all_ tables, each manifest once). Errors
// name the table.
func Plan(ctx context.Context, t Table, r Request, opts ...Option) (*Scan, error) {
	o := newOptions(opts)
	scan, s, base, err := prepare(t, r)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", t.Name, r.Kind, err)
	}
	switch {
	case r.Kind == AllManifests:
		planAllManifests(scan, s, base)
	case r.Kind.fileKind():
		err = planFiles(ctx, scan, s, base, o)
	case r.Kind.TimeTravel(): // manifests, partitions
		if s.snap != nil {
			scan.Units = []Unit{base}
		}
	default:
		scan.Units = []Unit{base}
	}
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", t.Name, r.Kind, err)
	}
	return scan, nil
}

// prepare checks a request and returns the scan without units, the state
// pruning uses and the unit every unit starts from.
func prepare(t Table, r Request) (*Scan, *scanState, Unit, error) {
	full, err := Schema(r.Kind, t.Metadata)
	if err != nil {
		return nil, nil, Unit{}, err
	}
	s := &scanState{t: t, kind: r.Kind, full: full, projected: full}
	if r.Columns != nil {
		selected, err := full.Select(r.CaseSensitive, r.Columns...)
		if err != nil {
			return nil, nil, Unit{}, err
		}
		if s.projected, err = projectIDs(full, columnIDs(full.Fields, selected.Fields)); err != nil {
			return nil, nil, Unit{}, err
		}
	}
	base := Unit{Kind: r.Kind, Columns: columnIDs(full.Fields, s.projected.Fields), CaseSensitive: r.CaseSensitive}
	switch {
	case r.SnapshotID != nil && !r.Kind.TimeTravel():
		return nil, nil, Unit{}, fmt.Errorf("%w: the %s table describes every snapshot", ErrNoTimeTravel, r.Kind)
	case r.SnapshotID != nil:
		snap, ok := t.Metadata.SnapshotByID(*r.SnapshotID)
		if !ok {
			return nil, nil, Unit{}, fmt.Errorf("%w: snapshot %d", iceberg.ErrSnapshotNotFound, *r.SnapshotID)
		}
		s.snap = snap
	case r.Kind.TimeTravel():
		s.snap = t.Metadata.CurrentSnapshot()
	}
	if s.snap != nil {
		id := s.snap.SnapshotID
		base.SnapshotID = &id
	}
	if r.Filter != nil {
		if err := s.bindFilter(r.Filter, r.CaseSensitive); err != nil {
			return nil, nil, Unit{}, err
		}
		if s.filter != nil {
			if base.Filter, err = json.Marshal(s.filter); err != nil {
				return nil, nil, Unit{}, fmt.Errorf("filter of the %s table: %w", r.Kind, err)
			}
		}
	}
	return &Scan{Kind: r.Kind, Schema: s.projected, SnapshotID: base.SnapshotID}, s, base, nil
}

// planAllManifests splits the snapshots the filter may keep into units.
func planAllManifests(scan *Scan, s *scanState, base Unit) {
	var filter expr.Expr
	if s.filter != nil {
		filter = expr.RewriteNot(s.filter)
	}
	var ids []int64
	for _, snap := range s.t.Metadata.Snapshots {
		if filter != nil && !evalBound(filter, func(p expr.Predicate) bool { return snapshotMightMatch(p, snap.SnapshotID) }) {
			scan.ManifestsSkipped++
			continue
		}
		ids = append(ids, snap.SnapshotID)
	}
	for len(ids) > 0 {
		n := min(len(ids), allManifestsSnapshotsPerUnit)
		u := base
		u.Snapshots = ids[:n:n]
		scan.Units = append(scan.Units, u)
		ids = ids[n:]
	}
}

// planFiles lists the manifests of a files or entries table, prunes them
// and groups them into units.
func planFiles(ctx context.Context, scan *Scan, s *scanState, base Unit, o *options) error {
	pruner, err := newManifestPruner(s)
	if err != nil {
		return err
	}
	snaps := []*iceberg.Snapshot{s.snap}
	if s.kind.allSnapshots() {
		snaps = snaps[:0]
		for i := range s.t.Metadata.Snapshots {
			snaps = append(snaps, &s.t.Metadata.Snapshots[i])
		}
	}
	seen := map[string]bool{}
	var unit Unit
	var bytes int64
	for _, snap := range snaps {
		if snap == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		mfs, err := manifestList(ctx, s.t, snap, o)
		if err != nil {
			return err
		}
		for i := range mfs {
			mf := &mfs[i]
			// The all_ tables read each manifest once, however many
			// snapshots list it (Java collects them in a set by path).
			if seen[mf.Path] || !wants(s.kind, mf.Content) {
				continue
			}
			seen[mf.Path] = true
			if ok, err := pruner.keep(mf); err != nil {
				return err
			} else if !ok {
				scan.ManifestsSkipped++
				continue
			}
			if len(unit.Manifests) > 0 && bytes+mf.Length > o.unitBytes {
				scan.Units = append(scan.Units, unit)
				unit.Manifests, bytes = nil, 0
			}
			if len(unit.Manifests) == 0 {
				unit = base
			}
			unit.Manifests = append(unit.Manifests, refOf(*mf))
			bytes += mf.Length
		}
	}
	if len(unit.Manifests) > 0 {
		scan.Units = append(scan.Units, unit)
	}
	return nil
}

// wants reports whether a files or entries table reads manifests of
// content.
func wants(k Kind, content iceberg.ManifestContent) bool {
	if content == iceberg.ManifestContentDeletes {
		return k.readsDeletes()
	}
	return k.readsData()
}

// ProjectedSchema returns the schema of the batches a scan of r would
// have, after checking r as Plan does, without reading any file.
func ProjectedSchema(t Table, r Request) (*iceberg.Schema, error) {
	scan, _, _, err := prepare(t, r)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", t.Name, r.Kind, err)
	}
	return scan.Schema, nil
}
