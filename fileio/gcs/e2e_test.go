package gcs_test

import (
	"context"
	"testing"

	"github.com/iceflight/iceflight/fileio/gcs"
	"github.com/iceflight/iceflight/testkit/servers/fakegcs"
	"github.com/iceflight/iceflight/testkit/tablecheck"
)

// TestTablesReadBackFromGCSEqualToTheOracle uploads sample tables (one
// with position deletes, one partitioned) to fake-gcs-server under a root
// of their own and reads them through the planner and the reader with the
// GCS FileIO. Then it stops the server mid-scan, restarts it and deletes a
// planned data file (tablecheck.CheckFaults).
func TestTablesReadBackFromGCSEqualToTheOracle(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "warehouse")
	fio, err := gcs.New(context.Background(), s.Props())
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	tablecheck.CheckStore(t, fio, s, "../..", "warehouse", "samples.pos_deletes_rowgroups", "samples.events_by_day")
}
