package expr

import (
	"errors"
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrInvalidFilter marks a filter that cannot be parsed or applied: bad
	// syntax, a literal that does not convert to its column's type, an
	// operation the column's type does not support.
	ErrInvalidFilter = errors.New("invalid filter")
	// ErrUnknownColumn marks a filter naming a column the schema lacks. It
	// also matches iceberg.ErrFieldNotFound.
	ErrUnknownColumn error = unknownColumn{}
)

type unknownColumn struct{}

func (unknownColumn) Error() string { return "unknown column" }

// Is lets an unknown column also match iceberg.ErrFieldNotFound.
func (unknownColumn) Is(target error) bool { return target == iceberg.ErrFieldNotFound }

// SyntaxError is a filter string that Parse cannot read. It matches
// ErrInvalidFilter.
type SyntaxError struct {
	// Pos is the 0-based byte offset of the offending token.
	Pos int
	// Msg says what was expected or found.
	Msg string
}

// Error returns the message with the byte offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter syntax error at byte %d: %s", e.Pos, e.Msg)
}

// Unwrap lets errors.Is match ErrInvalidFilter.
func (e *SyntaxError) Unwrap() error { return ErrInvalidFilter }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidFilter}, args...)...)
}
