package tablecheck

import (
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// Store is an object-store server a test started: it takes uploads into
// a bucket (a container on Azure), deletes objects by key, and can be
// stopped and started again.
type Store interface {
	Server
	// Upload copies the files below dir to bucket under prefix and returns
	// the location of the copy.
	Upload(t testing.TB, dir, bucket, prefix string) string
	// Delete removes the object key of bucket.
	Delete(t testing.TB, bucket, key string)
}

// CheckStore uploads the sample tables names (of the checkout at repo) to
// bucket of s, each under moved/NAME, and reads each back through fio
// equal to the oracle (ReadBack). Then it runs CheckFaults on the copy of the first, deleting
// a planned data file by its key.
func CheckStore(t *testing.T, fio fileio.FileIO, s Store, repo, bucket string, names ...string) {
	t.Helper()
	roots := map[string]string{}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			roots[name] = s.Upload(t, Dir(repo, name), bucket, "moved/"+name)
			if n := ReadBack(t, fio, repo, name, roots[name]); n == 0 {
				t.Errorf("%s read no rows", name)
			}
		})
	}
	t.Run("a scan cut by a stopped server is unavailable, a deleted file not found", func(t *testing.T) {
		name := names[0]
		root := roots[name]
		tb := Plan(t, fio, repo, name, root)
		// A file below root has the key of root's copy joined with the rest.
		CheckFaults(t, fio, tb, s, func(loc string) { s.Delete(t, bucket, "moved/"+name+strings.TrimPrefix(loc, root)) })
	})
}
