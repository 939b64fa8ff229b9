package fileio

import (
	"errors"
	"fmt"
	"io"
)

// ReadRange is io.ReaderAt for a file of size bytes on a store that reads
// a range with one request: it checks off, clips p to the file's end, and
// reads the clipped range whole from the body get opens for it. A read
// that reaches the end returns io.EOF with its bytes, as io.ReaderAt's
// contract says. A body shorter than asked for (the object changed, or the
// connection broke mid-body) is an error wrapping io.ErrUnexpectedEOF.
// Errors are returned for the caller to name the file and classify.
func ReadRange(p []byte, off, size int64, get func(off, n int64) (io.ReadCloser, error)) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("negative offset %d", off)
	}
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), size-off)
	if want == 0 {
		return 0, nil
	}
	body, err := get(off, want)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.ReadFull(body, p[:want])
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("%d of %d bytes at %d: %w", n, want, off, io.ErrUnexpectedEOF)
		}
		return n, err
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
