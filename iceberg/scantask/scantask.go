// Package scantask holds the unit of a scan: one slice of a data file with
// the deletes that apply to it and the part of the filter its rows still
// have to pass. The planner produces tasks and the reader consumes them;
// a ticket carries them in their wire form (package engine converts, in
// one place), so neither side handles the wire message.
package scantask

import (
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

// FileFormat is the format of a data or delete file.
type FileFormat int

// The file formats. Their numbers are the ticket's (iceflight.v1.FileFormat).
const (
	Parquet FileFormat = iota + 1
	Avro
	ORC
	Puffin
)

// String returns the format's name as table metadata spells it.
func (f FileFormat) String() string {
	switch f {
	case Parquet:
		return "PARQUET"
	case Avro:
		return "AVRO"
	case ORC:
		return "ORC"
	case Puffin:
		return "PUFFIN"
	}
	return "UNKNOWN"
}

// DeleteKind is what a delete file deletes.
type DeleteKind int

// The kinds of delete files. Their numbers are the ticket's
// (iceflight.v1.DeleteKind).
const (
	// PositionDeletes lists (file, position) pairs.
	PositionDeletes DeleteKind = iota + 1
	// EqualityDeletes deletes rows whose EqualityIDs columns equal one of
	// its rows.
	EqualityDeletes
	// DeletionVector is a Puffin blob of the deleted positions of one data
	// file (format v3).
	DeletionVector
)

// Task is one slice of a data file with the deletes that apply to it.
type Task struct {
	// Path is where the file is read; FilePath is the path as the table's
	// metadata records it, which position deletes name and _file reports
	// (empty when it is Path).
	Path     string
	FilePath string
	Format   FileFormat
	FileSize int64
	// RecordCount is the file's row count.
	RecordCount int64
	// RowGroups lists the Parquet row groups to read; empty means all.
	RowGroups []int32
	// Start and Length are the byte range of a split for formats split by
	// offsets; Length 0 means the whole file.
	Start, Length int64
	// Constants are the identity-partition values the rows share.
	Constants []*PartitionConstant
	SpecID    int32
	// DataSequenceNumber and FileSequenceNumber are the file's, from its
	// manifest entry.
	DataSequenceNumber int64
	FileSequenceNumber int64
	// FirstRowID is the v3 row-lineage id of the file's first row; nil
	// when the file has none.
	FirstRowID *int64
	Deletes    []*DeleteFile
	// PartitionJSON is the partition tuple as JSON, for _partition; empty
	// unless the scan asks for that column.
	PartitionJSON string
	// Residual is the part of the scan filter that the file's partition and
	// metrics do not settle; nil when every row matches.
	Residual *Residual
	// File is the data file as its manifest entry records it, for a front
	// end that describes files in full (the REST catalog's scan planning);
	// nil unless the plan was asked to keep files. It may be shared with
	// the planner's manifest cache and other plans: it is read only. It
	// never goes on the wire: the ticket codec (engine/ticket_tasks.go)
	// carries the fields above, all a worker needs, and leaves it out.
	File *iceberg.DataFile
}

// Residual is a filter still to apply to a task's rows, bound to the
// scan's schema by name. Tasks that share one (the splits of a file, the
// files of an unpartitioned spec) share the pointer, so a ticket carries
// it, and a worker decodes it, once.
type Residual struct {
	Expr expr.Expr
}

// DeleteFile is a delete file that applies to a Task.
type DeleteFile struct {
	Path        string
	Format      FileFormat
	Kind        DeleteKind
	FileSize    int64
	RecordCount int64
	// EqualityIDs are the field ids an equality delete compares on.
	EqualityIDs        []int32
	DataSequenceNumber int64
	// ReferencedDataFile is the one data file a position delete file or a
	// deletion vector applies to, when it names one.
	ReferencedDataFile string
	// ContentOffset and ContentSize locate a deletion vector's blob in its
	// Puffin file.
	ContentOffset, ContentSize int64
	SpecID                     int32
	// File is the delete file as its manifest entry records it; nil unless
	// the plan was asked to keep files. Like Task.File it is read only and
	// never goes on the wire.
	File *iceberg.DataFile
}

// PartitionConstant is an identity-partition value a Task's rows share.
type PartitionConstant struct {
	// FieldID is the source column's field id.
	FieldID int32
	// Value is the Iceberg single-value binary serialization of the value
	// in the source column's type; nil when the partition value is null.
	Value []byte
}
