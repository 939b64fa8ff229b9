package catalog

import "errors"

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrTableNotFound marks an identifier that names no table.
	ErrTableNotFound = errors.New("table not found")
	// ErrInvalidIdentifier marks a table name that cannot name a table: an
	// empty part, a path separator, NUL, "." or "..".
	ErrInvalidIdentifier = errors.New("invalid table identifier")
	// ErrOutsideWarehouse marks a file a table names that lies, or leads
	// through symlinks, outside the warehouse and the extra roots allowed.
	ErrOutsideWarehouse = errors.New("lies outside the warehouse")
	// ErrOtherTable marks a file a table names that lies in the folder of
	// another table, which the caller may not read.
	ErrOtherTable = errors.New("lies in the folder of a table the caller may not read")
)
