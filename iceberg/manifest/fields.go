package manifest

import (
	"github.com/iceflight/iceflight/iceberg"
)

// The fields of the spec's manifest_entry, data_file, manifest_file and
// field_summary structs (Spec: Manifests, Manifest Lists), one table each,
// which the reader and the writer both follow:
//
//   - the writer writes a format version's fields in the table's order,
//     Iceberg Java's, each required or optional as the version has it, with
//     Java's docs so that the "iceberg.schema" key matches Java's;
//   - the reader finds each field in the writer's schema by field id, and by
//     name and the names older writers used when a schema has no ids, and
//     decodes it whatever the version.

// versions is a set of format versions.
type versions uint8

const (
	v1 versions = 1 << (iota + 1)
	v2
	v3

	v2on = v2 | v3
	all  = v1 | v2 | v3
)

// has reports whether the set holds format version v.
func (s versions) has(v int) bool { return v > 0 && v < 8 && s&(1<<v) != 0 }

// field is one field of a manifest or manifest list struct.
type field struct {
	id   int
	name string
	// aliases are the names older writers gave the field, which the reader
	// matches in schemas without field ids.
	aliases []string
	// typ is the field's type; nil for the structs that depend on the
	// table (the partition tuple, the data_file struct), given when a
	// version's struct is built.
	typ iceberg.Type
	doc string
	// in holds the versions that have the field; required those in which
	// it is required (a subset of in). Elsewhere it is optional: a union
	// of null and its type.
	in, required versions
}

// names returns the field's name and aliases.
func (f *field) names() []string { return append([]string{f.name}, f.aliases...) }

// Field ids of manifest_entry.
const (
	idStatus             = 0
	idSnapshotID         = 1
	idDataFile           = 2
	idSequenceNumber     = 3
	idFileSequenceNumber = 4
)

// Field ids of data_file.
const (
	idFilePath           = 100
	idFileFormat         = 101
	idPartition          = 102
	idRecordCount        = 103
	idFileSize           = 104
	idBlockSize          = 105
	idColumnSizes        = 108
	idValueCounts        = 109
	idNullValueCounts    = 110
	idLowerBounds        = 125
	idUpperBounds        = 128
	idKeyMetadata        = 131
	idSplitOffsets       = 132
	idContent            = 134
	idEqualityIDs        = 135
	idNaNValueCounts     = 137
	idSortOrderID        = 140
	idFirstRowID         = 142
	idReferencedDataFile = 143
	idContentOffset      = 144
	idContentSize        = 145
)

// Field ids of manifest_file and field_summary.
const (
	idManifestPath       = 500
	idManifestLength     = 501
	idPartitionSpecID    = 502
	idAddedSnapshotID    = 503
	idAddedFiles         = 504
	idExistingFiles      = 505
	idDeletedFiles       = 506
	idPartitions         = 507
	idSummary            = 508 // the element of partitions
	idContainsNull       = 509
	idLowerBound         = 510
	idUpperBound         = 511
	idAddedRows          = 512
	idExistingRows       = 513
	idDeletedRows        = 514
	idListSequenceNumber = 515
	idMinSequenceNumber  = 516
	idManifestContent    = 517
	idContainsNaN        = 518
	idListKeyMetadata    = 519
	idListFirstRowID     = 520
)

// v1BlockSize is the block_size_in_bytes written in v1. Spec: "Always write
// a default in v1"; Java's default.
const v1BlockSize = 64 << 20

// entryFields are manifest_entry's. Its snapshot_id is required in v1 and
// optional from v2 on, where null inherits the manifest's.
var entryFields = []field{
	{id: idStatus, name: "status", typ: iceberg.IntType{}, in: all, required: all},
	{id: idSnapshotID, name: "snapshot_id", typ: iceberg.LongType{}, in: all, required: v1},
	{id: idSequenceNumber, name: "sequence_number", typ: iceberg.LongType{}, in: v2on},
	{id: idFileSequenceNumber, name: "file_sequence_number", typ: iceberg.LongType{}, in: v2on},
	{id: idDataFile, name: "data_file", in: all, required: all}, // dataFileType
}

