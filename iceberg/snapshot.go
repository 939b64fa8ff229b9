package iceberg

// Snapshot is the state of a table at one point in time.
type Snapshot struct {
	SnapshotID       int64  `json:"snapshot-id"`
	ParentSnapshotID *int64 `json:"parent-snapshot-id,omitempty"`
	SequenceNumber   int64  `json:"sequence-number,omitempty"`
	TimestampMs      int64  `json:"timestamp-ms"`
	ManifestList     string `json:"manifest-list,omitempty"`
	// Manifests lists manifest paths directly: the v1 form that predates
	// manifest lists.
	Manifests []string `json:"manifests,omitempty"`
	// Summary holds the snapshot's properties, decoded when read.
	Summary  Summary `json:"summary,omitzero"`
	SchemaID *int    `json:"schema-id,omitempty"`
	// FirstRowID and AddedRows are v3 row-lineage fields.
	FirstRowID *int64 `json:"first-row-id,omitempty"`
	AddedRows  *int64 `json:"added-rows,omitempty"`
}

// Operation returns the snapshot summary's operation ("append", ...).
func (s Snapshot) Operation() string { return s.Summary.Value("operation") }

// Ref kinds.
const (
	RefBranch = "branch"
	RefTag    = "tag"
)

// SnapshotRef is a named branch or tag.
type SnapshotRef struct {
	SnapshotID         int64  `json:"snapshot-id"`
	Type               string `json:"type"`
	MinSnapshotsToKeep *int   `json:"min-snapshots-to-keep,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max-snapshot-age-ms,omitempty"`
	MaxRefAgeMs        *int64 `json:"max-ref-age-ms,omitempty"`
}

// SnapshotLogEntry records when a snapshot became current.
type SnapshotLogEntry struct {
	TimestampMs int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

// MetadataLogEntry records an earlier metadata file.
type MetadataLogEntry struct {
	TimestampMs  int64  `json:"timestamp-ms"`
	MetadataFile string `json:"metadata-file"`
}
