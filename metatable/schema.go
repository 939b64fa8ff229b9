package metatable

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// The columns of the metadata tables whose shape does not depend on the
// table, with Iceberg Java's field ids, names, types and docs
// (SnapshotsTable, HistoryTable, RefsTable, MetadataLogEntriesTable,
// ManifestsTable, AllManifestsTable, PartitionsTable).
var (
	snapshotsFields = []iceberg.NestedField{
		{ID: 1, Name: "committed_at", Type: iceberg.TimestampTzType{}, Required: true},
		{ID: 2, Name: "snapshot_id", Type: iceberg.LongType{}, Required: true},
		{ID: 3, Name: "parent_id", Type: iceberg.LongType{}},
		{ID: 4, Name: "operation", Type: iceberg.StringType{}},
		{ID: 5, Name: "manifest_list", Type: iceberg.StringType{}},
		{ID: 6, Name: "summary", Type: &iceberg.MapType{KeyID: 7, Key: iceberg.StringType{}, ValueID: 8, Value: iceberg.StringType{}, ValueRequired: true}},
	}
	historyFields = []iceberg.NestedField{
		{ID: 1, Name: "made_current_at", Type: iceberg.TimestampTzType{}, Required: true},
		{ID: 2, Name: "snapshot_id", Type: iceberg.LongType{}, Required: true},
		{ID: 3, Name: "parent_id", Type: iceberg.LongType{}},
		{ID: 4, Name: "is_current_ancestor", Type: iceberg.BooleanType{}, Required: true},
	}
	refsFields = []iceberg.NestedField{
		{ID: 1, Name: "name", Type: iceberg.StringType{}, Required: true},
		{ID: 2, Name: "type", Type: iceberg.StringType{}, Required: true},
		{ID: 3, Name: "snapshot_id", Type: iceberg.LongType{}, Required: true},
		{ID: 4, Name: "max_reference_age_in_ms", Type: iceberg.LongType{}},
		{ID: 5, Name: "min_snapshots_to_keep", Type: iceberg.IntType{}},
		{ID: 6, Name: "max_snapshot_age_in_ms", Type: iceberg.LongType{}},
	}
	metadataLogFields = []iceberg.NestedField{
		{ID: 1, Name: "timestamp", Type: iceberg.TimestampTzType{}, Required: true},
		{ID: 2, Name: "file", Type: iceberg.StringType{}, Required: true},
		{ID: 3, Name: "latest_snapshot_id", Type: iceberg.LongType{}},
		{ID: 4, Name: "latest_schema_id", Type: iceberg.IntType{}},
		{ID: 5, Name: "latest_sequence_number", Type: iceberg.LongType{}},
	}
)

// Field ids of the manifests tables' columns.
const (
	idManifestContent   = 14
	idManifestPath      = 1
	idManifestLength    = 2
	idManifestSpecID    = 3
	idManifestSnapshot  = 4
	idAddedData         = 5
	idExistingData      = 6
	idDeletedData       = 7
	idAddedDeletes      = 15
	idExistingDeletes   = 16
	idDeletedDeletes    = 17
	idSummaries         = 8
	idReferenceSnapshot = 18
	idManifestKey       = 19
)

