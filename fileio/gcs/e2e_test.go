package gcs_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/gcs"
	"github.com/iceflight/iceflight/internal/servers/fakegcs"
	"github.com/iceflight/iceflight/internal/servers/tablecheck"
)

// TestTablesReadBackFromGCSEqualToTheOracle uploads sample tables (one
// with position deletes, one partitioned) to fake-gcs-server under a root
// of its own and reads them through the planner and the reader with the
// GCS FileIO.
func TestTablesReadBackFromGCSEqualToTheOracle(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "warehouse")
	fio, err := gcs.New(context.Background(), s.Props())
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	for _, name := range []string{"samples.pos_deletes_rowgroups", "samples.events_by_day"} {
		t.Run(name, func(t *testing.T) {
			root := s.Upload(t, tablecheck.Dir("../..", name), "warehouse", "moved/"+name)
			if n := tablecheck.ReadBack(t, fio, "../..", name, root); n == 0 {
				t.Errorf("%s read no rows", name)
			}
		})
	}
}

// TestAScanCutByAStoppedServerIsUnavailableAndAMissingFileNotFound stops
// fake-gcs-server after the first batch of a planned scan: the read ends
// with ErrUnavailable (after the client's retries) and releases its
// memory; with the server back, the same plan reads equal to the oracle,
// and once a data file is deleted after planning it fails with
// ErrNotFound.
func TestAScanCutByAStoppedServerIsUnavailableAndAMissingFileNotFound(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "warehouse")
	fio, err := gcs.New(context.Background(), s.Props())
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	const name = "samples.pos_deletes_rowgroups"
	tb := tablecheck.Plan(t, fio, "../..", name, s.Upload(t, tablecheck.Dir("../..", name), "warehouse", name))
	stopped := false
	_, err = tb.Read(t, fio, func() {
		if !stopped {
			s.Kill()
			stopped = true
		}
	})
	if !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), "gs://warehouse/") {
		t.Fatalf("scan with the server stopped = %v, want ErrUnavailable naming a file", err)
	}
	t.Logf("the cut scan says: %v", err)
	s.Restart(t)
	got, err := tb.Read(t, fio, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb.Check(t, got)

	// A data file deleted after planning fails the scan as NotFound,
	// naming the file.
	files := tb.DataFiles()
	gone := files[len(files)-1]
	s.Delete(t, "warehouse", strings.TrimPrefix(gone, "gs://warehouse/"))
	if _, err := tb.Read(t, fio, nil); !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), gone) {
		t.Fatalf("scan with %s deleted = %v, want ErrNotFound naming it", gone, err)
	}
}
