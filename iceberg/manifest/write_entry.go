package manifest

import (
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// encodeEntry encodes one manifest_entry record into m.enc, field by field
// as the manifest's format version has them (fields.go).
//
// Spec (Sequence Number Inheritance, First Row ID Inheritance): a file
// added by this snapshot is written with a null file sequence number, a
// null data sequence number unless the caller gives one, and a null
// first_row_id, so that the manifest can be reused when a commit is
// retried with another sequence number; existing and deleted entries carry
// theirs explicitly. The snapshot id is the writer's for added and deleted
// entries (the snapshot that added or deleted the file) and the entry's own
// for existing ones.
func (m *Writer) encodeEntry(e *iceberg.ManifestEntry) error {
	v := m.opts.FormatVersion
	f := &e.DataFile
	if len(f.Partition) != len(m.part.Fields) {
		return fmt.Errorf("partition has %d values, spec %d has %d fields", len(f.Partition), m.opts.Spec.ID, len(m.part.Fields))
	}
	switch e.Status {
	case iceberg.EntryAdded, iceberg.EntryExisting, iceberg.EntryDeleted:
	default:
		return fmt.Errorf("unknown status %d", e.Status)
	}
	wantDeletes := m.opts.Content == iceberg.ManifestContentDeletes
	if isDelete := f.Content != iceberg.FileContentData; isDelete != wantDeletes {
		return fmt.Errorf("%s file in a %s manifest", f.Content, m.opts.Content)
	}
	if v == 1 && f.Content != iceberg.FileContentData {
		return fmt.Errorf("%s file in a v1 manifest", f.Content)
	}

	snapshot := m.opts.SnapshotID
	if e.Status == iceberg.EntryExisting {
		snapshot = e.SnapshotID
	}
	enc := &m.enc
	enc.start()
	for i := range m.entry {
		fd := &m.entry[i]
		switch fd.id {
		case idStatus:
			enc.number(fd, int64(e.Status), true)
		case idSnapshotID:
			enc.number(fd, snapshot, true)
		case idSequenceNumber:
			seq, ok := m.dataSeq(*e)
			enc.number(fd, seq, ok)
		case idFileSequenceNumber:
			enc.number(fd, e.FileSequenceNumber, e.Status != iceberg.EntryAdded)
		case idDataFile:
			m.encodeDataFile(e, f)
		default:
			enc.unknown(fd)
		}
	}
	return enc.err
}

// encodeDataFile encodes an entry's data_file record.
func (m *Writer) encodeDataFile(e *iceberg.ManifestEntry, f *iceberg.DataFile) {
	enc := &m.enc
	for i := range m.file {
		fd := &m.file[i]
		switch fd.id {
		case idContent:
			enc.number(fd, int64(f.Content), true)
		case idFilePath:
			enc.string(fd, f.Path, true)
		case idFileFormat:
			enc.string(fd, strings.ToUpper(f.Format), true)
		case idPartition:
			m.encodePartition(f.Partition)
		case idRecordCount:
			enc.number(fd, f.RecordCount, true)
		case idFileSize:
			enc.number(fd, f.FileSize, true)
		case idBlockSize:
			enc.number(fd, v1BlockSize, true)
		case idColumnSizes:
			enc.counts(fd, f.ColumnSizes)
		case idValueCounts:
			enc.counts(fd, f.ValueCounts)
		case idNullValueCounts:
			enc.counts(fd, f.NullValueCounts)
		case idNaNValueCounts:
			enc.counts(fd, f.NaNValueCounts)
		case idLowerBounds:
			enc.bounds(fd, f.LowerBounds)
		case idUpperBounds:
			enc.bounds(fd, f.UpperBounds)
		case idKeyMetadata:
			enc.bytes(fd, f.KeyMetadata)
		case idSplitOffsets:
			enc.longs(fd, f.SplitOffsets)
		case idEqualityIDs:
			enc.ints(fd, f.EqualityIDs)
		case idSortOrderID:
			var id int64
			if f.SortOrderID != nil {
				id = int64(*f.SortOrderID)
			}
			enc.number(fd, id, f.SortOrderID != nil)
		case idFirstRowID:
			// Only existing and deleted data files carry theirs.
			var first *int64
			if e.Status != iceberg.EntryAdded && f.Content == iceberg.FileContentData {
				first = f.FirstRowID
			}
			enc.optLong(fd, first)
		case idReferencedDataFile:
			enc.string(fd, f.ReferencedDataFile, f.ReferencedDataFile != "")
		case idContentOffset:
			enc.optLong(fd, f.ContentOffset)
		case idContentSize:
			enc.optLong(fd, f.ContentSizeInBytes)
		default:
			enc.unknown(fd)
		}
	}
}

// encodePartition encodes the partition tuple, a record of the spec's
// partition fields; a field the partition type leaves optional (every one
// that PartitionSpec.PartitionType gives) is a union of null and its type.
func (m *Writer) encodePartition(values []any) {
	enc := &m.enc
	for i, pf := range m.part.Fields {
		v := values[i]
		if !pf.Required {
			if v == nil {
				enc.UnionIndex(0)
				continue
			}
			enc.UnionIndex(1)
		}
		if err := encodeLiteral(&enc.Encoder, pf.Type, v); err != nil {
			enc.fail(fmt.Errorf("partition field %s: %w", pf.Name, err))
		}
	}
}
