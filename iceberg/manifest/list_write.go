package manifest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// WriteListOptions describe a manifest list.
type WriteListOptions struct {
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
//
// Spec (First Row ID Assignment): data manifests without a first_row_id
// are assigned one in order from opts.FirstRowID, each the previous plus
// its added and existing row counts, the estimate the spec names as valid;
// existing first_row_ids are kept and delete manifests have none.
func WriteList(w io.Writer, opts WriteListOptions, manifests []iceberg.ManifestFile) (assignedRows int64, err error) {
	v := opts.FormatVersion
	if v < 1 || v > 3 {
		return 0, fmt.Errorf("manifest list: format version %d is not 1, 2 or 3", v)
	}
	schema, icebergSchema, err := avroSchemas("manifest_file", listType(v))
	if err != nil {
		return 0, fmt.Errorf("manifest list schema: %w", err)
	}
	parent := "null" // as Java writes a snapshot without a parent
	if opts.ParentID != nil {
		parent = strconv.FormatInt(*opts.ParentID, 10)
	}
	meta := map[string]string{
		"snapshot-id":        strconv.FormatInt(opts.SnapshotID, 10),
		"parent-snapshot-id": parent,
		"format-version":     strconv.Itoa(v),
		"iceberg.schema":     icebergSchema,
	}
	if v >= 2 {
		meta["sequence-number"] = strconv.FormatInt(opts.SequenceNumber, 10)
	}
	if v >= 3 {
		meta["first-row-id"] = strconv.FormatInt(opts.FirstRowID, 10)
	}
	c, err := avro.NewContainerWriter(w, avro.ContainerWriterOptions{Schema: schema, Codec: "deflate", Metadata: meta})
	if err != nil {
		return 0, fmt.Errorf("manifest list: %w", err)
	}
	lw := listWriter{fields: fieldsOf(listFields, v), summary: fieldsOf(summaryFields, v), enc: recordEncoder{version: v}}
	next := opts.FirstRowID
	for _, mf := range manifests {
		if mf.AddedSnapshotID == opts.SnapshotID && mf.SequenceNumber == 0 {
			mf.SequenceNumber = opts.SequenceNumber
			if mf.MinSequenceNumber == 0 {
				mf.MinSequenceNumber = opts.SequenceNumber
			}
		}
		if v >= 3 && mf.Content == iceberg.ManifestContentData && mf.FirstRowID == nil {
			first := next
			mf.FirstRowID = &first
			next += max(mf.AddedRowsCount, 0) + max(mf.ExistingRowsCount, 0)
		}
		if v < 3 || mf.Content != iceberg.ManifestContentData {
			mf.FirstRowID = nil
		}
		rec, err := lw.encode(&mf)
		if err != nil {
			return 0, fmt.Errorf("manifest list entry %s: %w", mf.Path, err)
		}
		if err := c.Append(rec); err != nil {
			return 0, fmt.Errorf("manifest list: %w", err)
		}
	}
	if err := c.Close(); err != nil {
		return 0, fmt.Errorf("manifest list: %w", err)
	}
	return next - opts.FirstRowID, nil
}

// listWriter encodes manifest_file records of one format version.
type listWriter struct {
	fields, summary []field
	enc             recordEncoder
}

// encode encodes one manifest_file record, field by field as the version
// has them (fields.go). A count below zero is unknown: null in v1, which
// allows it, and an error from v2 on.
func (l *listWriter) encode(mf *iceberg.ManifestFile) ([]byte, error) {
	enc := &l.enc
	if enc.version == 1 && mf.Content != iceberg.ManifestContentData {
		return nil, fmt.Errorf("%s manifest in a v1 list", mf.Content)
	}
	count := func(f *field, n int64) { enc.number(f, n, n >= 0) }
	enc.start()
	for i := range l.fields {
		f := &l.fields[i]
		switch f.id {
		case idManifestPath:
			enc.string(f, mf.Path, true)
		case idManifestLength:
			enc.number(f, mf.Length, true)
		case idPartitionSpecID:
			enc.number(f, int64(mf.SpecID), true)
		case idManifestContent:
			enc.number(f, int64(mf.Content), true)
		case idListSequenceNumber:
			enc.number(f, mf.SequenceNumber, true)
		case idMinSequenceNumber:
			enc.number(f, mf.MinSequenceNumber, true)
		case idAddedSnapshotID:
			enc.number(f, mf.AddedSnapshotID, true)
		case idAddedFiles:
			count(f, mf.AddedFilesCount)
		case idExistingFiles:
			count(f, mf.ExistingFilesCount)
		case idDeletedFiles:
			count(f, mf.DeletedFilesCount)
		case idAddedRows:
			count(f, mf.AddedRowsCount)
		case idExistingRows:
			count(f, mf.ExistingRowsCount)
		case idDeletedRows:
			count(f, mf.DeletedRowsCount)
		case idPartitions:
			l.encodeSummaries(f, mf.Partitions)
		case idListKeyMetadata:
			enc.bytes(f, mf.KeyMetadata)
		case idListFirstRowID:
			enc.optLong(f, mf.FirstRowID)
		default:
			enc.unknown(f)
		}
	}
	return enc.Encoded(), enc.err
}

// encodeSummaries encodes the partitions field, a list of field_summary
// records; nil is null.
func (l *listWriter) encodeSummaries(f *field, summaries []iceberg.FieldSummary) {
	enc := &l.enc
	if !enc.union(f, summaries != nil) {
		return
	}
	if len(summaries) > 0 {
		enc.BlockCount(len(summaries))
		for _, s := range summaries {
			for i := range l.summary {
				sf := &l.summary[i]
				switch sf.id {
				case idContainsNull:
					enc.boolean(sf, s.ContainsNull, true)
				case idContainsNaN:
					enc.boolean(sf, s.ContainsNaN != nil && *s.ContainsNaN, s.ContainsNaN != nil)
				case idLowerBound:
					enc.bytes(sf, s.LowerBound)
				case idUpperBound:
					enc.bytes(sf, s.UpperBound)
				default:
					enc.unknown(sf)
				}
			}
		}
	}
	enc.BlockCount(0)
}