// dataFileFields are data_file's.
var dataFileFields = []field{
	{id: idContent, name: "content", typ: iceberg.IntType{}, in: v2on, required: v2on,
		doc: "Contents of the file: 0=data, 1=position deletes, 2=equality deletes"},
	{id: idFilePath, name: "file_path", typ: iceberg.StringType{}, in: all, required: all, doc: "Location URI with FS scheme"},
	{id: idFileFormat, name: "file_format", typ: iceberg.StringType{}, in: all, required: all, doc: "File format name: avro, orc, or parquet"},
	{id: idPartition, name: "partition", in: all, required: all, // the spec's partition type
		doc: "Partition data tuple, schema based on the partition spec"},
	{id: idRecordCount, name: "record_count", typ: iceberg.LongType{}, in: all, required: all, doc: "Number of records in the file"},
	{id: idFileSize, name: "file_size_in_bytes", typ: iceberg.LongType{}, in: all, required: all, doc: "Total file size in bytes"},
	{id: idBlockSize, name: "block_size_in_bytes", typ: iceberg.LongType{}, in: v1, required: v1},
	{id: idColumnSizes, name: "column_sizes", typ: countMap(117, 118), in: all, doc: "Map of column id to total size on disk"},
	{id: idValueCounts, name: "value_counts", typ: countMap(119, 120), in: all, doc: "Map of column id to total count, including null and NaN"},
	{id: idNullValueCounts, name: "null_value_counts", typ: countMap(121, 122), in: all, doc: "Map of column id to null value count"},
	{id: idNaNValueCounts, name: "nan_value_counts", typ: countMap(138, 139), in: all, doc: "Map of column id to number of NaN values in the column"},
	{id: idLowerBounds, name: "lower_bounds", typ: boundMap(126, 127), in: all, doc: "Map of column id to lower bound"},
	{id: idUpperBounds, name: "upper_bounds", typ: boundMap(129, 130), in: all, doc: "Map of column id to upper bound"},
	{id: idKeyMetadata, name: "key_metadata", typ: iceberg.BinaryType{}, in: all, doc: "Encryption key metadata blob"},
	{id: idSplitOffsets, name: "split_offsets", typ: &iceberg.ListType{ElementID: 133, Element: iceberg.LongType{}, ElementRequired: true},
		in: all, doc: "Splittable offsets"},
	{id: idEqualityIDs, name: "equality_ids", typ: &iceberg.ListType{ElementID: 136, Element: iceberg.IntType{}, ElementRequired: true},
		in: v2on, doc: "Equality comparison field IDs"},
	{id: idSortOrderID, name: "sort_order_id", typ: iceberg.IntType{}, in: all, doc: "Sort order ID"},
	{id: idFirstRowID, name: "first_row_id", typ: iceberg.LongType{}, in: v3,
		doc: "The first row ID assigned to the first row in the data file"},
	{id: idReferencedDataFile, name: "referenced_data_file", typ: iceberg.StringType{}, in: v2on,
		doc: "Fully qualified location (URI with FS scheme) of a data file that all deletes reference"},
	{id: idContentOffset, name: "content_offset", typ: iceberg.LongType{}, in: v3,
		doc: "The offset in the file where the content starts"},
	{id: idContentSize, name: "content_size_in_bytes", typ: iceberg.LongType{}, in: v3,
		doc: "The length of referenced content stored in the file"},
}

// summaryFields are field_summary's, the element of manifest_file's
// partitions.
var summaryFields = []field{
	{id: idContainsNull, name: "contains_null", typ: iceberg.BooleanType{}, in: all, required: all,
		doc: "True if any file has a null partition value"},
	{id: idContainsNaN, name: "contains_nan", typ: iceberg.BooleanType{}, in: all, doc: "True if any file has a nan partition value"},
	{id: idLowerBound, name: "lower_bound", typ: iceberg.BinaryType{}, in: all, doc: "Partition lower bound for all files"},
	{id: idUpperBound, name: "upper_bound", typ: iceberg.BinaryType{}, in: all, doc: "Partition upper bound for all files"},
}

// partitionsType is manifest_file's partitions: a list of field summaries.
var partitionsType = &iceberg.ListType{ElementID: idSummary, Element: structOf(summaryFields, 1, nil), ElementRequired: true}

