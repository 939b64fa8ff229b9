package gcs_test

import (
	"context"
	"strings"
	"testing"

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
	tablecheck.CheckFaults(t, fio, tb, s, func(loc string) { s.Delete(t, "warehouse", strings.TrimPrefix(loc, "gs://warehouse/")) })
}
