package actions

// Modes of a DoPut.
const (
	// ModeAppend adds the stream's rows (the default).
	ModeAppend = "append"
	// ModeOverwrite replaces the rows that match the filter (every row
	// without one) by the stream's rows, in one commit.
	ModeOverwrite = "overwrite"
)

// PutAbort is the app_metadata of a DoPut message, with no data, by which
// a client that cannot cancel its call (pyarrow's DoPut writer has no
// cancel) says that its rows failed: the server ends the call Canceled and
// commits nothing.
const PutAbort = "iceflight:abort"

// PutCommand is the JSON command of a DoPut's CMD descriptor: where the
// stream's rows go and how they change the table. (A PATH descriptor
// names a table to append to instead.) The server answers one PutResult
// whose app_metadata is a WriteResult.
type PutCommand struct {
	Table string `json:"table"`
	// Mode is ModeAppend ("" too) or ModeOverwrite.
	Mode string `json:"mode,omitempty"`
	// Filter selects the rows an overwrite replaces ("" every row); an
	// append takes none.
	Filter string `json:"filter,omitempty"`
	// Branch is the branch written ("" main).
	Branch string `json:"branch,omitempty"`
	// SnapshotProperties are added to the new snapshot's summary.
	SnapshotProperties map[string]string `json:"snapshot_properties,omitempty"`
}

// WriteResult is what a commit of rows did: the answer of a DoPut and of
// the delete action.
type WriteResult struct {
	// SnapshotID is the new snapshot (0 for a dry run or a no-op).
	SnapshotID       int64  `json:"snapshot_id"`
	SequenceNumber   int64  `json:"sequence_number"`
	Operation        string `json:"operation"`
	MetadataLocation string `json:"metadata_location"`
	AddedDataFiles   int64  `json:"added_data_files"`
	AddedRecords     int64  `json:"added_records"`
	AddedDeleteFiles int64  `json:"added_delete_files"`
	DeletedDataFiles int64  `json:"deleted_data_files"`
	// DeletedRecords counts rows removed (whole files and positions).
	DeletedRecords int64 `json:"deleted_records"`
	AddedBytes     int64 `json:"added_bytes"`
	// Attempts is how many commit attempts the server made (1 without
	// conflict).
	Attempts int  `json:"attempts"`
	DryRun   bool `json:"dry_run,omitempty"`
}
