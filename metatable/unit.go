package metatable

import (
	"encoding/json"

	"github.com/iceflight/iceflight/iceberg"
)

// Unit is a piece of a metadata table scan that Read streams on its own:
// the scan's kind, snapshot, projection and filter, and the manifests (or
// snapshots) it reads. It is plain data, JSON-friendly, so that a ticket
// can carry it; reading it needs only the table's metadata and storage.
type Unit struct {
	Kind Kind `json:"kind"`
	// SnapshotID is the snapshot read by the tables of one snapshot; nil
	// for the tables of the whole table.
	SnapshotID *int64 `json:"snapshot_id,omitempty"`
	// Columns are the ids of the fields the batches have: a top-level id
	// selects a whole column, a nested one that field inside its
	// enclosing structs. Empty selects no column.
	Columns []int `json:"columns"`
	// Filter is the scan's filter as the Iceberg REST catalog's Expression
	// JSON; empty keeps every row.
	Filter        json.RawMessage `json:"filter,omitempty"`
	CaseSensitive bool            `json:"case_sensitive,omitempty"`
	// Manifests are what a unit of a files or entries table reads.
	Manifests []ManifestRef `json:"manifests,omitempty"`
	// Snapshots are the snapshots whose manifest lists a unit of
	// all_manifests reads.
	Snapshots []int64 `json:"snapshots,omitempty"`
}

// ManifestRef is a manifest as its manifest list records it: what reading
// its entries needs (their inherited snapshot id, sequence numbers and
// first row ids) and what names it.
type ManifestRef struct {
	Path   string `json:"path"`
	Length int64  `json:"length"`
	SpecID int    `json:"spec_id"`
	// Content is 0 for data files, 1 for deletes.
	Content           int    `json:"content"`
	SequenceNumber    int64  `json:"sequence_number"`
	MinSequenceNumber int64  `json:"min_sequence_number"`
	AddedSnapshotID   int64  `json:"added_snapshot_id"`
	FirstRowID        *int64 `json:"first_row_id,omitempty"`
}

func refOf(mf iceberg.ManifestFile) ManifestRef {
	return ManifestRef{Path: mf.Path, Length: mf.Length, SpecID: mf.SpecID, Content: int(mf.Content),
		SequenceNumber: mf.SequenceNumber, MinSequenceNumber: mf.MinSequenceNumber,
		AddedSnapshotID: mf.AddedSnapshotID, FirstRowID: mf.FirstRowID}
}

// manifestFile is the manifest list entry the reference stands for, for
// the manifest codec's inheritance.
func (r ManifestRef) manifestFile() iceberg.ManifestFile {
	return iceberg.ManifestFile{Path: r.Path, Length: r.Length, SpecID: r.SpecID, Content: iceberg.ManifestContent(r.Content),
		SequenceNumber: r.SequenceNumber, MinSequenceNumber: r.MinSequenceNumber,
		AddedSnapshotID: r.AddedSnapshotID, FirstRowID: r.FirstRowID}
}
