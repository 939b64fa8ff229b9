package iceberg

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
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
	// as is a column without an entry; with WithMetrics only the chosen
	// columns have entries.
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

// ReadManifest decodes every entry of a manifest, DELETED ones included
// (scans skip them), and applies the spec's inheritance from the manifest
// list entry mf:
//
//   - a null snapshot_id inherits mf.AddedSnapshotID;
//   - Spec (Sequence Number Inheritance): null data and file sequence numbers
//     inherit mf.SequenceNumber when the entry is ADDED; EXISTING and DELETED
//     entries must carry them, so a null there is an error. Manifests with no
//     sequence number column (v1) read 0, and so does every entry of a
//     manifest whose own sequence number is 0 (written before an upgrade to
//     v2), as Iceberg Java reads them. A manifest from writers that predate
//     file_sequence_number gives non-ADDED entries their data sequence number.
//   - Spec (First Row ID Inheritance, v3): a null first_row_id of an ADDED or
//     EXISTING data file is mf.FirstRowID plus the record counts of the data
//     files before it that also inherited.
//
// partitionType is the spec's partition tuple type, spec.PartitionType(schema);
// partition values become literals of those types (with nil, the Avro
// types alone decide). Errors wrap ErrInvalidMetadata and name the entry;
// the caller names the manifest. Without options every column's metrics
// are kept.
func ReadManifest(r io.Reader, mf ManifestFile, partitionType *StructType, opts ...ManifestOption) ([]ManifestEntry, error) {
	o := manifestOptions{metrics: AllMetrics()}
	for _, opt := range opts {
		opt(&o)
	}
	c, err := openAvroContainer(r)
	if err == nil {
		err = c.prepare()
	}
	if err != nil {
		return nil, err
	}
	defer c.release()
	l, err := c.schema.manifestLayout(partitionType)
	if err != nil {
		return nil, err
	}
	v1 := !l.entry.present[tSeq] || c.meta("format-version") == "1"
	var out []ManifestEntry
	rd := &valueReader{metrics: o.metrics}
	for {
		n, data, err := c.nextBlock()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("manifest entry %d: %w", len(out), err)
		}
		out = slices.Grow(out, min(n, len(data)/minRecordBytes+1))
		rd.d.Reset(data)
		var parts []any
		for i := range n {
			if parts == nil || len(parts) < l.part.n {
				// The partition tuples of up to 256 entries share one allocation.
				parts = make([]any, l.part.n*min(n-i, 256))
			}
			part := parts[:l.part.n:l.part.n]
			parts = parts[l.part.n:]
			out = append(out, ManifestEntry{})
			if err := l.decodeEntry(rd, &mf, v1, &out[len(out)-1], part); err != nil {
				return nil, fmt.Errorf("manifest entry %d: %w", len(out)-1, err)
			}
		}
	}
	if mf.FirstRowID != nil {
		next := *mf.FirstRowID
		for i := range out {
			f := &out[i].DataFile
			if out[i].Status == EntryDeleted || f.Content != FileContentData || f.FirstRowID != nil {
				continue
			}
			f.FirstRowID = rd.arena.long(next)
			next += f.RecordCount
		}
	}
	return out, nil
}

// minRecordBytes is a lower bound of the size of a manifest entry or
// manifest list entry as writers write them, to size memory by a block's
// record count without trusting a damaged one.
const minRecordBytes = 32

// upperSlow is strings.ToUpper of a format that upperFormat does not know.
func upperSlow(b []byte) string { return strings.ToUpper(string(b)) }

// ManifestMetadata returns the key/value metadata of a manifest's Avro
// header ("schema", "partition-spec", "partition-spec-id", "format-version",
// "content", and Avro's own "avro.schema" and "avro.codec"). It decodes no
// further than the header.
func ManifestMetadata(r io.Reader) (map[string]string, error) {
	c, err := openAvroContainer(r)
	if err != nil {
		return nil, err
	}
	return c.metadata(), nil
}
