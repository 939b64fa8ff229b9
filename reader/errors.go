package reader

import (
	"context"
	"errors"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/reader/parquet"
)

// Sentinel errors that callers branch on with errors.Is. Every error that
// wraps one of them names the data file involved.
var (
	// ErrUnsupported marks a task this reader cannot serve yet: ORC files,
	// encrypted Parquet files, shredded variants, Avro unions of several
	// types and equality deletes on non-primitive columns.
	ErrUnsupported = parquet.ErrUnsupported
	// ErrInvalidTask marks a task that contradicts itself or its file: an
	// unknown format, a row group the file does not have.
	ErrInvalidTask = errors.New("invalid scan task")
	// ErrSchemaMismatch marks a data file whose columns cannot be read as the
	// projected schema: a type that does not promote to the schema's type, or
	// a required field that the file lacks and that has no initial-default.
	ErrSchemaMismatch = parquet.ErrSchemaMismatch
	// ErrCorruptDeletionVector marks a deletion vector blob that does not
	// follow the Puffin spec: a bad length prefix, magic or checksum, or a
	// bitmap that does not decode.
	ErrCorruptDeletionVector = errors.New("corrupt deletion vector")
	// ErrCorruptFile marks a data or delete file whose bytes do not decode
	// as its format says: a Parquet footer, schema or page that does not
	// parse.
	ErrCorruptFile = parquet.ErrCorruptFile
)

// corruptFile marks err, met while decoding a file's bytes, as
// ErrCorruptFile, keeping its message, unless err already carries a cause
// callers branch on: storage, the call's context, a panic or one of this
// package's sentinels.
func corruptFile(err error) error {
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded, fileio.ErrNotFound, fileio.ErrUnavailable, fileio.ErrTooLarge,
		panics.ErrPanic, ErrUnsupported, ErrInvalidTask, ErrSchemaMismatch, ErrCorruptDeletionVector, ErrCorruptFile} {
		if errors.Is(err, cause) {
			return err
		}
	}
	return corruptError{err}
}

// corruptError is an error marked as ErrCorruptFile.
type corruptError struct{ err error }

func (e corruptError) Error() string        { return e.err.Error() }
func (e corruptError) Unwrap() error        { return e.err }
func (e corruptError) Is(target error) bool { return target == ErrCorruptFile }

// fromParquet gives an error of package parquet this package's sentinel:
// its sentinels are package parquet's, except that a file parquet finds
// invalid is an invalid task here too; nil stays nil.
func fromParquet(err error) error {
	if err != nil && errors.Is(err, parquet.ErrInvalidFile) && !errors.Is(err, ErrInvalidTask) {
		return invalidTaskError{err}
	}
	return err
}

// invalidTaskError is an error of package parquet's ErrInvalidFile that
// also matches ErrInvalidTask.
type invalidTaskError struct{ err error }

func (e invalidTaskError) Error() string        { return e.err.Error() }
func (e invalidTaskError) Unwrap() error        { return e.err }
func (e invalidTaskError) Is(target error) bool { return target == ErrInvalidTask }
