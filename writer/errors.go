package writer

import "errors"

// Errors callers branch on (flight maps them to gRPC codes).
var (
	// ErrInvalidArgument marks a request that cannot be carried out as
	// given: a bad filter, a stream whose schema does not fit the table,
	// a tag written as a branch.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrUnsupported marks a request this writer does not carry out (a v1
	// snapshot without a manifest list, delete files in a v1 table).
	ErrUnsupported = errors.New("unsupported")
)
