// Package planner turns a table snapshot into scan tasks: it selects the
// snapshot, reads its manifest list and manifests, keeps the live data
// files, and groups them into endpoints.
package planner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrInvalidRequest marks a request that can never succeed as written.
	ErrInvalidRequest = errors.New("invalid scan request")
	// ErrUnsupported marks a table feature this version cannot read
	// correctly yet; the scan fails rather than return wrong rows.
	ErrUnsupported = errors.New("unsupported")
)

// DefaultMaxEndpoints caps the endpoints of a plan when a request sets none.
const DefaultMaxEndpoints = 64

// Table is what the planner needs to know about a table.
type Table struct {
	// Name is the table's identifier, used in messages.
	Name             string
	MetadataLocation string
	Metadata         *iceberg.TableMetadata
	// IO opens the table's metadata and manifest files. When it also
	// implements Mapper, task paths are the mapped locations, so a worker
	// can open them with a plain FileIO.
	IO fileio.FileIO
	// Check, when set, vets the mapped location of every file the plan
	// reads or names: manifest lists and manifests before they are read or
	// served from the cache (so a caller who may not read a file does not
	// get it from another's plan), data and delete files before they go
	// into a task. Its error fails the plan, naming the file as recorded.
	Check func(location string) error
}

// locate returns where the recorded file of kind at location really is,
// once t.Check lets it be read; the error names the file as recorded.
func (t Table) locate(kind, location string) (string, error) {
	mapped := location
	if m, ok := t.IO.(Mapper); ok {
		mapped = m.Map(location)
	}
	if t.Check != nil {
		if err := t.Check(mapped); err != nil {
			return "", fmt.Errorf("%s %s: %w", kind, location, err)
		}
	}
	return mapped, nil
}

// Mapper rewrites a location recorded in metadata to where the file is.
type Mapper interface {
	Map(location string) string
}

// Request is a scan request.
type Request struct {
	Selection
	// Columns selects columns by name; nil means all, an empty non-nil
	// slice none (the scan then yields only row counts).
	Columns       []string
	CaseSensitive bool
	// MaxEndpoints caps the number of endpoints; 0 means DefaultMaxEndpoints.
	MaxEndpoints int
	// TargetSplitBytes is the size large files are split to; 0 means
	// DefaultTargetSplitBytes.
	TargetSplitBytes int64
	// Filter selects rows; nil reads all. It is bound to the scan's schema.
	Filter expr.Expr
	// Limit caps the rows read; 0 means no limit. A limited scan is planned
	// into one endpoint whose ticket stops the stream at the limit.
	Limit int64
	// Dictionary asks for columns as Arrow dictionaries.
	Dictionary Dictionary
	// Incremental, when set, plans the data files that appends added in a
	// range of snapshots instead of a snapshot's live files (see
	// Incremental); the Selection must then be empty.
	Incremental *Incremental
	// KeepFiles puts on every task the data file as its manifest records
	// it (Task.File), and on every delete file the delete file
	// (DeleteFile.File), and plans one task per data file: a front end
	// that describes files in full, as the REST catalog's scan planning
	// does, then has them, and its client splits files itself.
	KeepFiles bool
	// StatsFields names columns whose metrics the tasks' files keep
	// (Task.File, with KeepFiles), beside those the filter tests: full
	// names, nested ones dotted as Iceberg's Schema.findField takes them
	// ("a.b", "points.element.x", "m.key"). Without it files keep only
	// the metrics pruning needed.
	StatsFields []string
}

