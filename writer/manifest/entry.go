package manifest

import (
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/iceberg"
)

// entryRecord builds the goavro record of one manifest entry.
//
// Spec (Sequence Number Inheritance, First Row ID Inheritance): a file
// added by this snapshot is written with a null file sequence number, a
// null data sequence number unless the caller gives one, and a null
// first_row_id, so that the manifest can be reused when a commit is
// retried with another sequence number; existing and deleted entries carry
// theirs explicitly. The snapshot id is the writer's for added and deleted
// entries (the snapshot that added or deleted the file) and the entry's own
// for existing ones.
func (m *writerImpl) entryRecord(e iceberg.ManifestEntry) (map[string]any, error) {
	v := m.opts.FormatVersion
	f := &e.DataFile
	if len(f.Partition) != len(m.part.Fields) {
		return nil, fmt.Errorf("partition has %d values, spec %d has %d fields", len(f.Partition), m.opts.Spec.ID, len(m.part.Fields))
	}
	switch e.Status {
	case iceberg.EntryAdded, iceberg.EntryExisting, iceberg.EntryDeleted:
	default:
		return nil, fmt.Errorf("unknown status %d", e.Status)
	}
	wantDeletes := m.opts.Content == iceberg.ManifestContentDeletes
	if isDelete := f.Content != iceberg.FileContentData; isDelete != wantDeletes {
		return nil, fmt.Errorf("%s file in a %s manifest", f.Content, m.opts.Content)
	}
	if v == 1 && f.Content != iceberg.FileContentData {
		return nil, fmt.Errorf("%s file in a v1 manifest", f.Content)
	}

	snapshot := m.opts.SnapshotID
	if e.Status == iceberg.EntryExisting {
		snapshot = e.SnapshotID
	}
	part := make(map[string]any, len(m.part.Fields))
	for i, pf := range m.part.Fields {
		av, err := avroValue(pf.Type, f.Partition[i])
		if err != nil {
			return nil, fmt.Errorf("partition field %s: %w", pf.Name, err)
		}
		part[pf.Name] = optional(pf.Type, av)
	}
	df := map[string]any{
		"file_path":          f.Path,
		"file_format":        strings.ToUpper(f.Format),
		"partition":          part,
		"record_count":       f.RecordCount,
		"file_size_in_bytes": f.FileSize,
		"column_sizes":       countsValue(f.ColumnSizes),
		"value_counts":       countsValue(f.ValueCounts),
		"null_value_counts":  countsValue(f.NullValueCounts),
		"nan_value_counts":   countsValue(f.NaNValueCounts),
		"lower_bounds":       boundsValue(f.LowerBounds),
		"upper_bounds":       boundsValue(f.UpperBounds),
		"key_metadata":       bytesValue(f.KeyMetadata),
		"split_offsets":      longsValue(f.SplitOffsets),
		"sort_order_id":      intPtrValue(f.SortOrderID),
	}
	rec := map[string]any{"status": int32(e.Status), "data_file": df}
	if v == 1 {
		df["block_size_in_bytes"] = int64(v1BlockSize)
		rec["snapshot_id"] = snapshot
		return rec, nil
	}
	df["content"] = int32(f.Content)
	df["equality_ids"] = intsValue(f.EqualityIDs)
	df["referenced_data_file"] = stringValue(f.ReferencedDataFile)
	rec["snapshot_id"] = map[string]any{"long": snapshot}
	if seq, ok := m.dataSeq(e); ok {
		rec["sequence_number"] = map[string]any{"long": seq}
	} else {
		rec["sequence_number"] = nil
	}
	if e.Status == iceberg.EntryAdded {
		rec["file_sequence_number"] = nil
	} else {
		rec["file_sequence_number"] = map[string]any{"long": e.FileSequenceNumber}
	}
	if v >= 3 {
		var first *int64
		if e.Status != iceberg.EntryAdded && f.Content == iceberg.FileContentData {
			first = f.FirstRowID
		}
		df["first_row_id"] = int64PtrValue(first)
		df["content_offset"] = int64PtrValue(f.ContentOffset)
		df["content_size_in_bytes"] = int64PtrValue(f.ContentSizeInBytes)
	}
	return rec, nil
}

func countsValue(c iceberg.ColumnCounts) any {
	if len(c) == 0 {
		return nil
	}
	out := make([]any, len(c))
	for i, e := range c {
		out[i] = map[string]any{"key": int32(e.ID), "value": e.Count}
	}
	return map[string]any{"array": out}
}

func boundsValue(b iceberg.ColumnBounds) any {
	if len(b) == 0 {
		return nil
	}
	out := make([]any, len(b))
	for i, e := range b {
		out[i] = map[string]any{"key": int32(e.ID), "value": e.Value}
	}
	return map[string]any{"array": out}
}

func bytesValue(b []byte) any {
	if b == nil {
		return nil
	}
	return map[string]any{"bytes": b}
}

func stringValue(s string) any {
	if s == "" {
		return nil
	}
	return map[string]any{"string": s}
}

func longsValue(s []int64) any {
	if s == nil {
		return nil
	}
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return map[string]any{"array": out}
}

func intsValue(s []int) any {
	if s == nil {
		return nil
	}
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = int32(x)
	}
	return map[string]any{"array": out}
}

func intPtrValue(p *int) any {
	if p == nil {
		return nil
	}
	return map[string]any{"int": int32(*p)}
}

func int64PtrValue(p *int64) any {
	if p == nil {
		return nil
	}
	return map[string]any{"long": *p}
}
