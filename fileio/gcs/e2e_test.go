package gcs_test

import (
	"context"
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
