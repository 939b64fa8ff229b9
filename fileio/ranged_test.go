package fileio_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// rangeFile is a File whose ranges come from a string through ReadRange,
// with body, when set, standing for a store's response body.
type rangeFile struct {
	data string
	body func(s string) io.Reader
	gets int
}

func (f *rangeFile) ReadAt(p []byte, off int64) (int, error) {
	return fileio.ReadRange(p, off, int64(len(f.data)), func(off, n int64) (io.ReadCloser, int64, error) {
		f.gets++
		s := f.data[off : off+n]
		if f.body != nil {
			return io.NopCloser(f.body(s)), -1, nil
		}
		return io.NopCloser(strings.NewReader(s)), int64(len(f.data)), nil
	})
}
func (f *rangeFile) Size() int64  { return int64(len(f.data)) }
func (f *rangeFile) Close() error { return nil }

func TestReadRangeKeepsTheReaderAtContract(t *testing.T) {
	t.Parallel()
	fileiotest.CheckRanges(t, &rangeFile{data: fileiotest.RangeData})
}

func TestReadRangeAsksNothingOutsideTheFile(t *testing.T) {
	t.Parallel()
	f := &rangeFile{data: fileiotest.RangeData}
	f.ReadAt(make([]byte, 4), 20)
	f.ReadAt(nil, 3)
	if f.gets != 0 {
		t.Errorf("%d requests for ranges with no bytes in the file", f.gets)
	}
}

func TestAShortBodyIsUnexpectedEOF(t *testing.T) {
	t.Parallel()
	f := &rangeFile{data: fileiotest.RangeData, body: func(s string) io.Reader { return strings.NewReader(s[:len(s)/2]) }}
	n, err := f.ReadAt(make([]byte, 8), 2)
	if !errors.Is(err, io.ErrUnexpectedEOF) || n != 4 {
		t.Fatalf("ReadAt of a short body = %d, %v; want 4 bytes and io.ErrUnexpectedEOF", n, err)
	}
}

func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]error{
		404: fileio.ErrNotFound, 401: fileio.ErrPermissionDenied, 403: fileio.ErrPermissionDenied,
		408: fileio.ErrUnavailable, 429: fileio.ErrUnavailable, 500: fileio.ErrUnavailable, 503: fileio.ErrUnavailable,
		416: fileio.ErrSizeMismatch, 400: nil, 412: nil,
	} {
		if got := fileio.HTTPStatus(code); got != want {
			t.Errorf("HTTPStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestReadRangeFailsWhenTheStoreStatesAnotherLength(t *testing.T) {
	t.Parallel()
	data := fileiotest.RangeData
	for _, total := range []int64{int64(len(data)) - 1, int64(len(data)) + 1} {
		n, err := fileio.ReadRange(make([]byte, 4), 0, int64(len(data)), func(off, n int64) (io.ReadCloser, int64, error) {
			return io.NopCloser(strings.NewReader(data[off : off+n])), total, nil
		})
		if !errors.Is(err, fileio.ErrSizeMismatch) || n != 0 {
			t.Errorf("ReadRange with the store stating %d bytes of %d = %d, %v; want 0 bytes and ErrSizeMismatch", total, len(data), n, err)
		}
	}
}

func TestRangeTotal(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"bytes 0-99/1581": 1581, "bytes 0-0/1": 1, "bytes 0-99/*": -1, "": -1, "bytes 0-9/-3": -1,
	} {
		if got := fileio.RangeTotal(in); got != want {
			t.Errorf("RangeTotal(%q) = %d, want %d", in, got, want)
		}
	}
}
