package changelog

import "errors"

// Errors callers branch on; every error Plan and Read return wraps one of
// them or the error of the package that failed.
var (
	// ErrInvalidRequest is a request that cannot be planned: a start that
	// is not an ancestor of the end, unknown columns, updates without
	// identifier columns.
	ErrInvalidRequest = errors.New("invalid change stream request")
	// ErrSnapshotNotFound is an end snapshot the table does not have.
	ErrSnapshotNotFound = errors.New("snapshot not found")
	// ErrSnapshotExpired is a snapshot of the range that expired from the
	// table's metadata, so its changes can no longer be told.
	ErrSnapshotExpired = errors.New("snapshot in the range has expired")
	// ErrGroupTooLarge is a snapshot whose deleted and inserted rows, to
	// be grouped for carry-overs and updates, exceed WithMaxGroupBytes.
	ErrGroupTooLarge = errors.New("changes of one snapshot exceed the grouping bound")
	// ErrDuplicateIdentifier is a snapshot that deletes two rows of one
	// identifier while computing updates, as Spark refuses it.
	ErrDuplicateIdentifier = errors.New("several deleted rows share an identifier")
)
