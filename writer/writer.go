// Package writer changes Iceberg tables: it creates them, appends and
// overwrites rows from Arrow streams, deletes rows, evolves schemas and
// partition specs, and keeps tables healthy (snapshot expiry, orphan
// files, compaction, manifest rewrites). Every change is one atomic commit
// through the table's catalog, retried on fresh metadata when another
// writer commits first; files written by a failed attempt are removed.
//
// The request and result types are plain Go values with no wire form: the
// flight package converts them from and to proto/actions, which owns the
// JSON of the write API.
package writer

import (
	"encoding/json"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// Catalog is what the writer needs of a catalog: loading tables and
// committing changes to them. A catalog.Registry is one.
type Catalog interface {
	catalog.Catalog
	catalog.Committer
}

// Writer changes the tables of one catalog.
type Writer struct {
	cat     Catalog
	mem     memory.Allocator
	planner *planner.Planner
	reader  *reader.Reader
	now     func() time.Time
	// hook, when set, runs at named points of a commit (tests inject
	// faults and crashes there).
	hook func(point string) error
	// locks serializes this process's commit attempts per table.
	locks tableLocks
}

// Option sets an optional Writer setting.
type Option func(*Writer)

// WithAllocator sets the Arrow allocator (default memory.DefaultAllocator).
func WithAllocator(mem memory.Allocator) Option { return func(w *Writer) { w.mem = mem } }

// WithPlanner sets the planner deletes, overwrites and compaction plan
// with (default planner.New()).
func WithPlanner(p *planner.Planner) Option { return func(w *Writer) { w.planner = p } }

// WithReader sets the reader that reads the rows deletes and compaction
// rewrite (default reader.New with the table's FileIO).
func WithReader(r *reader.Reader) Option { return func(w *Writer) { w.reader = r } }

// WithClock sets the clock of snapshot timestamps and maintenance ages.
func WithClock(now func() time.Time) Option { return func(w *Writer) { w.now = now } }

// WithHook runs hook at named points of every commit ("data-written",
// "manifests-written", "metadata-written", "committed"); an error from it
// fails the commit there, as a crash would.
func WithHook(hook func(point string) error) Option { return func(w *Writer) { w.hook = hook } }

// New returns a writer of cat's tables.
func New(cat Catalog, opts ...Option) *Writer {
	w := &Writer{cat: cat, mem: memory.DefaultAllocator, now: time.Now}
	for _, o := range opts {
		o(w)
	}
	if w.planner == nil {
		w.planner = planner.New()
	}
	return w
}

// PartitionField is one field of a new table's partition spec.
type PartitionField struct {
	// Source is the source column's name (dotted for nested fields).
	Source string
	// Transform is identity, bucket[N], truncate[W], year, month, day,
	// hour or void.
	Transform string
	// Name is the partition field's name; "" derives it as Iceberg does
	// ("ts_day", "id_bucket").
	Name string
}

// SortField is one field of a new table's sort order.
type SortField struct {
	Source    string
	Transform string // default identity
	// Direction is "asc" (default) or "desc"; NullOrder "nulls-first"
	// (default for asc) or "nulls-last".
	Direction string
	NullOrder string
}

// CreateTable describes a new table.
type CreateTable struct {
	// Schema is the table's columns; field ids in it are ignored and
	// assigned afresh, nullability and nesting are kept.
	Schema      *arrow.Schema
	PartitionBy []PartitionField
	SortBy      []SortField
	Properties  map[string]string
	// FormatVersion is 2 (default) or 3 (or 1).
	FormatVersion int
	// Location overrides the catalog's default table location.
	Location string
	// IfNotExists returns the existing table instead of ErrTableExists.
	IfNotExists bool
}

// Mode is how Write changes the table.
type Mode int

// Write modes.
const (
	// Append adds the rows.
	Append Mode = iota
	// Overwrite replaces the rows that match Filter (every row with no
	// filter) by the stream's rows, in one commit.
	Overwrite
)

// WriteRequest is one Write call.
type WriteRequest struct {
	Mode Mode
	// Filter is the overwrite filter in the filter grammar; "" is all rows.
	Filter string
	// Branch is the branch written (default "main").
	Branch string
	// SnapshotProperties are added to the snapshot summary.
	SnapshotProperties map[string]string
}

// DeleteRequest is one Delete call.
type DeleteRequest struct {
	// Filter selects the rows to delete; it must be given ("true" deletes
	// every row).
	Filter string
	Branch string
	// CopyOnWrite rewrites data files without the deleted rows instead of
	// writing position deletes or deletion vectors.
	CopyOnWrite bool
	// DryRun reports what would be deleted without committing.
	DryRun bool
}

// Result is what a commit did.
type Result struct {
	// SnapshotID is the new snapshot (0 for a dry run or a no-op).
	SnapshotID       int64
	SequenceNumber   int64
	Operation        string
	MetadataLocation string
	AddedDataFiles   int64
	AddedRecords     int64
	AddedDeleteFiles int64
	DeletedDataFiles int64
	// DeletedRecords counts rows removed (whole files and positions).
	DeletedRecords int64
	AddedBytes     int64
	// Attempts is how many commit attempts it took (1 without conflict).
	Attempts int
	DryRun   bool
}

// AlterRequest is one Alter call, committed as one change.
type AlterRequest struct {
	Schema           []SchemaChange
	PartitionSpec    []SpecChange
	SortOrder        []SortField
	SetProperties    map[string]string
	RemoveProperties []string
	Refs             []RefChange
	// FormatVersion upgrades the table (never downgrades).
	FormatVersion int
}

// SchemaChange is one schema change. Op is add_column, drop_column,
// rename_column, update_type, make_optional, make_required (only for a
// column without nulls... refused unless allow_incompatible), update_doc,
// move_first, move_before, move_after, set_identifier_fields. Path is the
// column's dotted name ("a.b" for a nested field); for add_column it is
// the new column's full path (its parent must exist).
type SchemaChange struct {
	Op   string
	Path string
	// Name is the new name (rename_column).
	Name string
	// Type is an Iceberg type in the spec's JSON form ("long",
	// {"type":"struct",...}), for add_column and update_type.
	Type     json.RawMessage
	Required bool
	Doc      string
	// Default is the v3 initial and write default in JSON single-value
	// form (add_column).
	Default json.RawMessage
	// Ref is the column to move before or after.
	Ref string
	// Fields are the identifier fields (set_identifier_fields).
	Fields []string
}

// SpecChange is one partition spec change: Op add_field, remove_field or
// rename_field.
type SpecChange struct {
	Op        string
	Source    string
	Transform string
	Name      string
	NewName   string
}

// RefChange is one branch or tag change: Op create_branch, create_tag,
// replace_branch, replace_tag, remove_ref, fast_forward (Name to Target).
type RefChange struct {
	Op   string
	Name string
	// SnapshotID is the snapshot pointed at (default: current).
	SnapshotID *int64
	// Target is the branch fast_forward moves Name to.
	Target             string
	MaxRefAgeMs        *int64
	MaxSnapshotAgeMs   *int64
	MinSnapshotsToKeep *int
}

// ExpireRequest is one expire_snapshots call.
type ExpireRequest struct {
	// OlderThan expires snapshots older than this (default: now minus
	// history.expire.max-snapshot-age-ms, 5 days). A time in the future is
	// an error.
	OlderThan time.Time
	// RetainLast keeps at least this many ancestors of each branch
	// (default history.expire.min-snapshots-to-keep, 1).
	RetainLast int
	// SnapshotIDs expires these snapshots too (never a ref's head).
	SnapshotIDs []int64
	DryRun      bool
}

// OrphanRequest is one remove_orphan_files call.
type OrphanRequest struct {
	// OlderThan only removes files older than this (default 3 days ago).
	OlderThan time.Time
	// Location is the folder to clean (default: the table location).
	Location string
	DryRun   bool
}

// CompactRequest is one rewrite_data_files call.
type CompactRequest struct {
	// Filter limits compaction to matching files ("" all).
	Filter string
	// TargetFileSize defaults to write.target-file-size-bytes.
	TargetFileSize int64
	// MinInputFiles is how many files a partition needs before it is
	// rewritten (default 5); files with deletes are always rewritten.
	MinInputFiles int
	DryRun        bool
}

// RewriteManifestsRequest is one rewrite_manifests call.
type RewriteManifestsRequest struct {
	// TargetManifestSize defaults to commit.manifest.target-size-bytes
	// (8 MiB).
	TargetManifestSize int64
	DryRun             bool
}

// RemovedFile is a file maintenance removed, or would remove.
type RemovedFile struct {
	Location string
	// Kind is data, position-deletes, equality-deletes, manifest,
	// manifest-list, metadata, statistics or other.
	Kind string
	Size int64
}

// MaintenanceResult is what a maintenance action did, or would do.
type MaintenanceResult struct {
	DryRun bool
	// SnapshotID is the commit made (0 for none).
	SnapshotID       int64
	ExpiredSnapshots []int64
	Removed          []RemovedFile
	Counts           map[string]int
	// Rewritten counts input and output files of compaction and manifest
	// rewrites.
	RewrittenFiles int64
	AddedFiles     int64
}
