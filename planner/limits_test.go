package planner

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// isManifestList and isManifest tell a table's manifest lists (snap-*.avro)
// from its manifests (*-mN.avro).
func isManifestList(loc string) bool { return strings.HasPrefix(path.Base(loc), "snap-") }
func isManifest(loc string) bool     { return strings.HasSuffix(loc, ".avro") && !isManifestList(loc) }

// swapped is a FileIO that opens the local file with in place of every
// location match accepts.
type swapped struct {
	fileio.FileIO
	match func(string) bool
	with  string
}

func (s swapped) Open(ctx context.Context, loc string) (fileio.File, error) {
	if s.match(loc) {
		return fileio.NewLocal().Open(ctx, s.with)
	}
	return s.FileIO.Open(ctx, loc)
}

func TestHugeManifestsFailThePlan(t *testing.T) {
	t.Parallel()
	sparse := filepath.Join(t.TempDir(), "huge.avro")
	fileiotest.SparseFile(t, sparse, 64<<30, nil)
	tbl := loadCorpusTable(t, "iceberg-cxx__partition_evolution")
	cases := []struct {
		name  string
		match func(string) bool
		kind  string
	}{
		{"a sparse 64 GiB manifest list is refused before it is read", isManifestList, "manifest list"},
		{"a sparse 64 GiB manifest is refused before it is read", isManifest, "manifest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			table := tbl
			table.IO = swapped{FileIO: tbl.IO, match: tc.match, with: sparse}
			_, err := New(WithCacheBytes(0)).Plan(context.Background(), table, Request{})
			if !errors.Is(err, fileio.ErrTooLarge) {
				t.Fatalf("Plan = %v, want fileio.ErrTooLarge", err)
			}
			if !strings.Contains(err.Error(), tc.kind+" ") {
				t.Errorf("error %q does not name the %s", err, tc.kind)
			}
		})
	}
}

func TestPlanGivesUpOnStuckStorage(t *testing.T) {
	t.Parallel()
	tbl := loadCorpusTable(t, "iceberg-cxx__partition_evolution")
	cases := []struct {
		name  string
		match func(string) bool
		cache int64
		opts  []fileiotest.BlockingOption
	}{
		{"a manifest list that blocks on open, cached", isManifestList, DefaultCacheBytes, nil},
		{"a manifest list that blocks on open, uncached", isManifestList, 0, nil},
		{"a manifest that blocks on read, cached", isManifest, DefaultCacheBytes, []fileiotest.BlockingOption{fileiotest.OnRead()}},
		{"a manifest that blocks on read, uncached", isManifest, 0, []fileiotest.BlockingOption{fileiotest.OnRead()}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stuck := fileiotest.NewBlocking(tbl.IO, tc.match, tc.opts...)
			t.Cleanup(stuck.Release)
			table := tbl
			table.IO = fileio.Cancelable(stuck)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := New(WithCacheBytes(tc.cache)).Plan(ctx, table, Request{})
				errc <- err
			}()
			<-stuck.Entered()
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("Plan on stuck storage = %v, want context.Canceled", err)
			}
		})
	}
}
