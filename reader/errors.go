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
	// ErrCorruptFile marks a data or delete file whose bytes do not decode
	// as its format says: a Parquet footer, schema or page that does not
	// parse.
	ErrCorruptFile = errors.New("corrupt file")
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

// parquetClasses pairs package parquet's sentinels with this package's for
// the same faults.
var parquetClasses = [...]struct{ from, to error }{
	{parquet.ErrUnsupported, ErrUnsupported},
	{parquet.ErrInvalidFile, ErrInvalidTask},
	{parquet.ErrSchemaMismatch, ErrSchemaMismatch},
	{parquet.ErrCorruptFile, ErrCorruptFile},
}

// fromParquet gives an error of package parquet this package's sentinel
// for its fault as well as its own, keeping its message, which already
// reads as this package's (see parquet's sentinels); nil stays nil.
func fromParquet(err error) error {
	if err == nil {
		return nil
	}
	for _, c := range parquetClasses {
		if errors.Is(err, c.from) {
			return classedError{err: err, class: c.to}
		}
	}
	return err
}

// classedError is an error of package parquet that also matches class.
type classedError struct{ err, class error }

func (e classedError) Error() string        { return e.err.Error() }
func (e classedError) Unwrap() error        { return e.err }
func (e classedError) Is(target error) bool { return target == e.class }
