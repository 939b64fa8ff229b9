package actions

// Names of the snapshot listing actions. Each takes a TableRequest.
const (
	// Snapshots lists a table's snapshots, oldest first, as a JSON array
	// of Snapshot split over results of at most about 1 MiB: a reader
	// concatenates the arrays in order.
	Snapshots = "snapshots"
	// Refs lists a table's branches and tags as a JSON object of Ref by
	// name, split likewise: a reader merges the objects.
	Refs = "refs"
)

// Snapshot is one snapshot of a table as the snapshots action lists it.
type Snapshot struct {
	SnapshotID int64  `json:"snapshot_id"`
	ParentID   *int64 `json:"parent_id"`
	// TimestampMs is the commit time in milliseconds since the epoch.
	TimestampMs int64 `json:"timestamp_ms"`
	// Operation is the summary's "operation" ("append", "overwrite",
	// "delete", "replace"); omitted when the snapshot has none.
	Operation string `json:"operation,omitempty"`
	// Summary is the snapshot summary; omitted when absent or empty.
	Summary  map[string]string `json:"summary,omitempty"`
	SchemaID *int              `json:"schema_id"`
	// Current is true for the table's current snapshot only.
	Current bool `json:"current"`
}

// Ref is a branch or tag as the refs action lists it.
type Ref struct {
	SnapshotID int64 `json:"snapshot_id"`
	// Type is "branch" or "tag".
	Type string `json:"type"`
}
