package manifest

import (
	"github.com/iceflight/iceflight/iceberg"
)

// The manifest_entry and manifest_file structs of the spec (Spec:
// Manifests, Manifest Lists), per format version, in Iceberg Java's field
// order. Docs are Java's, so the "iceberg.schema" key matches.

func req(id int, name string, t iceberg.Type, doc string) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: t, Required: true, Doc: doc}
}

func opt(id int, name string, t iceberg.Type, doc string) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: t, Doc: doc}
}

func countMap(keyID, valueID int) *iceberg.MapType {
	return &iceberg.MapType{KeyID: keyID, Key: iceberg.IntType{}, ValueID: valueID, Value: iceberg.LongType{}, ValueRequired: true}
}

func boundMap(keyID, valueID int) *iceberg.MapType {
	return &iceberg.MapType{KeyID: keyID, Key: iceberg.IntType{}, ValueID: valueID, Value: iceberg.BinaryType{}, ValueRequired: true}
}

// Field ids of the data_file struct and the manifest entry.
const (
	idStatus       = 0
	idSnapshotID   = 1
	idDataFile     = 2
	idSeq          = 3
	idFileSeq      = 4
	idPartition    = 102
	idBlockSize    = 105
	v1BlockSize    = 64 << 20 // Spec: "Always write a default in v1"; Java's default.
	idContent      = 134
	idFirstRowID   = 142
	idRefDataFile  = 143
	idContentOff   = 144
	idContentSize  = 145
	idSummaries    = 507
	idSummary      = 508
	idListFirstRow = 520
)

// dataFileType is the data_file struct of a version, with partition the
// spec's partition tuple.
func dataFileType(version int, partition *iceberg.StructType) *iceberg.StructType {
	var fs []iceberg.NestedField
	if version >= 2 {
		fs = append(fs, req(idContent, "content", iceberg.IntType{}, "Contents of the file: 0=data, 1=position deletes, 2=equality deletes"))
	}
	fs = append(fs,
		req(100, "file_path", iceberg.StringType{}, "Location URI with FS scheme"),
		req(101, "file_format", iceberg.StringType{}, "File format name: avro, orc, or parquet"),
		req(idPartition, "partition", partition, "Partition data tuple, schema based on the partition spec"),
		req(103, "record_count", iceberg.LongType{}, "Number of records in the file"),
		req(104, "file_size_in_bytes", iceberg.LongType{}, "Total file size in bytes"),
	)
	if version == 1 {
		fs = append(fs, req(idBlockSize, "block_size_in_bytes", iceberg.LongType{}, ""))
	}
	fs = append(fs,
		opt(108, "column_sizes", countMap(117, 118), "Map of column id to total size on disk"),
		opt(109, "value_counts", countMap(119, 120), "Map of column id to total count, including null and NaN"),
		opt(110, "null_value_counts", countMap(121, 122), "Map of column id to null value count"),
		opt(137, "nan_value_counts", countMap(138, 139), "Map of column id to number of NaN values in the column"),
		opt(125, "lower_bounds", boundMap(126, 127), "Map of column id to lower bound"),
		opt(128, "upper_bounds", boundMap(129, 130), "Map of column id to upper bound"),
		opt(131, "key_metadata", iceberg.BinaryType{}, "Encryption key metadata blob"),
		opt(132, "split_offsets", &iceberg.ListType{ElementID: 133, Element: iceberg.LongType{}, ElementRequired: true}, "Splittable offsets"),
	)
	if version >= 2 {
		fs = append(fs, opt(135, "equality_ids", &iceberg.ListType{ElementID: 136, Element: iceberg.IntType{}, ElementRequired: true}, "Equality comparison field IDs"))
	}
	fs = append(fs, opt(140, "sort_order_id", iceberg.IntType{}, "Sort order ID"))
	if version >= 3 {
		fs = append(fs, opt(idFirstRowID, "first_row_id", iceberg.LongType{}, "The first row ID assigned to the first row in the data file"))
	}
	if version >= 2 {
		fs = append(fs, opt(idRefDataFile, "referenced_data_file", iceberg.StringType{}, "Fully qualified location (URI with FS scheme) of a data file that all deletes reference"))
	}
	if version >= 3 {
		fs = append(fs,
			opt(idContentOff, "content_offset", iceberg.LongType{}, "The offset in the file where the content starts"),
			opt(idContentSize, "content_size_in_bytes", iceberg.LongType{}, "The length of referenced content stored in the file"),
		)
	}
	return &iceberg.StructType{Fields: fs}
}

