package actions

import "encoding/json"

// AlterTable changes a table's schema, partition spec, sort order,
// properties, refs or format version in one commit: it takes an
// AlterTableRequest and answers one TableInfo.
const AlterTable = "alter_table"

// AlterTableRequest is the body of alter_table; its changes commit
// together.
type AlterTableRequest struct {
	Table            string            `json:"table"`
	Schema           []SchemaChange    `json:"schema,omitempty"`
	PartitionSpec    []SpecChange      `json:"partition_spec,omitempty"`
	SortOrder        []SortField       `json:"sort_order,omitempty"`
	SetProperties    map[string]string `json:"set_properties,omitempty"`
	RemoveProperties []string          `json:"remove_properties,omitempty"`
	Refs             []RefChange       `json:"refs,omitempty"`
	// FormatVersion upgrades the table (never downgrades); 0 keeps it.
	FormatVersion int `json:"format_version,omitempty"`
}

// SchemaChange is one schema change. Op is add_column, drop_column,
// rename_column, update_type, make_optional, make_required, update_doc,
// move_first, move_before, move_after or set_identifier_fields. Path is
// the column's dotted name ("a.b" for a nested field); for add_column it
// is the new column's full path (its parent must exist).
type SchemaChange struct {
	Op   string `json:"op"`
	Path string `json:"path,omitempty"`
	// Name is the new name (rename_column).
	Name string `json:"name,omitempty"`
	// Type is an Iceberg type in the spec's JSON form ("long",
	// {"type":"struct",...}), for add_column and update_type.
	Type     json.RawMessage `json:"type,omitempty"`
	Required bool            `json:"required,omitempty"`
	Doc      string          `json:"doc,omitempty"`
	// Default is the v3 initial and write default in JSON single-value
	// form (add_column).
	Default json.RawMessage `json:"default,omitempty"`
	// Ref is the column to move before or after.
	Ref string `json:"ref,omitempty"`
	// Fields are the identifier fields (set_identifier_fields).
	Fields []string `json:"fields,omitempty"`
}

// SpecChange is one partition spec change: Op add_field, remove_field or
// rename_field.
type SpecChange struct {
	Op        string `json:"op"`
	Source    string `json:"source,omitempty"`
	Transform string `json:"transform,omitempty"`
	Name      string `json:"name,omitempty"`
	NewName   string `json:"new_name,omitempty"`
}

// RefChange is one branch or tag change: Op create_branch, create_tag,
// replace_branch, replace_tag, remove_ref or fast_forward (Name to
// Target).
type RefChange struct {
	Op   string `json:"op"`
	Name string `json:"name"`
	// SnapshotID is the snapshot pointed at (default: current).
	SnapshotID *int64 `json:"snapshot_id,omitempty"`
	// Target is the branch fast_forward moves Name to.
	Target             string `json:"target,omitempty"`
	MaxRefAgeMs        *int64 `json:"max_ref_age_ms,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max_snapshot_age_ms,omitempty"`
	MinSnapshotsToKeep *int   `json:"min_snapshots_to_keep,omitempty"`
}
