package iceberg

import "errors"

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrInvalidMetadata marks table metadata, manifests or schemas that do not
	// follow the Iceberg spec.
	ErrInvalidMetadata = errors.New("invalid iceberg metadata")
	// ErrUnsupportedVersion marks a format-version this package does not read.
	ErrUnsupportedVersion = errors.New("unsupported iceberg format version")
	// ErrSnapshotNotFound marks a snapshot id, ref or timestamp that selects no snapshot.
	ErrSnapshotNotFound = errors.New("snapshot not found")
	// ErrFieldNotFound marks a field id or column name absent from a schema.
	ErrFieldNotFound = errors.New("field not found")
)