// entryType is the manifest_entry struct of a version.
func entryType(version int, partition *iceberg.StructType) *iceberg.StructType {
	df := req(idDataFile, "data_file", dataFileType(version, partition), "")
	if version == 1 {
		return &iceberg.StructType{Fields: []iceberg.NestedField{
			req(idStatus, "status", iceberg.IntType{}, ""),
			req(idSnapshotID, "snapshot_id", iceberg.LongType{}, ""),
			df,
		}}
	}
	return &iceberg.StructType{Fields: []iceberg.NestedField{
		req(idStatus, "status", iceberg.IntType{}, ""),
		opt(idSnapshotID, "snapshot_id", iceberg.LongType{}, ""),
		opt(idSeq, "sequence_number", iceberg.LongType{}, ""),
		opt(idFileSeq, "file_sequence_number", iceberg.LongType{}, ""),
		df,
	}}
}

// summaryType is the field_summary struct.
var summaryType = &iceberg.StructType{Fields: []iceberg.NestedField{
	req(509, "contains_null", iceberg.BooleanType{}, "True if any file has a null partition value"),
	opt(518, "contains_nan", iceberg.BooleanType{}, "True if any file has a nan partition value"),
	opt(510, "lower_bound", iceberg.BinaryType{}, "Partition lower bound for all files"),
	opt(511, "upper_bound", iceberg.BinaryType{}, "Partition upper bound for all files"),
}}

// listType is the manifest_file struct of a version. In v1 the counts are
// optional; from v2 on they and the sequence numbers are required.
func listType(version int) *iceberg.StructType {
	count := req
	if version == 1 {
		count = opt
	}
	fs := []iceberg.NestedField{
		req(500, "manifest_path", iceberg.StringType{}, "Location URI with FS scheme"),
		req(501, "manifest_length", iceberg.LongType{}, "Total file size in bytes"),
		req(502, "partition_spec_id", iceberg.IntType{}, "Spec ID used to write"),
	}
	if version >= 2 {
		fs = append(fs,
			req(517, "content", iceberg.IntType{}, "Contents of the manifest: 0=data, 1=deletes"),
			req(515, "sequence_number", iceberg.LongType{}, "Sequence number when the manifest was added"),
			req(516, "min_sequence_number", iceberg.LongType{}, "Lowest sequence number in the manifest"),
		)
	}
	fs = append(fs,
		req(503, "added_snapshot_id", iceberg.LongType{}, "Snapshot ID that added the manifest"),
		count(504, "added_files_count", iceberg.IntType{}, "Added entry count"),
		count(505, "existing_files_count", iceberg.IntType{}, "Existing entry count"),
		count(506, "deleted_files_count", iceberg.IntType{}, "Deleted entry count"),
	)
	rows := []iceberg.NestedField{
		count(512, "added_rows_count", iceberg.LongType{}, "Added rows count"),
		count(513, "existing_rows_count", iceberg.LongType{}, "Existing rows count"),
		count(514, "deleted_rows_count", iceberg.LongType{}, "Deleted rows count"),
	}
	parts := opt(idSummaries, "partitions", &iceberg.ListType{ElementID: idSummary, Element: summaryType, ElementRequired: true}, "Summary for each partition")
	if version == 1 {
		// Java's v1 order puts the partition summaries before the row counts.
		fs = append(fs, parts)
		fs = append(fs, rows...)
	} else {
		fs = append(fs, rows...)
		fs = append(fs, parts)
	}
	fs = append(fs, opt(519, "key_metadata", iceberg.BinaryType{}, "Encryption key metadata blob"))
	if version >= 3 {
		fs = append(fs, opt(idListFirstRow, "first_row_id", iceberg.LongType{}, "Starting row ID to assign to new rows in ADDED data files"))
	}
	return &iceberg.StructType{Fields: fs}
}

// avroSchema is a file's Avro schema as its header carries it and as the
// goavro codec that encodes its records is built (see container).
type avroSchema struct{ header, codec string }

// avroSchemas renders a top struct as the Avro schema ("avro.schema") and
// as the Iceberg schema JSON Java writes under "iceberg.schema".
func avroSchemas(name string, t *iceberg.StructType) (avroSchema, string, error) {
	var out avroSchema
	rec, err := newAvroConverter().record(name, t)
	if err != nil {
		return out, "", err
	}
	if out.header, err = schemaJSON(rec); err != nil {
		return out, "", err
	}
	c := newAvroConverter()
	c.plainDecimals = true
	if rec, err = c.record(name, t); err != nil {
		return out, "", err
	}
	if out.codec, err = schemaJSON(rec); err != nil {
		return out, "", err
	}
	ib, err := iceberg.NewSchema(0, t.Fields...).MarshalJSON()
	if err != nil {
		return out, "", err
	}
	return out, string(ib), nil
}
