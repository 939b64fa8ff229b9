// Package actions defines the JSON answers of iceflight's table actions
// (DoAction "snapshots" and "refs"): the one definition that the server
// writes and the Go client reads, so the two cannot drift apart. It
// imports nothing of iceflight, so a client pulls in no server code.
package actions

// Names of the table actions. Each takes the JSON body {"table": "db.t"}.
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
