package fileio_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/iceflight/iceflight/fileio"
)

func TestListingNamesEntriesRelativeToTheFolderSortedOnce(t *testing.T) {
	t.Parallel()
	mod := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		key     string
		folders []string
		files   []string
		prefix  string
		want    []string
	}{
		{"root of a bucket", "", []string{"wh/"}, []string{"top.txt"}, "", []string{"top.txt", "wh/"}},
		{"a key without a slash gains one", "wh/db", []string{"wh/db/t/"}, []string{"wh/db/a"}, "wh/db/", []string{"a", "t/"}},
		{"a key with a slash keeps it", "wh/", nil, []string{"wh/b", "wh/a"}, "wh/", []string{"a", "b"}},
		{"the folder marker is no entry", "wh", nil, []string{"wh/", "wh/f"}, "wh/", []string{"f"}},
		{"a folder named twice is listed once", "wh", []string{"wh/d/", "wh/d"}, nil, "wh/", []string{"d/"}},
		{"the prefix itself is no folder", "wh", []string{"wh/"}, nil, "wh/", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := fileio.NewListing(tc.key)
			if l.Prefix() != tc.prefix {
				t.Errorf("Prefix() = %q, want %q", l.Prefix(), tc.prefix)
			}
			for _, f := range tc.folders {
				l.Folder(f)
			}
			for _, f := range tc.files {
				l.File(f, 7, mod)
			}
			got := l.Entries()
			if n := names(got); !reflect.DeepEqual(n, tc.want) {
				t.Fatalf("entries = %q, want %q", n, tc.want)
			}
			for _, e := range got {
				if !e.IsDir && (e.Size != 7 || !e.ModTime.Equal(mod)) {
					t.Errorf("%s: size %d, time %v, want 7, %v", e.Name, e.Size, e.ModTime, mod)
				}
			}
		})
	}
}
