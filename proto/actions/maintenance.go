package actions

import "encoding/json"

// Names of the maintenance actions. Each answers a MaintenanceResult
// whose removed list may be long: the first result is the object with
// the list's first files, each later one a JSON array of RemovedFile that
// a reader appends to it.
const (
	// ExpireSnapshots takes an ExpireSnapshotsRequest.
	ExpireSnapshots = "expire_snapshots"
	// RemoveOrphanFiles takes a RemoveOrphanFilesRequest.
	RemoveOrphanFiles = "remove_orphan_files"
	// RewriteDataFiles (compaction) takes a RewriteDataFilesRequest.
	RewriteDataFiles = "rewrite_data_files"
	// RewriteManifests takes a RewriteManifestsRequest.
	RewriteManifests = "rewrite_manifests"
)

// ExpireSnapshotsRequest is the body of expire_snapshots. Zero values
// take the table's history.expire.* properties.
type ExpireSnapshotsRequest struct {
	Table string `json:"table"`
	// OlderThan expires snapshots older than this: an RFC 3339 string or
	// Unix milliseconds.
	OlderThan json.RawMessage `json:"older_than,omitempty"`
	// RetainLast keeps at least this many ancestors of each branch.
	RetainLast int `json:"retain_last,omitempty"`
	// SnapshotIDs expires these snapshots too (never a ref's head).
	SnapshotIDs []int64 `json:"snapshot_ids,omitempty"`
	DryRun      bool    `json:"dry_run"`
}

// RemoveOrphanFilesRequest is the body of remove_orphan_files.
type RemoveOrphanFilesRequest struct {
	Table string `json:"table"`
	// OlderThan only removes files older than this, an RFC 3339 string or
	// Unix milliseconds (default 3 days ago).
	OlderThan json.RawMessage `json:"older_than,omitempty"`
	// Location is the folder to clean (default: the table location).
	Location string `json:"location,omitempty"`
	DryRun   bool   `json:"dry_run"`
}

// RewriteDataFilesRequest is the body of rewrite_data_files.
type RewriteDataFilesRequest struct {
	Table string `json:"table"`
	// Filter limits compaction to matching files ("" all).
	Filter string `json:"filter,omitempty"`
	// TargetFileSize defaults to write.target-file-size-bytes.
	TargetFileSize int64 `json:"target_file_size,omitempty"`
	// MinInputFiles is how many files a partition needs before it is
	// rewritten (default 5); files with deletes are always rewritten.
	MinInputFiles int  `json:"min_input_files,omitempty"`
	DryRun        bool `json:"dry_run"`
}

// RewriteManifestsRequest is the body of rewrite_manifests.
type RewriteManifestsRequest struct {
	Table string `json:"table"`
	// TargetManifestSize defaults to commit.manifest.target-size-bytes
	// (8 MiB).
	TargetManifestSize int64 `json:"target_manifest_size,omitempty"`
	DryRun             bool  `json:"dry_run"`
}

// MaintenanceResult is what a maintenance action did, or would do.
type MaintenanceResult struct {
	DryRun bool `json:"dry_run"`
	// SnapshotID is the commit made (0 for none).
	SnapshotID       int64         `json:"snapshot_id,omitempty"`
	ExpiredSnapshots []int64       `json:"expired_snapshots,omitempty"`
	Removed          []RemovedFile `json:"removed"`
	// Counts counts the removed files by kind.
	Counts map[string]int `json:"counts"`
	// RewrittenFiles and AddedFiles count the input and output files of
	// compaction and manifest rewrites.
	RewrittenFiles int64 `json:"rewritten_files,omitempty"`
	AddedFiles     int64 `json:"added_files,omitempty"`
}

// RemovedFile is a file maintenance removed, or would remove.
type RemovedFile struct {
	Location string `json:"location"`
	// Kind is data, position-deletes, equality-deletes, manifest,
	// manifest-list, metadata, statistics or other.
	Kind string `json:"kind"`
	Size int64  `json:"size,omitempty"`
}
