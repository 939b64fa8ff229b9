package fileiotest

import (
	"errors"
	"io"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// RangeData is the content CheckRanges expects of the file it reads.
const RangeData = "0123456789abcdefghij"

// CheckRanges checks io.ReaderAt's contract on f, a file holding RangeData:
// ranges inside the file, ending at its end, past it (clipped, io.EOF),
// starting at it (io.EOF), and empty.
func CheckRanges(t *testing.T, f fileio.File) {
	t.Helper()
	if f.Size() != int64(len(RangeData)) {
		t.Fatalf("Size = %d, want %d", f.Size(), len(RangeData))
	}
	cases := []struct {
		name    string
		off     int64
		n       int
		want    string
		wantEOF bool
	}{
		{"a range inside the file", 3, 5, "34567", false},
		{"a range ending at the end", 15, 5, "fghij", false},
		{"a range past the end is clipped with io.EOF", 17, 10, "hij", true},
		{"a range starting at the end is io.EOF", 20, 4, "", true},
		{"an empty range reads nothing", 4, 0, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]byte, tc.n)
			n, err := f.ReadAt(p, tc.off)
			if got := string(p[:n]); got != tc.want {
				t.Errorf("ReadAt(%d bytes at %d) = %q, want %q", tc.n, tc.off, got, tc.want)
			}
			if gotEOF := errors.Is(err, io.EOF); gotEOF != tc.wantEOF || (err != nil && !gotEOF) {
				t.Errorf("ReadAt(%d bytes at %d) error %v, want EOF %v", tc.n, tc.off, err, tc.wantEOF)
			}
		})
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("a negative offset was read")
	}
}
