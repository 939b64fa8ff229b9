package iceberg

// Reserved field ids of metadata columns (spec: Reserved Field IDs). A
// reader fills these columns itself; they are never stored in data files,
// except the v3 row-lineage columns, which writers may store.
const (
	FieldIDFilePath                  = 2147483646
	FieldIDRowPosition               = 2147483645
	FieldIDIsDeleted                 = 2147483644
	FieldIDSpecID                    = 2147483643
	FieldIDPartition                 = 2147483642
	FieldIDRowID                     = 2147483540
	FieldIDLastUpdatedSequenceNumber = 2147483539
	// FieldIDDeleteFilePath and FieldIDDeletePosition are the columns of
	// position delete files.
	FieldIDDeleteFilePath = 2147483546
	FieldIDDeletePosition = 2147483545
	// FieldIDFileSize, FieldIDFileModified and FieldIDFileETag are
	// iceflight's own storage columns (_size, _time, _etag, as ClickHouse
	// names them), taken from the end of the spec's metadata column range
	// (Integer.MAX_VALUE - 98 to - 100), away from the ids Iceberg Java
	// assigns from its start.
	FieldIDFileSize     = 2147483549
	FieldIDFileModified = 2147483548
	FieldIDFileETag     = 2147483547
)

var metadataColumns = []NestedField{
	{ID: FieldIDFilePath, Name: "_file", Type: StringType{}, Required: true, Doc: "Path of the file in which a row is stored"},
	{ID: FieldIDRowPosition, Name: "_pos", Type: LongType{}, Required: true, Doc: "Ordinal position of a row in the source data file"},
	{ID: FieldIDSpecID, Name: "_spec_id", Type: IntType{}, Required: true, Doc: "Spec ID used to track the file containing a row"},
	{ID: FieldIDRowID, Name: "_row_id", Type: LongType{}, Doc: "Implicit row ID that is automatically assigned"},
	{ID: FieldIDLastUpdatedSequenceNumber, Name: "_last_updated_sequence_number", Type: LongType{}, Doc: "Sequence number when the row was last updated"},
	{ID: FieldIDFileSize, Name: "_size", Type: LongType{}, Required: true, Doc: "Size in bytes of the file in which a row is stored, as storage says"},
	{ID: FieldIDFileModified, Name: "_time", Type: TimestampTzType{}, Doc: "When the file in which a row is stored was last modified, where storage says"},
	{ID: FieldIDFileETag, Name: "_etag", Type: StringType{}, Doc: "Entity tag of the file in which a row is stored, where storage has one"},
}

// MetadataColumn returns the metadata column with the given name. The
// _partition column is not among them: its type depends on the table (see
// TableMetadata.PartitionUnionType).
func MetadataColumn(name string) (NestedField, bool) {
	for _, f := range metadataColumns {
		if f.Name == name {
			return f, true
		}
	}
	return NestedField{}, false
}

// MetadataColumnNames lists the names of the metadata columns a reader
// serves when asked for them by name, _partition included.
func MetadataColumnNames() []string {
	names := make([]string, 0, len(metadataColumns)+1)
	for _, f := range metadataColumns {
		names = append(names, f.Name)
	}
	return append(names, "_partition")
}

// IsMetadataColumnID reports whether id is a reserved metadata column id.
func IsMetadataColumnID(id int) bool {
	switch id {
	case FieldIDFilePath, FieldIDRowPosition, FieldIDIsDeleted, FieldIDSpecID, FieldIDPartition,
		FieldIDRowID, FieldIDLastUpdatedSequenceNumber, FieldIDFileSize, FieldIDFileModified, FieldIDFileETag:
		return true
	}
	return false
}

// PartitionUnionType returns the type of the _partition metadata column:
// a struct of every partition field of every spec, by partition field id
// in order of first appearance, each optional since files of other specs
// have no value for it.
func (md *TableMetadata) PartitionUnionType() *StructType {
	seen := map[int]bool{}
	var fields []NestedField
	for _, spec := range md.Specs {
		for _, f := range spec.Fields {
			if seen[f.FieldID] {
				continue
			}
			seen[f.FieldID] = true
			var t Type = UnknownType{}
			for i := len(md.Schemas) - 1; i >= 0; i-- {
				if src, ok := md.Schemas[i].FieldByID(f.SourceID); ok {
					t = f.Transform.ResultType(src.Type)
					break
				}
			}
			fields = append(fields, NestedField{ID: f.FieldID, Name: f.Name, Type: t})
		}
	}
	return &StructType{Fields: fields}
}
