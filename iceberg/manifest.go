package iceberg

import (
	"strconv"
)

// EntryStatus tells whether a manifest entry's file was added or deleted by
// the snapshot that wrote the manifest, or carried over from an earlier one.
type EntryStatus int

// Entry statuses, as the manifest's status field encodes them.
const (
	EntryExisting EntryStatus = 0
	EntryAdded    EntryStatus = 1
	EntryDeleted  EntryStatus = 2
)

// String returns the status as the spec names it ("ADDED").
func (s EntryStatus) String() string {
	switch s {
	case EntryExisting:
		return "EXISTING"
	case EntryAdded:
		return "ADDED"
	case EntryDeleted:
		return "DELETED"
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// FileContent is the kind of rows a file holds.
type FileContent int

// File contents, as data_file.content encodes them (v1 files are all data).
const (
	FileContentData            FileContent = 0
	FileContentPositionDeletes FileContent = 1
	FileContentEqualityDeletes FileContent = 2
)

// String returns the content as the spec names it ("POSITION_DELETES").
func (c FileContent) String() string {
	switch c {
	case FileContentData:
		return "DATA"
	case FileContentPositionDeletes:
		return "POSITION_DELETES"
	case FileContentEqualityDeletes:
		return "EQUALITY_DELETES"
	}
	return "content(" + strconv.Itoa(int(c)) + ")"
}

// DataFile describes a data or delete file: the data_file struct of a
// manifest entry.
type DataFile struct {
	Content FileContent
	Path    string
	// Format is upper-case: PARQUET, AVRO, ORC or PUFFIN.
	Format string
	// Partition holds one literal per field of the manifest's partition
	// spec, in spec order (see literal.go for the Go types); nil is null.
	Partition   []any
	RecordCount int64
	FileSize    int64
	// Column metrics by field id (column_metrics.go): sizes in bytes,
	// counts of values (nulls and NaNs included), nulls and NaNs, and
	// bounds in the single-value serialization, undecoded. Nil is absent,
	// as is a column without an entry; empty but not nil is a map the
	// manifest holds without entries, which Iceberg Java shows as such.
	// With WithMetrics only the chosen columns have entries.
	ColumnSizes        ColumnCounts
	ValueCounts        ColumnCounts
	NullValueCounts    ColumnCounts
	NaNValueCounts     ColumnCounts
	LowerBounds        ColumnBounds
	UpperBounds        ColumnBounds
	KeyMetadata        []byte
	SplitOffsets       []int64
	EqualityIDs        []int
	SortOrderID        *int
	SpecID             int // from the manifest file
	FirstRowID         *int64
	ReferencedDataFile string
	ContentOffset      *int64
	ContentSizeInBytes *int64
}

// ManifestEntry is one entry of a manifest, with inherited values filled in.
type ManifestEntry struct {
	Status     EntryStatus
	SnapshotID int64
	// SequenceNumber is the data sequence number, FileSequenceNumber the
	// sequence number of the commit that added the file.
	SequenceNumber, FileSequenceNumber int64
	DataFile                           DataFile
}
