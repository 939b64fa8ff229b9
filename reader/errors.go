package reader

import "errors"

// Sentinel errors that callers branch on with errors.Is. Every error that
// wraps one of them names the data file involved.
var (
	// ErrUnsupported marks a task this reader cannot serve yet: ORC files,
	// encrypted Parquet files, shredded variants, Avro unions of several
	// types and equality deletes on non-primitive columns.
	ErrUnsupported = errors.New("unsupported")
	// ErrInvalidTask marks a task that contradicts itself or its file: an
	// unknown format, a row group the file does not have.
	ErrInvalidTask = errors.New("invalid scan task")
	// ErrSchemaMismatch marks a data file whose columns cannot be read as the
	// projected schema: a type that does not promote to the schema's type, or
	// a required field that the file lacks and that has no initial-default.
	ErrSchemaMismatch = errors.New("data file does not match schema")
	// ErrCorruptDeletionVector marks a deletion vector blob that does not
	// follow the Puffin spec: a bad length prefix, magic or checksum, or a
	// bitmap that does not decode.
	ErrCorruptDeletionVector = errors.New("corrupt deletion vector")
)
