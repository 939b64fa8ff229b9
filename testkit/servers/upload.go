package servers

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"
)

// UploadTree hands every file below dir to put with its key: prefix (no
// leading or trailing "/"; "" for none) joined with the file's path
// relative to dir, "/"-separated. Starters upload fixture tables with it.
func UploadTree(t testing.TB, dir, prefix string, put func(key string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		put(path.Join(prefix, filepath.ToSlash(rel)), data)
		return nil
	})
	if err != nil {
		t.Fatalf("upload %s: %v", dir, err)
	}
}
