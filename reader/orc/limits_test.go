package orc

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPiecesOverTheBoundAreRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		file string
		max  int64
		want error
		text string // what the error names
	}{
		// rows-none.orc has a footer of 1,480 bytes and streams of up to
		// 2,081; rows-zlib.orc streams that inflate to more than 4 KiB.
		{"a footer over the bound", "pyarrow/rows-none.orc", 1024, ErrTooLarge, "footer of 1480 bytes"},
		{"a stream over the bound", "pyarrow/rows-none.orc", 2048, ErrTooLarge, "stream 1 of column 13 of 2081 bytes"},
		{"a compressed stream that inflates past the bound", "pyarrow/rows-zlib.orc", 4096, ErrTooLarge, "ZLIB stream expands beyond 4096"},
		{"pieces within the bound are read", "pyarrow/rows-zlib.orc", 1 << 20, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			err = readWithBound(t, raw, tc.max)
			if !errors.Is(err, tc.want) {
				t.Fatalf("read with a bound of %d = %v, want %v", tc.max, err, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not name %q", err, tc.text)
			}
		})
	}
}

// readWithBound reads every row of the ORC file raw under WithMaxRead(max).
func readWithBound(t *testing.T, raw []byte, max int64) error {
	t.Helper()
	if err := decodeBytes(checkedAlloc(t), raw, WithMaxRead(max)); !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
