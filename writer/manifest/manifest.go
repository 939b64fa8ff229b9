// Package manifest writes Iceberg manifests and manifest lists: Avro
// container files with the spec's schemas (field ids included) and the
// metadata keys Iceberg Java requires, for format versions 1 to 3.
package manifest

import (
	"io"

	"github.com/iceflight/iceflight/iceberg"
)

// Options describe the manifest a Writer writes.
type Options struct {
	// FormatVersion is the table's format version (1, 2 or 3).
	FormatVersion int
	// Content is data or deletes (deletes need version 2 or later).
	Content iceberg.ManifestContent
	// Schema is the table schema the entries were written with; it is
	// written as the "schema" metadata key and types the partition tuple.
	Schema *iceberg.Schema
	// Spec is the partition spec of every entry.
	Spec iceberg.PartitionSpec
	// SnapshotID is the snapshot that adds the manifest.
	SnapshotID int64
}

// Writer writes one manifest.
type Writer struct{ impl *writerImpl }

// NewWriter starts a manifest on w.
func NewWriter(w io.Writer, opts Options) (*Writer, error) { return newWriter(w, opts) }

// Add appends an entry. ADDED entries of the writer's snapshot are written
// with null sequence numbers (and a null first_row_id in v3), which
// readers inherit from the manifest list; EXISTING and DELETED entries
// keep theirs.
func (w *Writer) Add(e iceberg.ManifestEntry) error { return w.add(e) }

// Close finishes the manifest and returns its manifest-list entry: counts
// by status, partition field summaries, MinSequenceNumber of live entries
// with sequence numbers (0 when all inherit), Length the bytes written.
// The caller sets Path, and SequenceNumber is assigned by WriteList.
func (w *Writer) Close() (iceberg.ManifestFile, error) { return w.close() }

// ListOptions describe a manifest list.
type ListOptions struct {
	FormatVersion  int
	SnapshotID     int64
	ParentID       *int64
	SequenceNumber int64
	// FirstRowID is the table's next-row-id before this snapshot (v3);
	// data manifests without a first_row_id are assigned ids from it.
	FirstRowID int64
}

// WriteList writes a manifest list of manifests to w. Manifests added by
// this snapshot (AddedSnapshotID == SnapshotID with SequenceNumber 0) get
// opts.SequenceNumber, and MinSequenceNumber when it is 0. In v3 it
// returns the rows assigned first_row_ids (the snapshot's added-rows).
func WriteList(w io.Writer, opts ListOptions, manifests []iceberg.ManifestFile) (assignedRows int64, err error) {
	return writeList(w, opts, manifests)
}