// Plan is a planned scan.
type Plan struct {
	Table            string
	MetadataLocation string
	FormatVersion    int
	// Snapshot is nil when the table has no snapshot: the plan is empty.
	// An incremental plan's is its end snapshot.
	Snapshot *iceberg.Snapshot
	// Schema is the projected schema rows are read with.
	Schema *iceberg.Schema
	// NameMappingJSON is the table's schema.name-mapping.default, if any.
	NameMappingJSON string
	// EqualitySchema holds the fields the plan's equality deletes compare
	// on; nil when there are none.
	EqualitySchema *iceberg.Schema
	// FilterSchema holds the fields the tasks' residual filters test; nil
	// when no task has a residual.
	FilterSchema *iceberg.Schema
	// Endpoints holds the tasks of each endpoint.
	Endpoints []Endpoint
	// Limit is the row limit each endpoint's stream stops at; 0 for none.
	Limit int64
	// Dictionary holds the ids of the top-level fields of Schema streamed
	// as Arrow dictionaries (Request.Dictionary), in schema order.
	Dictionary []int
	// StatsFields holds the field ids Request.StatsFields names, in the
	// order named.
	StatsFields []int
	Stats       Stats
}

// Endpoint is a group of tasks served by one DoGet.
type Endpoint struct {
	Tasks   []*Task
	Bytes   int64
	Records int64
}

// Planner plans scans.
type Planner struct {
	concurrency int
	cache       *cache
	maxManifest int64
}

// Option configures a Planner.
type Option func(*Planner)

// WithConcurrency bounds how many manifests are read at once.
func WithConcurrency(n int) Option {
	return func(p *Planner) {
		if n > 0 {
			p.concurrency = n
		}
	}
}

// WithCacheBytes bounds the cache of decoded manifests and manifest lists;
// 0 disables it.
func WithCacheBytes(n int64) Option {
	return func(p *Planner) { p.cache = newCache(n) }
}

// New returns a Planner.
func New(opts ...Option) *Planner {
	p := &Planner{concurrency: 4 * runtime.GOMAXPROCS(0), cache: newCache(DefaultCacheBytes), maxManifest: DefaultMaxManifestBytes}
	for _, o := range opts {
		o(p)
	}
	return p
}

// CacheStats reports the manifest cache's use.
func (p *Planner) CacheStats() CacheStats { return p.cache.stats() }

var tracer = otel.Tracer("github.com/iceflight/iceflight/planner")

// Plan plans a scan of t.
func (p *Planner) Plan(ctx context.Context, t Table, req Request) (*Plan, error) {
	ctx, span := tracer.Start(ctx, "planner.Plan")
	defer span.End()
	span.SetAttributes(attribute.String("iceflight.table", t.Name))
	s, err := p.begin(t, req)
	if err != nil {
		return nil, err
	}
	if s.plan.Snapshot == nil {
		return s.plan, nil
	}
	plan, snap := s.plan, s.plan.Snapshot
	span.SetAttributes(attribute.Int64("iceflight.snapshot_id", snap.SnapshotID))
	data, deletes, err := p.collect(ctx, t, snap, s.filter, collectOptions{limit: req.Limit, metrics: s.metrics, appends: s.appends}, &plan.Stats)
	if err != nil {
		return nil, fmt.Errorf("table %s snapshot %d: %w", t.Name, snap.SnapshotID, err)
	}
	target := req.TargetSplitBytes
	if target <= 0 {
		target = DefaultTargetSplitBytes
	}
	if req.KeepFiles {
		target = 0 // one task per file: the front end's client splits
	}
	tasks, err := p.tasks(t, data, deletes, s.filter, taskOptions{cols: columnsOf(plan.Schema), targetSplit: target, keepFiles: req.KeepFiles}, &plan.Stats)
	if err != nil {
		return nil, fmt.Errorf("table %s snapshot %d: %w", t.Name, snap.SnapshotID, err)
	}
	plan.EqualitySchema = equalitySchema(t.Metadata, tasks)
	plan.FilterSchema = s.filter.filterSchema(s.readSchema, tasks)
	maxEndpoints := req.MaxEndpoints
	if maxEndpoints <= 0 {
		maxEndpoints = DefaultMaxEndpoints
	}
	if req.Limit > 0 {
		maxEndpoints = 1
		plan.Limit = req.Limit
	}
	plan.Endpoints = groupEndpoints(tasks, maxEndpoints)
	plan.Stats.Tasks = len(tasks)
	plan.Stats.Endpoints = len(plan.Endpoints)
	plan.Stats.PlanningMillis = millisSince(s.start)
	span.SetAttributes(attribute.Int("iceflight.tasks", len(tasks)), attribute.Int("iceflight.endpoints", len(plan.Endpoints)))
	return plan, nil
}

