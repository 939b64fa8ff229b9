package writecheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// LocalPath is the local path of a file: location without a file: scheme.
func LocalPath(location string) string {
	switch {
	case strings.HasPrefix(location, "file://"):
		return filepath.Clean(strings.TrimPrefix(location, "file://"))
	case strings.HasPrefix(location, "file:"):
		return filepath.Clean(strings.TrimPrefix(location, "file:"))
	}
	return filepath.Clean(location)
}

// Unreachable lists the files below the local folder root that are not in
// reachable (locations, as Report.Files holds them), sorted. The
// directory catalog's version hint is table state, not an orphan.
func Unreachable(t testing.TB, root string, reachable []string) []string {
	t.Helper()
	known := make(map[string]bool, len(reachable))
	for _, loc := range reachable {
		known[LocalPath(loc)] = true
	}
	var out []string
	err := filepath.WalkDir(LocalPath(root), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Name() == "version-hint.text" || known[filepath.Clean(path)] {
			return nil
		}
		out = append(out, path)
		return nil
	})
	if err != nil {
		t.Fatalf("list %s: %v", root, err)
	}
	sort.Strings(out)
	return out
}

// Missing lists the reachable files that are not on disk: a file a snapshot
// still needs was deleted.
func Missing(reachable []string) []string {
	var out []string
	for _, loc := range reachable {
		if _, err := os.Stat(LocalPath(loc)); err != nil {
			out = append(out, loc)
		}
	}
	return out
}
