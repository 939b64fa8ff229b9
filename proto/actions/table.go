package actions

import "encoding/json"

// Names of the actions that create and drop tables.
const (
	// CreateTable creates a table from a CreateTableRequest and answers
	// one TableInfo.
	CreateTable = "create_table"
	// DropTable drops a table named by a DropTableRequest and answers one
	// DropResult.
	DropTable = "drop_table"
)

// CreateTableRequest is the body of create_table.
type CreateTableRequest struct {
	Table string `json:"table"`
	// Schema is the table's columns as a base64 Arrow IPC schema
	// (pyarrow's Schema.serialize()); the server assigns field ids.
	Schema string `json:"schema"`
	// PartitionBy holds a PartitionField object or a string per field:
	// "id" (identity), "day(ts)", "bucket[16](id)", "bucket(16, id)",
	// "truncate(4, name)".
	PartitionBy []json.RawMessage `json:"partition_by,omitempty"`
	// SortBy holds a SortField object or a string per field:
	// "COLUMN|TRANSFORM(COLUMN) [asc|desc] [nulls-first|nulls-last]".
	SortBy     []json.RawMessage `json:"sort_by,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	// FormatVersion is 1, 2 or 3; 0 is the server's default, 2.
	FormatVersion int `json:"format_version,omitempty"`
	// Location overrides the catalog's default table location.
	Location string `json:"location,omitempty"`
	// IfNotExists answers the existing table instead of AlreadyExists.
	IfNotExists bool `json:"if_not_exists,omitempty"`
}

// PartitionField is one partition field of a new table in its object
// form.
type PartitionField struct {
	// Source is the source column's name (dotted for nested fields).
	Source string `json:"source"`
	// Transform is identity (default), bucket[N], truncate[W], year,
	// month, day, hour or void.
	Transform string `json:"transform"`
	// Name is the partition field's name; "" derives it as Iceberg does
	// ("ts_day", "id_bucket").
	Name string `json:"name,omitempty"`
}

// SortField is one sort order field, of a new table (create_table's
// sort_by) or of a changed sort order (alter_table's sort_order).
type SortField struct {
	Source string `json:"source"`
	// Transform defaults to identity.
	Transform string `json:"transform,omitempty"`
	// Direction is "asc" (default) or "desc"; NullOrder "nulls-first"
	// (default for asc) or "nulls-last".
	Direction string `json:"direction,omitempty"`
	NullOrder string `json:"null_order,omitempty"`
}

// TableInfo is a table as create_table and alter_table answer it.
type TableInfo struct {
	Table            string `json:"table"`
	MetadataLocation string `json:"metadata_location"`
	TableUUID        string `json:"table_uuid"`
	FormatVersion    int    `json:"format_version"`
	SchemaID         int    `json:"schema_id"`
}

// DropTableRequest is the body of drop_table.
type DropTableRequest struct {
	Table string `json:"table"`
	// Purge deletes the table's files too.
	Purge bool `json:"purge"`
}

// DropResult is the answer of drop_table and drop_namespace.
type DropResult struct {
	Dropped bool `json:"dropped"`
}
