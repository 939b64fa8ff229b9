package manifest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// Read decodes every entry of a manifest, DELETED ones included
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
func Read(r io.Reader, mf iceberg.ManifestFile, partitionType *iceberg.StructType, opts ...ReadOption) ([]iceberg.ManifestEntry, error) {
	o := readOptions{metrics: iceberg.AllMetrics()}
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
	v1 := !l.entry.present.has(idSequenceNumber) || c.meta("format-version") == "1"
	var out []iceberg.ManifestEntry
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
			out = append(out, iceberg.ManifestEntry{})
			if err := l.decodeEntry(rd, &mf, v1, &out[len(out)-1], part); err != nil {
				return nil, fmt.Errorf("manifest entry %d: %w", len(out)-1, err)
			}
		}
	}
	if mf.FirstRowID != nil {
		next := *mf.FirstRowID
		for i := range out {
			f := &out[i].DataFile
			if out[i].Status == iceberg.EntryDeleted || f.Content != iceberg.FileContentData || f.FirstRowID != nil {
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

// Metadata returns the key/value metadata of a manifest's Avro
// header ("schema", "partition-spec", "partition-spec-id", "format-version",
// "content", and Avro's own "avro.schema" and "avro.codec"). It decodes no
// further than the header.
func Metadata(r io.Reader) (map[string]string, error) {
	c, err := openAvroContainer(r)
	if err != nil {
		return nil, err
	}
	return c.metadata(), nil
}
