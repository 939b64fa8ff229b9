package iceberg

import (
	"strconv"
)

// ManifestContent is the kind of files a manifest tracks.
type ManifestContent int

// Manifest contents, as the manifest list's content field encodes them.
const (
	ManifestContentData    ManifestContent = 0
	ManifestContentDeletes ManifestContent = 1
)

// String returns the content as the manifest header names it ("data", "deletes").
func (c ManifestContent) String() string {
	switch c {
	case ManifestContentData:
		return "data"
	case ManifestContentDeletes:
		return "deletes"
	}
	return "content(" + strconv.Itoa(int(c)) + ")"
}

// FieldSummary summarizes one partition field's values across a manifest.
// Bounds are in the single-value binary serialization of the partition
// field's type; nil when absent.
type FieldSummary struct {
	ContainsNull bool
	// ContainsNaN is nil when the writer did not record it.
	ContainsNaN            *bool
	LowerBound, UpperBound []byte
}

// ManifestFile is one entry of a manifest list: a manifest and its summary.
type ManifestFile struct {
	Path   string
	Length int64
	SpecID int
	// Content is data or deletes; always data in v1.
	Content ManifestContent
	// SequenceNumber is the sequence number of the commit that added the
	// manifest; MinSequenceNumber the lowest data sequence number of its live
	// files. Both are 0 in v1 manifest lists.
	SequenceNumber, MinSequenceNumber int64
	AddedSnapshotID                   int64
	// File and row counts by entry status; -1 when absent (optional in v1).
	AddedFilesCount, ExistingFilesCount, DeletedFilesCount int64
	AddedRowsCount, ExistingRowsCount, DeletedRowsCount    int64
	// Partitions has one summary per field of the manifest's partition
	// spec; nil when the list records none, empty when the spec has no
	// field and the list says so.
	Partitions  []FieldSummary
	KeyMetadata []byte
	// FirstRowID is the v3 row-lineage start for the manifest's data files
	// that inherit one; nil for delete manifests and before v3.
	FirstRowID *int64
}

// HasAddedFiles reports whether the manifest may hold ADDED entries (an
// absent count may be non-zero).
func (m ManifestFile) HasAddedFiles() bool { return m.AddedFilesCount != 0 }

// HasExistingFiles reports whether the manifest may hold EXISTING entries.
func (m ManifestFile) HasExistingFiles() bool { return m.ExistingFilesCount != 0 }
