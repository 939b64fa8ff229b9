package iceberg

import "errors"

// ErrRequirementFailed marks a commit whose requirements no longer hold:
// another writer changed the table first. Catalogs report it as a commit
// conflict, and writers retry on fresh metadata.
var ErrRequirementFailed = errors.New("commit requirement failed")

// Update is one change to a table's metadata, by the names and with the
// meaning of the Iceberg REST catalog's TableUpdate. A REST catalog sends
// them as they are; the directory and SQL catalogs apply them with
// ApplyUpdates and write the result as a new metadata file. Each type
// marshals to the REST JSON form ({"action": "add-snapshot", ...}).
type Update interface {
	// Action is the REST action name ("add-snapshot").
	Action() string
}

// Requirement is one condition a commit needs of the table's current
// metadata, as the REST catalog's TableRequirement. Each type marshals to
// the REST JSON form ({"type": "assert-ref-snapshot-id", ...}).
type Requirement interface {
	// Type is the REST requirement name ("assert-table-uuid").
	Type() string
	// Validate checks the requirement against the table's current
	// metadata (nil when the table does not exist); a failure wraps
	// ErrRequirementFailed.
	Validate(current *TableMetadata) error
}

// The updates.
type (
	// AssignUUID sets the table's UUID (only at creation).
	AssignUUID struct{ UUID string }
	// UpgradeFormatVersion raises the format version; it never lowers it.
	UpgradeFormatVersion struct{ FormatVersion int }
	// AddSchema adds a schema. The table's last-column-id becomes the
	// larger of the schema's highest id and the current one, as Iceberg
	// Java 1.12 does; LastColumnID, the REST form's deprecated
	// last-column-id, is sent along but not used.
	AddSchema struct {
		Schema       *Schema
		LastColumnID int
	}
	// SetCurrentSchema makes a schema current; -1 is the schema added last
	// in the same commit.
	SetCurrentSchema struct{ SchemaID int }
	// AddSpec adds a partition spec.
	AddSpec struct{ Spec PartitionSpec }
	// SetDefaultSpec makes a spec the default; -1 is the one added last.
	SetDefaultSpec struct{ SpecID int }
	// AddSortOrder adds a sort order.
	AddSortOrder struct{ SortOrder SortOrder }
	// SetDefaultSortOrder makes a sort order the default; -1 is the one
	// added last.
	SetDefaultSortOrder struct{ SortOrderID int }
	// AddSnapshot adds a snapshot (it is not current until a
	// SetSnapshotRef points a branch at it).
	AddSnapshot struct{ Snapshot Snapshot }
	// SetSnapshotRef points a branch or tag at a snapshot; setting "main"
	// makes the snapshot current and logs it in the snapshot-log.
	SetSnapshotRef struct {
		Name string
		Ref  SnapshotRef
	}
	// RemoveSnapshots removes snapshots (expiry).
	RemoveSnapshots struct{ SnapshotIDs []int64 }
	// RemoveSnapshotRef removes a branch or tag.
	RemoveSnapshotRef struct{ Name string }
	// RemoveSchemas removes schemas by id; unknown ids are ignored, the
	// current schema cannot be removed.
	RemoveSchemas struct{ SchemaIDs []int }
	// RemovePartitionSpecs removes partition specs by id; unknown ids are
	// ignored, the default spec cannot be removed.
	RemovePartitionSpecs struct{ SpecIDs []int }
	// SetLocation changes the table's base location.
	SetLocation struct{ Location string }
	// SetProperties sets table properties.
	SetProperties struct{ Updates map[string]string }
	// RemoveProperties removes table properties.
	RemoveProperties struct{ Removals []string }
)

// The requirements.
type (
	// AssertCreate requires that the table does not exist.
	AssertCreate struct{}
	// AssertTableUUID requires the table's UUID.
	AssertTableUUID struct{ UUID string }
	// AssertRefSnapshotID requires that a branch or tag points at a
	// snapshot, or with a nil SnapshotID that it does not exist.
	AssertRefSnapshotID struct {
		Ref        string
		SnapshotID *int64
	}
	// AssertLastAssignedFieldID requires the table's last-column-id.
	AssertLastAssignedFieldID struct{ LastAssignedFieldID int }
	// AssertCurrentSchemaID requires the current schema id.
	AssertCurrentSchemaID struct{ CurrentSchemaID int }
	// AssertLastAssignedPartitionID requires the last-partition-id.
	AssertLastAssignedPartitionID struct{ LastAssignedPartitionID int }
	// AssertDefaultSpecID requires the default spec id.
	AssertDefaultSpecID struct{ DefaultSpecID int }
	// AssertDefaultSortOrderID requires the default sort order id.
	AssertDefaultSortOrderID struct{ DefaultSortOrderID int }
)

func (AssignUUID) Action() string           { return "assign-uuid" }
func (UpgradeFormatVersion) Action() string { return "upgrade-format-version" }
func (AddSchema) Action() string            { return "add-schema" }
func (SetCurrentSchema) Action() string     { return "set-current-schema" }
func (AddSpec) Action() string              { return "add-spec" }
func (SetDefaultSpec) Action() string       { return "set-default-spec" }
func (AddSortOrder) Action() string         { return "add-sort-order" }
func (SetDefaultSortOrder) Action() string  { return "set-default-sort-order" }
func (AddSnapshot) Action() string          { return "add-snapshot" }
func (SetSnapshotRef) Action() string       { return "set-snapshot-ref" }
func (RemoveSnapshots) Action() string      { return "remove-snapshots" }
func (RemoveSnapshotRef) Action() string    { return "remove-snapshot-ref" }
func (RemoveSchemas) Action() string        { return "remove-schemas" }
func (RemovePartitionSpecs) Action() string { return "remove-partition-specs" }
func (SetLocation) Action() string          { return "set-location" }
func (SetProperties) Action() string        { return "set-properties" }
func (RemoveProperties) Action() string     { return "remove-properties" }

func (AssertCreate) Type() string                  { return "assert-create" }
func (AssertTableUUID) Type() string               { return "assert-table-uuid" }
func (AssertRefSnapshotID) Type() string           { return "assert-ref-snapshot-id" }
func (AssertLastAssignedFieldID) Type() string     { return "assert-last-assigned-field-id" }
func (AssertCurrentSchemaID) Type() string         { return "assert-current-schema-id" }
func (AssertLastAssignedPartitionID) Type() string { return "assert-last-assigned-partition-id" }
func (AssertDefaultSpecID) Type() string           { return "assert-default-spec-id" }
func (AssertDefaultSortOrderID) Type() string      { return "assert-default-sort-order-id" }
