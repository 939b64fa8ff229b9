package planner

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// An outline is a plan cut at the manifest level, for tables too large to
// list file by file: the coordinator reads only the manifest list, keeps
// the data manifests whose partition summaries and counts may hold
// matching rows, and groups them; whoever plans a group (PlanGroup) reads
// its manifests, prunes their files and builds the tasks. Planning then
// costs the coordinator one manifest list whatever the file count, and the
// group's reader the manifests of its group.

// Outline is a scan of a snapshot planned down to its manifests.
type Outline struct {
	// Plan is the scan's frame: snapshot, projected schema, dictionaries,
	// name mapping and the statistics of the manifest list. It has no
	// endpoints; a table without a snapshot has no groups either.
	Plan *Plan
	// SchemaID is the schema the filter binds to (the snapshot's, or the
	// current one when a branch or the table's head is read), which
	// PlanGroup needs to bind it the same way.
	SchemaID int
	// Groups are the kept data manifests, in manifest list order, cut into
	// runs of about the same file count, each with the delete manifests
	// that may apply to its files.
	Groups []ManifestGroup
	// DataFiles is how many live data files the kept manifests list, by
	// the manifest list's counts; -1 when a manifest does not record them.
	DataFiles int64
	// Records is the scan's row count when the manifest list tells it
	// exactly (no filter, no delete manifest, every count recorded); -1
	// otherwise.
	Records int64
	// deletes are the snapshot's delete manifests, for Regroup.
	deletes []iceberg.ManifestFile
	// filter and readSchema are the scan's, for Finish.
	filter     *scanFilter
	readSchema *iceberg.Schema
	md         *iceberg.TableMetadata
	maxGroups  int
}

// Finish makes the file-level plan of tasks, the tasks of some or all of
// the outline's groups (PlanGroup's, in group order): the outline's frame
// with the tasks grouped into at most maxEndpoints endpoints (0: the
// request's), the schemas their reads need and their counts. A planner
// that had the groups planned elsewhere, in parallel, ends here.
func (o *Outline) Finish(tasks []*Task, maxEndpoints int) *Plan {
	plan := *o.Plan
	plan.Stats.ManifestTickets = false
	plan.Stats.DataFiles, plan.Stats.Records, plan.Stats.Bytes = 0, 0, 0
	seen := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		if !seen[t.Path] {
			seen[t.Path] = true
			plan.Stats.DataFiles++
			plan.Stats.Records += t.RecordCount
			plan.Stats.Bytes += t.FileSize
		}
	}
	if maxEndpoints <= 0 {
		maxEndpoints = o.maxGroups
	}
	plan.EqualitySchema = equalitySchema(o.md, tasks)
	plan.FilterSchema = o.filter.filterSchema(o.readSchema, tasks)
	plan.Endpoints = groupEndpoints(tasks, maxEndpoints)
	plan.Stats.Tasks = len(tasks)
	plan.Stats.Endpoints = len(plan.Endpoints)
	return &plan
}

// Regroup cuts the outline's data manifests into at most n groups again,
// as Outline cuts them: a caller whose FlightInfo would be too large with
// every ticket repeating the scan's filter asks for fewer.
func (o *Outline) Regroup(n int) {
	var data []iceberg.ManifestFile
	for _, g := range o.Groups {
		data = append(data, g.Data...)
	}
	o.Groups = groupManifests(data, o.deletes, n)
	o.Plan.Stats.Endpoints = len(o.Groups)
}

// groupManifests cuts data into at most n runs, each with the delete
// manifests that may apply to its files.
func groupManifests(data, deletes []iceberg.ManifestFile, n int) []ManifestGroup {
	var groups []ManifestGroup
	for _, run := range cutRuns(data, n) {
		groups = append(groups, ManifestGroup{Data: run, Deletes: relevantDeletes(run, deletes, &Stats{}), Files: liveFiles(run)})
	}
	return groups
}

// ManifestGroup is a run of a snapshot's data manifests and the delete
// manifests that may apply to their files.
type ManifestGroup struct {
	Data, Deletes []iceberg.ManifestFile
	// Files is how many live data files Data lists by the manifest list's
	// counts; -1 when a manifest does not record them.
	Files int64
}

