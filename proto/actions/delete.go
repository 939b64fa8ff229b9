package actions

// Delete deletes the rows of a table that match a filter: it takes a
// DeleteRequest and answers one WriteResult.
const Delete = "delete"

// DeleteRequest is the body of delete.
type DeleteRequest struct {
	Table string `json:"table"`
	// Filter selects the rows to delete in the read filter grammar; it
	// must be given ("true" deletes every row).
	Filter string `json:"filter"`
	// Branch is the branch changed ("" main).
	Branch string `json:"branch,omitempty"`
	// CopyOnWrite rewrites data files without the deleted rows instead of
	// writing position deletes or deletion vectors.
	CopyOnWrite bool `json:"copy_on_write"`
	// DryRun reports what would be deleted without committing.
	DryRun bool `json:"dry_run"`
}
