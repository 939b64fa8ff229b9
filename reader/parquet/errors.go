package parquet

import (
	"context"
	"errors"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/panics"
)

// Sentinel errors that callers branch on with errors.Is. Every error that
// wraps one of them names the file involved. Package reader's sentinels of
// the same names are these; ErrInvalidFile is also its ErrInvalidTask.
var (
	// ErrUnsupported marks a well-formed file that uses a feature this
	// package does not read: encryption.
	ErrUnsupported = errors.New("unsupported")
	// ErrInvalidFile marks a file that cannot be the Parquet file it was
	// opened as: too short for a footer, without the PAR1 magic at its end,
	// with a footer length that does not fit it, or with a column that ends
	// before the rows its footer claims. To the reader, the scan task that
	// named it is invalid.
	ErrInvalidFile = errors.New("invalid Parquet file")
	// ErrSchemaMismatch marks a column that cannot be read as the type
	// asked for: an INT96 column as anything but a timestamp.
	ErrSchemaMismatch = errors.New("data file does not match schema")
	// ErrCorruptFile marks a file whose bytes do not decode as Parquet: a
	// footer or schema that does not parse.
	ErrCorruptFile = errors.New("corrupt file")
)

// corruptFile marks err, met while decoding a file's bytes, as
// ErrCorruptFile, keeping its message, unless err already carries a cause
// callers branch on: storage, the call's context, a panic or one of this
// package's sentinels.
func corruptFile(err error) error {
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded, fileio.ErrNotFound, fileio.ErrUnavailable, fileio.ErrTooLarge,
		panics.ErrPanic, ErrUnsupported, ErrInvalidFile, ErrSchemaMismatch, ErrCorruptFile} {
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