// Outlines reports whether req can be planned as an Outline: a scan of one
// snapshot, without a row limit (a limited scan reads few manifests, in
// order), and without full file records (KeepFiles, which front ends that
// describe files in full need from the whole plan).
func (r Request) Outlines() bool {
	return r.Incremental == nil && r.Limit == 0 && !r.KeepFiles
}

// Outline plans a scan of t at the manifest level, into at most
// req.MaxEndpoints groups; req must satisfy Request.Outlines. Every
// manifest a group names has passed Table.Check.
func (p *Planner) Outline(ctx context.Context, t Table, req Request) (*Outline, error) {
	ctx, span := tracer.Start(ctx, "planner.Outline")
	defer span.End()
	span.SetAttributes(attribute.String("iceflight.table", t.Name))
	if !req.Outlines() {
		return nil, fmt.Errorf("table %s: %w: an incremental, limited or full-record scan is planned file by file", t.Name, ErrInvalidRequest)
	}
	s, err := p.begin(t, req)
	if err != nil {
		return nil, err
	}
	out := &Outline{Plan: s.plan, DataFiles: 0, Records: -1}
	snap := s.plan.Snapshot
	if snap == nil {
		out.Records = 0
		return out, nil
	}
	out.SchemaID = s.readSchema.ID
	stats := &s.plan.Stats
	data, deletes, err := p.selectManifests(ctx, t, snap, s.filter, nil, stats)
	if err != nil {
		return nil, fmt.Errorf("table %s snapshot %d: %w", t.Name, snap.SnapshotID, err)
	}
	for _, mf := range append(data[:len(data):len(data)], deletes...) {
		if _, err := t.locate("manifest", mf.Path); err != nil {
			return nil, fmt.Errorf("table %s snapshot %d: %w", t.Name, snap.SnapshotID, err)
		}
	}
	out.DataFiles = liveFiles(data)
	if s.filter == nil && len(relevantDeletes(data, deletes, &Stats{})) == 0 {
		out.Records = liveRows(data)
	}
	maxGroups := req.MaxEndpoints
	if maxGroups <= 0 {
		maxGroups = DefaultMaxEndpoints
	}
	out.deletes, out.filter, out.readSchema, out.md, out.maxGroups = deletes, s.filter, s.readSchema, t.Metadata, maxGroups
	out.Groups = groupManifests(data, deletes, maxGroups)
	stats.DataFiles = int(max(out.DataFiles, 0))
	stats.Records = out.Records
	stats.Endpoints = len(out.Groups)
	stats.ManifestTickets = true
	stats.PlanningMillis = millisSince(s.start)
	span.SetAttributes(attribute.Int("iceflight.groups", len(out.Groups)), attribute.Int64("iceflight.data_files", out.DataFiles))
	return out, nil
}

// liveFiles sums the live data files of mfs by their counts; -1 when one
// does not record them.
func liveFiles(mfs []iceberg.ManifestFile) int64 {
	var n int64
	for _, mf := range mfs {
		if mf.AddedFilesCount < 0 || mf.ExistingFilesCount < 0 {
			return -1
		}
		n += mf.AddedFilesCount + mf.ExistingFilesCount
	}
	return n
}

// liveRows sums the live rows of mfs by their counts; -1 when one does not
// record them.
func liveRows(mfs []iceberg.ManifestFile) int64 {
	var n int64
	for _, mf := range mfs {
		if mf.AddedRowsCount < 0 || mf.ExistingRowsCount < 0 {
			return -1
		}
		n += mf.AddedRowsCount + mf.ExistingRowsCount
	}
	return n
}

