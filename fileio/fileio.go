// Package fileio opens files by location (a URI or a bare path) for random
// access, behind one small interface, so the rest of iceflight never cares
// where bytes live.
package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// File is an open file that supports random access.
type File interface {
	io.ReaderAt
	io.Closer
	// Size returns the file's length in bytes.
	Size() int64
}

// FileIO opens files by location.
type FileIO interface {
	// Open opens the file at location for reading.
	Open(ctx context.Context, location string) (File, error)
}

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrNotFound marks a location with no file.
	ErrNotFound = errors.New("file not found")
	// ErrUnsupportedScheme marks a location whose URI scheme has no FileIO.
	ErrUnsupportedScheme = errors.New("unsupported location scheme")
	// ErrUnavailable marks a storage failure that may pass on retry.
	ErrUnavailable = errors.New("storage unavailable")
)

// ReadAll reads the whole file at location, which may hold at most limit
// bytes (0 or less: no limit); a larger file is an error wrapping
// ErrTooLarge, before anything is allocated. Metadata files and manifests are
// small and immutable; reading each in one call, into a buffer of the file's
// size, keeps object-store round trips low and copies nothing.
func ReadAll(ctx context.Context, fio FileIO, location string, limit int64) ([]byte, error) {
	f, err := fio.Open(ctx, location)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := CheckSize(location, f.Size(), limit); err != nil {
		return nil, err
	}
	b := make([]byte, f.Size())
	// ReadAt fills b or says why not; io.EOF with a full b is success.
	if n, err := f.ReadAt(b, 0); n < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read %s: %w", location, err)
	}
	return b, nil
}
