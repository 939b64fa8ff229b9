package fileio_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

func TestReadAllRefusesFilesOverItsLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "v1.metadata.json")
	fileiotest.SparseFile(t, huge, 64<<30, nil)
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		location string
		limit    int64
		want     error
	}{
		{"a sparse 64 GiB file is refused before it is allocated", huge, 1 << 30, fileio.ErrTooLarge},
		{"a file one byte over the limit is refused", small, 9, fileio.ErrTooLarge},
		{"a file at the limit is read", small, 10, nil},
		{"a limit of zero reads any size", small, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := fileio.ReadAll(context.Background(), fileio.NewResolver(), tc.location, tc.limit)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadAll = %v, want %v", err, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), tc.location) {
				t.Errorf("error %q does not name the file", err)
			}
			if tc.want == nil && string(b) != "0123456789" {
				t.Errorf("ReadAll read %q", b)
			}
		})
	}
}