// cutRuns cuts mfs, in order, into at most n runs of about the same live
// file count (a manifest that does not record its count weighs one file).
// Runs keep list order, so neighbouring commits (close sequence numbers)
// share a group and its delete manifests.
func cutRuns(mfs []iceberg.ManifestFile, n int) [][]iceberg.ManifestFile {
	if len(mfs) == 0 {
		return nil
	}
	n = min(n, len(mfs))
	weight := func(mf iceberg.ManifestFile) int64 {
		return max(mf.AddedFilesCount, 0) + max(mf.ExistingFilesCount, 0) + 1
	}
	var total int64
	for _, mf := range mfs {
		total += weight(mf)
	}
	runs := make([][]iceberg.ManifestFile, 0, n)
	start, sum := 0, int64(0)
	for i, mf := range mfs {
		sum += weight(mf)
		left := len(mfs) - i - 1  // manifests after this one
		need := n - len(runs) - 1 // runs still to start after this one
		// Cut where the running sum reaches the next share, or where every
		// remaining manifest must start a run of its own.
		if len(runs) < n-1 && (sum*int64(n) >= total*int64(len(runs)+1) || left == need) {
			runs = append(runs, mfs[start:i+1])
			start = i + 1
		}
	}
	if start < len(mfs) {
		runs = append(runs, mfs[start:])
	}
	return runs
}

// GroupScan is one group of an Outline with what planning it needs, as a
// ticket carries it to whichever process plans it.
type GroupScan struct {
	// SchemaID is Outline.SchemaID: the schema Filter binds to.
	SchemaID int
	// Schema is the projected schema (Outline.Plan.Schema).
	Schema        *iceberg.Schema
	Filter        expr.Expr
	CaseSensitive bool
	// TargetSplitBytes is the size large files are split to; 0 means
	// DefaultTargetSplitBytes.
	TargetSplitBytes int64
	Group            ManifestGroup
}

// GroupTasks are the tasks of some of a group's manifests, with the
// schemas their reads need (Plan.EqualitySchema, Plan.FilterSchema).
type GroupTasks struct {
	Tasks                        []*Task
	EqualitySchema, FilterSchema *iceberg.Schema
}

// PlanGroup plans one group of an outline of t, handing emit the tasks of
// a few manifests at a time, in manifest order: the group's delete files
// are read and indexed once, then its data manifests in runs of the
// planner's concurrency, so memory holds the delete index and one run,
// not the group; the data manifests do not enter the planner's cache.
// Every file goes through Table.Check.
func (p *Planner) PlanGroup(ctx context.Context, t Table, g GroupScan, emit func(GroupTasks) error) error {
	ctx, span := tracer.Start(ctx, "planner.PlanGroup", trace.WithAttributes(
		attribute.String("iceflight.table", t.Name), attribute.Int("iceflight.manifests", len(g.Group.Data))))
	defer span.End()
	md := t.Metadata
	readSchema, ok := md.SchemaByID(g.SchemaID)
	if !ok {
		return fmt.Errorf("table %s: %w: schema %d is not in the table's metadata", t.Name, ErrInvalidRequest, g.SchemaID)
	}
	filter, err := newScanFilter(md, readSchema, g.Filter, g.CaseSensitive)
	if err != nil {
		return fmt.Errorf("table %s: %w: %w", t.Name, ErrInvalidRequest, err)
	}
	var c counters
	deletes, err := p.readEntries(ctx, t, g.Group.Deletes, &c, iceberg.AllMetrics(), filter.keepDelete(&c))
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	index, err := indexDeletes(t, deletes, false)
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	target := g.TargetSplitBytes
	if target <= 0 {
		target = DefaultTargetSplitBytes
	}
	opts := taskOptions{cols: columnsOf(g.Schema), targetSplit: target}
	metrics := filter.metricColumns()
	// A group's data manifests are read once a scan, and a table planned in
	// groups has more of them than the cache holds: an LRU cycled through
	// them keeps none that is asked again and pushes out what would be.
	// They are served from the cache when there, never added.
	c.uncached = true
	for lo := 0; lo < len(g.Group.Data); lo += p.concurrency {
		run := g.Group.Data[lo:min(lo+p.concurrency, len(g.Group.Data))]
		data, err := p.readEntries(ctx, t, run, &c, metrics, filter.keepData(&c))
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		tasks, err := buildTasks(t, data, index, filter, opts, &Stats{})
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		if len(tasks) == 0 {
			continue
		}
		if err := emit(GroupTasks{Tasks: tasks, EqualitySchema: equalitySchema(md, tasks), FilterSchema: filter.filterSchema(readSchema, tasks)}); err != nil {
			return err
		}
	}
	return nil
}
