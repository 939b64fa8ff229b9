package orc

import "errors"

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrInvalidFile marks bytes that are not a well-formed ORC file: a bad
	// magic, a truncated tail, a malformed protobuf message, a stream that
	// ends before the rows it should hold.
	ErrInvalidFile = errors.New("invalid ORC file")
	// ErrUnsupported marks a well-formed file that uses a feature this
	// decoder does not implement: union columns, LZO or Brotli compression,
	// column encryption, the DECIMAL_64 encoding of ORC v2.
	ErrUnsupported = errors.New("unsupported ORC feature")
	// ErrTooLarge marks a footer or stream larger, compressed or not, than
	// the bound set with WithMaxRead.
	ErrTooLarge = errors.New("ORC footer or stream too large")
)
