package manifest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/iceflight/iceflight/iceberg"
)

// writeList writes a manifest list. Spec (First Row ID Assignment): data
// manifests without a first_row_id are assigned one in order from
// opts.FirstRowID, each the previous plus its added and existing row
// counts, the estimate the spec names as valid; existing first_row_ids are
// kept and delete manifests have none.
func writeList(w io.Writer, opts ListOptions, manifests []iceberg.ManifestFile) (int64, error) {
	v := opts.FormatVersion
	if v < 1 || v > 3 {
		return 0, fmt.Errorf("manifest list: format version %d is not 1, 2 or 3", v)
	}
	schemas, icebergSchema, err := avroSchemas("manifest_file", listType(v))
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
	c, err := newContainer(w, schemas, meta)
	if err != nil {
		return 0, fmt.Errorf("manifest list: %w", err)
	}
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
		rec, err := listRecord(v, mf)
		if err != nil {
			return 0, fmt.Errorf("manifest list entry %s: %w", mf.Path, err)
		}
		if err := c.append(rec); err != nil {
			return 0, fmt.Errorf("manifest list: %w", err)
		}
	}
	if err := c.flush(); err != nil {
		return 0, fmt.Errorf("manifest list: %w", err)
	}
	return next - opts.FirstRowID, nil
}

// listRecord builds the goavro record of one manifest_file.
func listRecord(v int, mf iceberg.ManifestFile) (map[string]any, error) {
	if v == 1 && mf.Content != iceberg.ManifestContentData {
		return nil, fmt.Errorf("%s manifest in a v1 list", mf.Content)
	}
	rec := map[string]any{
		"manifest_path":     mf.Path,
		"manifest_length":   mf.Length,
		"partition_spec_id": int32(mf.SpecID),
		"added_snapshot_id": mf.AddedSnapshotID,
		"key_metadata":      bytesValue(mf.KeyMetadata),
	}
	counts := []struct {
		name string
		n    int64
		long bool
	}{
		{"added_files_count", mf.AddedFilesCount, false},
		{"existing_files_count", mf.ExistingFilesCount, false},
		{"deleted_files_count", mf.DeletedFilesCount, false},
		{"added_rows_count", mf.AddedRowsCount, true},
		{"existing_rows_count", mf.ExistingRowsCount, true},
		{"deleted_rows_count", mf.DeletedRowsCount, true},
	}
	for _, c := range counts {
		var val any = c.n
		if !c.long {
			val = int32(c.n)
		}
		switch {
		case c.n < 0 && v == 1:
			rec[c.name] = nil // absent, as v1 allows
		case c.n < 0:
			return nil, fmt.Errorf("%s is unknown; v%d requires it", c.name, v)
		case v == 1 && c.long:
			rec[c.name] = map[string]any{"long": val}
		case v == 1:
			rec[c.name] = map[string]any{"int": val}
		default:
			rec[c.name] = val
		}
	}
	if mf.Partitions != nil {
		parts := make([]any, len(mf.Partitions))
		for i, s := range mf.Partitions {
			var nan any
			if s.ContainsNaN != nil {
				nan = map[string]any{"boolean": *s.ContainsNaN}
			}
			parts[i] = map[string]any{
				"contains_null": s.ContainsNull,
				"contains_nan":  nan,
				"lower_bound":   bytesValue(s.LowerBound),
				"upper_bound":   bytesValue(s.UpperBound),
			}
		}
		rec["partitions"] = map[string]any{"array": parts}
	} else {
		rec["partitions"] = nil
	}
	if v >= 2 {
		rec["content"] = int32(mf.Content)
		rec["sequence_number"] = mf.SequenceNumber
		rec["min_sequence_number"] = mf.MinSequenceNumber
	}
	if v >= 3 {
		rec["first_row_id"] = int64PtrValue(mf.FirstRowID)
	}
	return rec, nil
}
