package fileiotest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// CheckRecordedSizes checks that the file at loc, which holds data (at
// least 100 bytes), opened with a size other than its length fails its
// first read with fileio.ErrSizeMismatch, whether the read lies inside the
// file, past its real end, or reaches the recorded end of a shorter size;
// and that fileio.OpenRecorded, given a wrong size, reads data whole.
func CheckRecordedSizes(t *testing.T, fio fileio.FileIO, loc string, data []byte) {
	t.Helper()
	ctx := context.Background()
	n := int64(len(data))
	for _, c := range []struct {
		name     string
		recorded int64
		off      int64
	}{
		{"recorded longer, read inside the file", n + 17, n - 10},
		{"recorded longer, read at its start", n + 1, 0},
		{"recorded longer, read past its end", 4 * n, 3 * n},
		{"recorded shorter, read at its end", n - 50, n - 70},
		{"recorded shorter, read at its start", n - 1, 0},
	} {
		f, err := fileio.OpenSized(ctx, fio, loc, c.recorded)
		if err != nil {
			t.Fatalf("%s: OpenSized: %v", c.name, err)
		}
		got, err := f.ReadAt(make([]byte, 20), c.off)
		f.Close()
		if !errors.Is(err, fileio.ErrSizeMismatch) || got != 0 {
			t.Errorf("%s: ReadAt of %d bytes recorded as %d = %d, %v; want 0 bytes and ErrSizeMismatch",
				c.name, n, c.recorded, got, err)
		}
	}
	for _, recorded := range []int64{n - 1, n + 17} {
		f, got, err := fileio.OpenRecorded(ctx, fio, loc, recorded, func(f fileio.File) ([]byte, error) {
			return io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
		})
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("OpenRecorded with %d recorded = %d bytes, %v; want the %d of the file", recorded, len(got), err, n)
			continue
		}
		f.Close()
	}
}
