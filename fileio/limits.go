package fileio

import (
	"errors"
	"fmt"
)

// ErrTooLarge marks a file, or a piece of one, that is larger than what a
// caller is willing to hold in memory: a metadata file, manifest or footer of
// many gigabytes is damaged or hostile, and reading it would exhaust memory.
var ErrTooLarge = errors.New("file too large to read into memory")

// CheckSize returns nil when size bytes of what names (a file, or "footer of
// FILE") fit within limit, else an error wrapping ErrTooLarge that names it.
// A limit of 0 or less means no limit.
func CheckSize(what string, size, limit int64) error {
	if limit > 0 && size > limit {
		return fmt.Errorf("%s: %d bytes, more than the limit of %d: %w", what, size, limit, ErrTooLarge)
	}
	return nil
}
