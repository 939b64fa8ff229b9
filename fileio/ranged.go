package fileio

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadRange is io.ReaderAt for a file of size bytes on a store that reads
// a range with one request: it checks off, clips p to the file's end, and
// reads the clipped range whole from the body get opens for it. A read
// that reaches the end returns io.EOF with its bytes, as io.ReaderAt's
// contract says. A body shorter than asked for (the object changed, or the
// connection broke mid-body) is an error wrapping io.ErrUnexpectedEOF.
//
// get also returns the object's whole length as the store's answer states
// it (or -1 when it states none). Every ranged answer does, so a size the
// file was opened with that is wrong (OpenSized with a misrecorded size)
// shows on the first read, before any byte is handed on: the read fails
// wrapping ErrSizeMismatch, for OpenRecorded to open the file again.
// Errors are returned for the caller to name the file and classify.
func ReadRange(p []byte, off, size int64, get func(off, n int64) (body io.ReadCloser, total int64, err error)) (int, error) {
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
	body, total, err := get(off, want)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	if total >= 0 && total != size {
		return 0, fmt.Errorf("%w: the object has %d bytes, %d were recorded", ErrSizeMismatch, total, size)
	}
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

// RangeTotal returns the object's length from an HTTP Content-Range answer
// ("bytes 0-99/1581"), or -1 when the answer gives none ("bytes 0-99/*",
// or no header).
func RangeTotal(contentRange string) int64 {
	_, total, ok := strings.Cut(contentRange, "/")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(total), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