// listFields are manifest_file's. The counts are optional in v1 and
// required from v2 on. Java's v1 order puts the partition summaries before
// the row counts, hence partitions twice, each with its versions.
var listFields = []field{
	{id: idManifestPath, name: "manifest_path", typ: iceberg.StringType{}, in: all, required: all, doc: "Location URI with FS scheme"},
	{id: idManifestLength, name: "manifest_length", typ: iceberg.LongType{}, in: all, required: all, doc: "Total file size in bytes"},
	{id: idPartitionSpecID, name: "partition_spec_id", typ: iceberg.IntType{}, in: all, required: all, doc: "Spec ID used to write"},
	{id: idManifestContent, name: "content", typ: iceberg.IntType{}, in: v2on, required: v2on, doc: "Contents of the manifest: 0=data, 1=deletes"},
	{id: idListSequenceNumber, name: "sequence_number", typ: iceberg.LongType{}, in: v2on, required: v2on,
		doc: "Sequence number when the manifest was added"},
	{id: idMinSequenceNumber, name: "min_sequence_number", typ: iceberg.LongType{}, in: v2on, required: v2on,
		doc: "Lowest sequence number in the manifest"},
	{id: idAddedSnapshotID, name: "added_snapshot_id", typ: iceberg.LongType{}, in: all, required: all, doc: "Snapshot ID that added the manifest"},
	{id: idAddedFiles, name: "added_files_count", aliases: []string{"added_data_files_count"}, typ: iceberg.IntType{},
		in: all, required: v2on, doc: "Added entry count"},
	{id: idExistingFiles, name: "existing_files_count", aliases: []string{"existing_data_files_count"}, typ: iceberg.IntType{},
		in: all, required: v2on, doc: "Existing entry count"},
	{id: idDeletedFiles, name: "deleted_files_count", aliases: []string{"deleted_data_files_count"}, typ: iceberg.IntType{},
		in: all, required: v2on, doc: "Deleted entry count"},
	{id: idPartitions, name: "partitions", typ: partitionsType, in: v1, doc: "Summary for each partition"},
	{id: idAddedRows, name: "added_rows_count", typ: iceberg.LongType{}, in: all, required: v2on, doc: "Added rows count"},
	{id: idExistingRows, name: "existing_rows_count", typ: iceberg.LongType{}, in: all, required: v2on, doc: "Existing rows count"},
	{id: idDeletedRows, name: "deleted_rows_count", typ: iceberg.LongType{}, in: all, required: v2on, doc: "Deleted rows count"},
	{id: idPartitions, name: "partitions", typ: partitionsType, in: v2on, doc: "Summary for each partition"},
	{id: idListKeyMetadata, name: "key_metadata", typ: iceberg.BinaryType{}, in: all, doc: "Encryption key metadata blob"},
	{id: idListFirstRowID, name: "first_row_id", typ: iceberg.LongType{}, in: v3,
		doc: "Starting row ID to assign to new rows in ADDED data files"},
}

func countMap(keyID, valueID int) *iceberg.MapType {
	return &iceberg.MapType{KeyID: keyID, Key: iceberg.IntType{}, ValueID: valueID, Value: iceberg.LongType{}, ValueRequired: true}
}

func boundMap(keyID, valueID int) *iceberg.MapType {
	return &iceberg.MapType{KeyID: keyID, Key: iceberg.IntType{}, ValueID: valueID, Value: iceberg.BinaryType{}, ValueRequired: true}
}

// fieldsOf returns the fields of a table that format version v has, in
// order.
func fieldsOf(table []field, v int) []field {
	var out []field
	for _, f := range table {
		if f.in.has(v) {
			out = append(out, f)
		}
	}
	return out
}

// structOf returns the struct of the fields of a table that format version
// v has; types gives the types of fields whose type the table leaves nil.
func structOf(table []field, v int, types map[int]iceberg.Type) *iceberg.StructType {
	fs := fieldsOf(table, v)
	out := make([]iceberg.NestedField, len(fs))
	for i, f := range fs {
		t := f.typ
		if t == nil {
			t = types[f.id]
		}
		out[i] = iceberg.NestedField{ID: f.id, Name: f.name, Type: t, Required: f.required.has(v), Doc: f.doc}
	}
	return &iceberg.StructType{Fields: out}
}

// entryType is the manifest_entry struct of a format version, with
// partition the spec's partition tuple.
func entryType(v int, partition *iceberg.StructType) *iceberg.StructType {
	return structOf(entryFields, v, map[int]iceberg.Type{idDataFile: dataFileType(v, partition)})
}

// dataFileType is the data_file struct of a format version.
func dataFileType(v int, partition *iceberg.StructType) *iceberg.StructType {
	return structOf(dataFileFields, v, map[int]iceberg.Type{idPartition: partition})
}

// listType is the manifest_file struct of a format version.
func listType(v int) *iceberg.StructType { return structOf(listFields, v, nil) }
