package fileiotest

import (
	"os"
	"testing"
)

// SparseFile makes a file of size bytes at path that takes no disk space
// (all zeros, then tail at its very end), as a hostile or damaged table
// hands a reader: a 64 GiB manifest or footer that must be refused, not
// read. It skips the test where the file system has no sparse files.
func SparseFile(t testing.TB, path string, size int64, tail []byte) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	if len(tail) == 0 {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(tail, size-int64(len(tail))); err != nil {
		t.Fatal(err)
	}
}