// manifestsFields are the manifests table's columns; all_manifests has
// the same with other required-ness, plus reference_snapshot_id and
// key_metadata (allManifestsFields).
func manifestsFields(all bool) []iceberg.NestedField {
	// Java's all_manifests leaves the columns that v1 lists may lack
	// optional, and contains_nan required; manifests the other way round.
	req := !all
	summary := &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 10, Name: "contains_null", Type: iceberg.BooleanType{}, Required: true},
		{ID: 11, Name: "contains_nan", Type: iceberg.BooleanType{}, Required: all},
		{ID: 12, Name: "lower_bound", Type: iceberg.StringType{}},
		{ID: 13, Name: "upper_bound", Type: iceberg.StringType{}},
	}}
	fields := []iceberg.NestedField{
		{ID: idManifestContent, Name: "content", Type: iceberg.IntType{}, Required: true},
		{ID: idManifestPath, Name: "path", Type: iceberg.StringType{}, Required: true},
		{ID: idManifestLength, Name: "length", Type: iceberg.LongType{}, Required: true},
		{ID: idManifestSpecID, Name: "partition_spec_id", Type: iceberg.IntType{}, Required: req},
		{ID: idManifestSnapshot, Name: "added_snapshot_id", Type: iceberg.LongType{}, Required: req},
		{ID: idAddedData, Name: "added_data_files_count", Type: iceberg.IntType{}, Required: req},
		{ID: idExistingData, Name: "existing_data_files_count", Type: iceberg.IntType{}, Required: req},
		{ID: idDeletedData, Name: "deleted_data_files_count", Type: iceberg.IntType{}, Required: req},
		{ID: idAddedDeletes, Name: "added_delete_files_count", Type: iceberg.IntType{}, Required: true},
		{ID: idExistingDeletes, Name: "existing_delete_files_count", Type: iceberg.IntType{}, Required: true},
		{ID: idDeletedDeletes, Name: "deleted_delete_files_count", Type: iceberg.IntType{}, Required: true},
		{ID: idSummaries, Name: "partition_summaries", Type: &iceberg.ListType{ElementID: 9, Element: summary, ElementRequired: true}, Required: req},
	}
	if all {
		fields = append(fields,
			iceberg.NestedField{ID: idReferenceSnapshot, Name: "reference_snapshot_id", Type: iceberg.LongType{}, Required: true},
			iceberg.NestedField{ID: idManifestKey, Name: "key_metadata", Type: iceberg.BinaryType{}})
	}
	return fields
}

// Field ids of the partitions table's columns.
const (
	idPartition        = 1
	idPartitionSpec    = 4
	idRecordCount      = 2
	idFileCount        = 3
	idDataSizeTotal    = 11
	idPosDeleteRecords = 5
	idPosDeleteFiles   = 6
	idEqDeleteRecords  = 7
	idEqDeleteFiles    = 8
	idLastUpdatedAt    = 9
	idLastUpdatedSnap  = 10
)

// partitionsFields are the partitions table's columns; an unpartitioned
// table's have no partition and spec_id, as in Java.
func partitionsFields(partition *iceberg.StructType) []iceberg.NestedField {
	var fields []iceberg.NestedField
	if len(partition.Fields) > 0 {
		fields = append(fields,
			iceberg.NestedField{ID: idPartition, Name: "partition", Type: partition, Required: true},
			iceberg.NestedField{ID: idPartitionSpec, Name: "spec_id", Type: iceberg.IntType{}, Required: true})
	}
	return append(fields,
		iceberg.NestedField{ID: idRecordCount, Name: "record_count", Type: iceberg.LongType{}, Required: true, Doc: "Count of records in data files"},
		iceberg.NestedField{ID: idFileCount, Name: "file_count", Type: iceberg.IntType{}, Required: true, Doc: "Count of data files"},
		iceberg.NestedField{ID: idDataSizeTotal, Name: "total_data_file_size_in_bytes", Type: iceberg.LongType{}, Required: true, Doc: "Total size in bytes of data files"},
		iceberg.NestedField{ID: idPosDeleteRecords, Name: "position_delete_record_count", Type: iceberg.LongType{}, Required: true, Doc: "Count of records in position delete files"},
		iceberg.NestedField{ID: idPosDeleteFiles, Name: "position_delete_file_count", Type: iceberg.IntType{}, Required: true, Doc: "Count of position delete files"},
		iceberg.NestedField{ID: idEqDeleteRecords, Name: "equality_delete_record_count", Type: iceberg.LongType{}, Required: true, Doc: "Count of records in equality delete files"},
		iceberg.NestedField{ID: idEqDeleteFiles, Name: "equality_delete_file_count", Type: iceberg.IntType{}, Required: true, Doc: "Count of equality delete files"},
		iceberg.NestedField{ID: idLastUpdatedAt, Name: "last_updated_at", Type: iceberg.TimestampTzType{}, Doc: "Commit time of snapshot that last updated this partition"},
		iceberg.NestedField{ID: idLastUpdatedSnap, Name: "last_updated_snapshot_id", Type: iceberg.LongType{}, Doc: "Id of snapshot that last updated this partition"},
	)
}

