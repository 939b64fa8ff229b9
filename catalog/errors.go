package catalog

import "errors"

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrTableNotFound marks an identifier that names no table.
	ErrTableNotFound = errors.New("table not found")
	// ErrInvalidIdentifier marks a table name that cannot name a table: an
	// empty part, a path separator, NUL, "." or "..".
	ErrInvalidIdentifier = errors.New("invalid table identifier")
)
