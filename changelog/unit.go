package changelog

import (
	"encoding/json"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

// ChangeKind is what a Change reads, after Iceberg Java's changelog scan
// tasks.
type ChangeKind string

// The kinds of changes.
const (
	// AddedRows reads a data file the snapshot added, less the deletes
	// that apply at the snapshot: inserts (Java's AddedRowsScanTask).
	AddedRows ChangeKind = "added_rows"
	// DeletedFile reads a data file the snapshot removed, less the rows
	// deleted before it: deletes (Java's DeletedDataFileScanTask).
	DeletedFile ChangeKind = "deleted_file"
	// DeletedRows reads the rows of a kept data file that the delete files
	// the snapshot added remove and the earlier ones did not: deletes
	// (Java's DeletedRowsScanTask).
	DeletedRows ChangeKind = "deleted_rows"
)

// Change is one data file's part of a snapshot's changes.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Task is the data file with the deletes to apply: for AddedRows those
	// that apply at the snapshot, for DeletedFile those before it, for
	// DeletedRows the ones the snapshot added. Its Residual and File are
	// unset; the residual travels as JSON.
	Task *scantask.Task `json:"task"`
	// Residual is the filter still to apply to the file's rows as the
	// Iceberg REST catalog's Expression JSON; empty keeps every row.
	Residual json.RawMessage `json:"residual,omitempty"`
	// Earlier are the delete files that applied to a DeletedRows file
	// before the snapshot.
	Earlier []*scantask.DeleteFile `json:"earlier,omitempty"`
}

// Unit is a piece of a change stream that Read streams on its own: the
// changes of one snapshot, or of one data file of it. It is plain data,
// JSON-friendly, so that a ticket can carry it.
type Unit struct {
	// Ordinal is the snapshot's place in the range (_change_ordinal).
	Ordinal int `json:"ordinal"`
	// CommitSnapshotID is the snapshot (_commit_snapshot_id).
	CommitSnapshotID int64 `json:"commit_snapshot_id"`
	// Schema is the projected table schema the rows are read with.
	Schema *iceberg.Schema `json:"schema"`
	// EqualitySchema and FilterSchema are the reader's (reader.Scan).
	EqualitySchema *iceberg.Schema `json:"equality_schema,omitempty"`
	FilterSchema   *iceberg.Schema `json:"filter_schema,omitempty"`
	NameMapping    string          `json:"name_mapping,omitempty"`
	Changes        []Change        `json:"changes"`
	// Group is set on the one unit of a snapshot that both deletes and
	// inserts rows: Read groups its rows to drop carry-overs and compute
	// updates.
	Group bool `json:"group,omitempty"`
	// Identifier holds the field ids updates are computed by; empty
	// computes none.
	Identifier []int `json:"identifier,omitempty"`
}
