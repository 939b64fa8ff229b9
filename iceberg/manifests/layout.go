package manifests

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/internal/avro"
)

// The targets of a manifest_entry record and its data_file record: the
// values Read keeps.
const (
	tStatus uint8 = iota
	tSnapshotID
	tSeq
	tFileSeq
	tDataFile

	tContent
	tPath
	tFormat
	tPartition
	tRecordCount
	tFileSize
	tColumnSizes
	tValueCounts
	tNullCounts
	tNaNCounts
	tLower
	tUpper
	tKeyMetadata
	tSplitOffsets
	tEqualityIDs
	tSortOrderID
	tFirstRowID
	tReferenced
	tContentOffset
	tContentSize
)

// entrySlots find the manifest_entry fields by field id, with the spec's
// names as a fallback: writers differ in record names and field order.
var entrySlots = []slot{
	{tStatus, 0, []string{"status"}},
	{tSnapshotID, 1, []string{"snapshot_id"}},
	{tSeq, 3, []string{"sequence_number"}},
	{tFileSeq, 4, []string{"file_sequence_number"}},
	{tDataFile, 2, []string{"data_file"}},
}

// fileSlots find the data_file fields.
var fileSlots = []slot{
	{tContent, 134, []string{"content"}},
	{tPath, 100, []string{"file_path"}},
	{tFormat, 101, []string{"file_format"}},
	{tPartition, 102, []string{"partition"}},
	{tRecordCount, 103, []string{"record_count"}},
	{tFileSize, 104, []string{"file_size_in_bytes"}},
	{tColumnSizes, 108, []string{"column_sizes"}},
	{tValueCounts, 109, []string{"value_counts"}},
	{tNullCounts, 110, []string{"null_value_counts"}},
	{tNaNCounts, 137, []string{"nan_value_counts"}},
	{tLower, 125, []string{"lower_bounds"}},
	{tUpper, 128, []string{"upper_bounds"}},
	{tKeyMetadata, 131, []string{"key_metadata"}},
	{tSplitOffsets, 132, []string{"split_offsets"}},
	{tEqualityIDs, 135, []string{"equality_ids"}},
	{tSortOrderID, 140, []string{"sort_order_id"}},
	{tFirstRowID, 142, []string{"first_row_id"}},
	{tReferenced, 143, []string{"referenced_data_file"}},
	{tContentOffset, 144, []string{"content_offset"}},
	{tContentSize, 145, []string{"content_size_in_bytes"}},
}

// manifestLayout is a manifest schema compiled for one partition type:
// what to do with each field of the writer's manifest_entry and data_file
// records, in the writer's order.
type manifestLayout struct {
	entry, file *recordLayout
	part        partitionLayout
}

// partitionLayout decodes the partition record into one literal per field
// of the partition type.
type partitionLayout struct {
	rec    *avro.Schema     // the writer's partition record; nil when there is none
	fields []partitionField // the record's fields, in the writer's order
	n      int              // the number of partition values
	names  []string         // each value's Avro field name, for errors
}

// partitionField is one field of the writer's partition record and the
// partition values it gives (none: skipped).
type partitionField struct {
	typ  *avro.Schema
	outs []partitionOut
}

// partitionOut decodes a partition field into the value at index: plans
// holds one plan per union branch, or one for a field that is no union.
type partitionOut struct {
	index int
	plans []literalPlan
}

func newManifestLayout(s *avro.Schema, pt *iceberg.StructType) (*manifestLayout, error) {
	l := &manifestLayout{entry: compileRecord(s, entrySlots)}
	df := l.entry.field(tDataFile)
	if !l.entry.present[tStatus] || df == nil || df.typ.Kind != avro.KindRecord {
		return nil, fmt.Errorf("%w: manifest schema lacks status or a data_file record", iceberg.ErrInvalidMetadata)
	}
	l.file = compileRecord(df.typ, fileSlots)
	for _, t := range []uint8{tPath, tFormat, tRecordCount, tFileSize} {
		if !l.file.present[t] {
			return nil, fmt.Errorf("%w: manifest schema lacks file_path, file_format, record_count or file_size_in_bytes", iceberg.ErrInvalidMetadata)
		}
	}
	for i := range l.file.ops {
		op := &l.file.ops[i]
		for _, t := range op.targets {
			switch t {
			case tColumnSizes, tValueCounts, tNullCounts, tNaNCounts, tLower, tUpper:
				op.kv = compileKV(op.name, op.typ)
			}
		}
	}
	var partType *avro.Schema
	if f := l.file.field(tPartition); f != nil {
		partType = f.typ
	}
	l.part = compilePartition(partType, pt)
	return l, nil
}

// compilePartition matches the spec's partition fields to the Avro partition
// record's fields: by field-id when the writer recorded them (the spec asks
// for the partition field ids), else by name, else by position. Without a
// partition type the Avro fields are taken in order, typed by Avro alone.
func compilePartition(s *avro.Schema, pt *iceberg.StructType) partitionLayout {
	rec := s
	if rec != nil && rec.Kind == avro.KindUnion {
		for _, b := range rec.Branches {
			if b.Kind == avro.KindRecord {
				rec = b
			}
		}
	}
	var p partitionLayout
	if rec != nil && rec.Kind == avro.KindRecord {
		p.rec = rec
		p.fields = make([]partitionField, len(rec.Fields))
		for i, f := range rec.Fields {
			p.fields[i].typ = f.Type
		}
	}
	add := func(field int, t iceberg.Type) {
		name := ""
		if field >= 0 {
			f := &p.fields[field]
			name = p.rec.Fields[field].Name
			f.outs = append(f.outs, partitionOut{index: p.n, plans: literalPlans(f.typ, t)})
		}
		p.names = append(p.names, name)
		p.n++
	}
	if pt == nil {
		for i := range p.fields {
			add(i, iceberg.UnknownType{})
		}
		return p
	}
	hasIDs := false
	if p.rec != nil {
		for _, f := range p.rec.Fields {
			hasIDs = hasIDs || f.ID() >= 0
		}
	}
	for i, f := range pt.Fields {
		field := fieldIndex(p.rec, f.ID, f.Name)
		if field < 0 && !hasIDs && i < len(p.fields) {
			field = i
		}
		add(field, f.Type)
	}
	return p
}

// literalPlans compiles the conversion of each branch of a field's type.
func literalPlans(s *avro.Schema, t iceberg.Type) []literalPlan {
	if s.Kind != avro.KindUnion {
		return []literalPlan{compileLiteral(s, t)}
	}
	plans := make([]literalPlan, len(s.Branches))
	for i, b := range s.Branches {
		plans[i] = compileLiteral(b, t)
	}
	return plans
}
