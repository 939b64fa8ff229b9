package expr

import (
	"errors"
	"fmt"
	"unicode/utf8"

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
	// err is a sentinel the error also matches, such as ErrTooDeep.
	err error
}

// Error returns the message with the byte offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter syntax error at byte %d: %s", e.Pos, e.Msg)
}

// Unwrap lets errors.Is match ErrInvalidFilter, and ErrTooDeep for a
// filter nested too deeply.
func (e *SyntaxError) Unwrap() error {
	if e.err != nil {
		return e.err
	}
	return ErrInvalidFilter
}

// invalidf formats an error wrapping ErrInvalidFilter. String, error and
// Stringer arguments are clipped: a literal or a name quoted in a message
// is cut to maxQuote bytes whatever the filter holds.
func invalidf(format string, args ...any) error {
	clipped := make([]any, 0, len(args)+1)
	clipped = append(clipped, ErrInvalidFilter)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			a = clip(v)
		case []byte:
			a = clip(string(v))
		case error:
			a = clip(v.Error())
		case fmt.Stringer:
			a = clip(v.String())
		}
		clipped = append(clipped, a)
	}
	return fmt.Errorf("%w: "+format, clipped...)
}

// maxQuote is the most bytes of a name, literal or filter that a message
// quotes: a message must stay a log line whatever the input.
const maxQuote = 120

// clip shortens s to about maxQuote bytes for a message, cutting at a
// UTF-8 boundary and marking the cut with "…".
func clip(s string) string {
	if len(s) <= maxQuote {
		return s
	}
	n := maxQuote
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Summary returns e in the filter syntax, shortened to a few hundred
// bytes, for messages and logs that name a filter.
func Summary(e Expr) string {
	return clip(exprString(e, maxQuote+1))
}

// ParamError is a value that BindParams cannot put in place of a
// parameter. It matches ErrInvalidFilter.
type ParamError struct {
	// N is the parameter's number, from 1.
	N int
	// Pos is the byte offset of its ?.
	Pos int
	// Msg says why the value does not fit.
	Msg string
}

// Error names the parameter and says what is wrong.
func (e *ParamError) Error() string { return fmt.Sprintf("parameter %d: %s", e.N, e.Msg) }

// Unwrap lets errors.Is match ErrInvalidFilter.
func (e *ParamError) Unwrap() error { return ErrInvalidFilter }