// scanStart is what every plan of a request works out before it reads a
// manifest list: the plan's frame (snapshot, projection, dictionaries),
// the schema the filter binds to and the bound filter.
type scanStart struct {
	plan       *Plan
	readSchema *iceberg.Schema
	filter     *scanFilter
	metrics    iceberg.MetricColumns
	appends    *appendScan
	start      time.Time
}

// begin resolves req on t. The plan it returns has no snapshot when the
// table has none, and is then complete.
func (p *Planner) begin(t Table, req Request) (*scanStart, error) {
	s := &scanStart{start: time.Now()}
	md := t.Metadata
	appends, err := req.Incremental.resolve(md, req.Selection)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	// The selection is resolved once: the snapshot, and the schema both the
	// projection and the filter bind to, come from the same answer. An
	// incremental scan has none, so it reads with the current schema.
	snap, readSchema, err := req.Resolve(md)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	if appends != nil {
		snap = appends.to
	}
	schema, err := projectSchema(md, readSchema, req)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	dict, err := DictionaryFields(schema, req.Dictionary, req.CaseSensitive)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	statsIDs, err := statsFieldIDs(readSchema, req.StatsFields, req.CaseSensitive)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	s.plan = &Plan{
		Dictionary:       dict,
		StatsFields:      statsIDs,
		Table:            t.Name,
		MetadataLocation: t.MetadataLocation,
		FormatVersion:    md.FormatVersion,
		Snapshot:         snap,
		Schema:           schema,
		NameMappingJSON:  md.Properties["schema.name-mapping.default"],
	}
	if snap == nil {
		s.plan.Stats.PlanningMillis = millisSince(s.start)
		return s, nil
	}
	s.plan.Stats.SnapshotID = snap.SnapshotID
	s.readSchema, s.appends = readSchema, appends
	if s.filter, err = newScanFilter(md, readSchema, req.Filter, req.CaseSensitive); err != nil {
		return nil, fmt.Errorf("table %s: %w: %w", t.Name, ErrInvalidRequest, err)
	}
	s.metrics = s.filter.metricColumns()
	if len(statsIDs) > 0 {
		s.metrics = s.metrics.Union(iceberg.MetricsOf(statsIDs...))
	}
	return s, nil
}

func millisSince(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}

// Stats describes what planning read and chose; it is sent to clients as
// FlightInfo app_metadata.
type Stats struct {
	SnapshotID       int64 `json:"snapshot_id"`
	ManifestsRead    int   `json:"manifests_read"`
	ManifestsSkipped int   `json:"manifests_skipped"`
	// Data files skipped by their partition values and by column metrics,
	// and delete files skipped by partition.
	FilesSkippedByPartition int `json:"data_files_skipped_by_partition"`
	FilesSkippedByMetrics   int `json:"data_files_skipped_by_metrics"`
	DeleteFilesSkipped      int `json:"delete_files_skipped"`
	// ManifestCacheHits counts manifests served decoded from the cache.
	ManifestCacheHits int     `json:"manifest_cache_hits"`
	DataFiles         int     `json:"data_files"`
	DeleteFiles       int     `json:"delete_files"`
	Records           int64   `json:"records"`
	Bytes             int64   `json:"bytes"`
	Tasks             int     `json:"tasks"`
	Endpoints         int     `json:"endpoints"`
	PlanningMillis    float64 `json:"planning_ms"`
	// ManifestTickets marks an Outline: the counts of files and records
	// are the manifest list's, and manifests were not read.
	ManifestTickets bool `json:"manifest_tickets,omitempty"`
}
