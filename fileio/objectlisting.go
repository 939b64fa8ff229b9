package fileio

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Listing gathers what one delimiter-"/" listing of an object store
// returns, page by page, into the entries ReadDir answers with. The S3,
// GCS and Azure back ends list through it, so that they name, skip and
// sort entries alike.
type Listing struct {
	prefix  string
	entries []Entry
	dirs    map[string]bool
}

// NewListing starts the listing of the folder whose key is key ("" for
// the root of a bucket or container).
func NewListing(key string) *Listing {
	if key != "" && !strings.HasSuffix(key, "/") {
		key += "/"
	}
	return &Listing{prefix: key, dirs: map[string]bool{}}
}

// Prefix is the key prefix to list with: the folder's key and a "/".
func (l *Listing) Prefix() string { return l.prefix }

// Folder adds the folder key, a common prefix ("dir/a/") or a folder
// object ("dir/a"), once however often the store names it.
func (l *Listing) Folder(key string) {
	name := strings.TrimSuffix(strings.TrimPrefix(key, l.prefix), "/")
	if name == "" || l.dirs[name] {
		return
	}
	l.dirs[name] = true
	l.entries = append(l.entries, Entry{Name: name, IsDir: true})
}

// File adds the object key. The key equal to the prefix is the folder
// marker some tools write ("dir/"), not an entry of the folder.
func (l *Listing) File(key string, size int64, modTime time.Time) {
	name := strings.TrimPrefix(key, l.prefix)
	if name == "" {
		return
	}
	l.entries = append(l.entries, Entry{Name: name, Size: size, ModTime: modTime})
}

// Entries returns the entries added so far, sorted by name.
func (l *Listing) Entries() []Entry {
	slices.SortStableFunc(l.entries, func(a, b Entry) int { return cmp.Compare(a.Name, b.Name) })
	return l.entries
}
