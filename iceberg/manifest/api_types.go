package manifest

import "github.com/iceflight/iceflight/iceberg"

// idSpecID is data_file's spec_id: no manifest stores it (a file's spec is
// its manifest's), but Iceberg Java's API type of a data file has it.
const idSpecID = 141

// EntryType returns the manifest_entry struct as Iceberg Java's API types
// it for every format version at once (ManifestEntry.getSchema): the
// entries metadata tables' columns. data_file is DataFileType(partition).
func EntryType(partition *iceberg.StructType) *iceberg.StructType {
	return apiStruct(entryFields, map[int]iceberg.Type{idDataFile: DataFileType(partition)})
}

// DataFileType returns the data_file struct as Iceberg Java's API types it
// for every format version at once (DataFile.getType): the files metadata
// tables' columns. It has each field a format version from v2 on writes,
// with spec_id after file_format; a field is required when every version
// requires it.
func DataFileType(partition *iceberg.StructType) *iceberg.StructType {
	t := apiStruct(dataFileFields, map[int]iceberg.Type{idPartition: partition})
	fields := make([]iceberg.NestedField, 0, len(t.Fields)+1)
	for _, f := range t.Fields {
		fields = append(fields, f)
		if f.ID == idFileFormat {
			fields = append(fields, iceberg.NestedField{ID: idSpecID, Name: "spec_id", Type: iceberg.IntType{}, Doc: "Partition spec ID"})
		}
	}
	return &iceberg.StructType{Fields: fields}
}

// apiStruct is the struct of a table's fields that some version from v2 on
// has, required where every version requires them; types gives the types
// the table leaves nil.
func apiStruct(table []field, types map[int]iceberg.Type) *iceberg.StructType {
	var out []iceberg.NestedField
	for _, f := range table {
		if f.in&v2on == 0 {
			continue
		}
		t := f.typ
		if t == nil {
			t = types[f.id]
		}
		out = append(out, iceberg.NestedField{ID: f.id, Name: f.name, Type: t, Required: f.required == all, Doc: f.doc})
	}
	return &iceberg.StructType{Fields: out}
}