// Schema returns the schema of a table's metadata table of kind, as
// Iceberg Java's metadata table's schema() is: the files and entries
// tables have the table's partition type (every spec's fields whose
// source column is in the current schema) and readable_metrics (a struct
// per primitive column of the current schema); the partitions table has
// the partition type too. It does not depend on the snapshot read, in
// Java as here: a metadata table read at an older snapshot keeps the
// current schema's columns.
func Schema(kind Kind, md *iceberg.TableMetadata) (*iceberg.Schema, error) {
	var fields []iceberg.NestedField
	switch kind {
	case Snapshots:
		fields = snapshotsFields
	case History:
		fields = historyFields
	case Refs:
		fields = refsFields
	case MetadataLogEntries:
		fields = metadataLogFields
	case Manifests, AllManifests:
		fields = manifestsFields(kind == AllManifests)
	case Partitions, Files, DataFiles, DeleteFiles, AllFiles, AllDataFiles, AllDeleteFiles, Entries, AllEntries:
		pt, err := partitionType(md)
		if err != nil {
			return nil, fmt.Errorf("%s table: %w", kind, err)
		}
		if kind == Partitions {
			fields = partitionsFields(pt)
			break
		}
		return filesSchema(kind, md.CurrentSchema(), pt), nil
	default:
		return nil, fmt.Errorf("%w: kind %d", ErrUnknownKind, int(kind))
	}
	return iceberg.NewSchema(0, cloneFields(fields)...), nil
}

// ArrowSchema returns Schema's schema in Arrow, the form batches have.
func ArrowSchema(kind Kind, md *iceberg.TableMetadata) (*arrow.Schema, error) {
	s, err := Schema(kind, md)
	if err != nil {
		return nil, err
	}
	return iceberg.ArrowSchema(s)
}

// filesSchema is a files or entries table's schema: Java's data file (or
// manifest entry) type over the partition type, without the partition
// when the table has no partition field, then readable_metrics.
func filesSchema(kind Kind, table *iceberg.Schema, partition *iceberg.StructType) *iceberg.Schema {
	var fields []iceberg.NestedField
	if kind.entryKind() {
		fields = manifest.EntryType(partition).Fields
	} else {
		fields = manifest.DataFileType(partition).Fields
	}
	if len(partition.Fields) == 0 {
		// Java drops an empty partition struct, which not every engine
		// supports.
		fields = withoutField(fields, idDataFilePartition)
	}
	base := iceberg.NewSchema(0, fields...)
	rm := readableMetricsField(table, base.HighestFieldID())
	return iceberg.NewSchema(0, append(fields, rm)...)
}

// withoutField returns fields without the field of id, at any depth
// below structs.
func withoutField(fields []iceberg.NestedField, id int) []iceberg.NestedField {
	out := make([]iceberg.NestedField, 0, len(fields))
	for _, f := range fields {
		if f.ID == id {
			continue
		}
		if st, ok := f.Type.(*iceberg.StructType); ok {
			f.Type = &iceberg.StructType{Fields: withoutField(st.Fields, id)}
		}
		out = append(out, f)
	}
	return out
}

// cloneFields copies a package-level field list, so that a caller changing
// a returned schema cannot change the next one.
func cloneFields(fields []iceberg.NestedField) []iceberg.NestedField {
	return append([]iceberg.NestedField(nil), fields...)
}
