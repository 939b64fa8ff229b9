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
	roots := map[string]string{}
	for _, name := range []string{"samples.pos_deletes_rowgroups", "samples.events_by_day"} {
		t.Run(name, func(t *testing.T) {
			roots[name] = s.Upload(t, tablecheck.Dir("../..", name), "warehouse", "moved/"+name)
			if n := tablecheck.ReadBack(t, fio, "../..", name, roots[name]); n == 0 {
				t.Errorf("%s read no rows", name)
			}
		})
	}
	t.Run("a scan cut by a stopped server is unavailable, a deleted file not found", func(t *testing.T) {
		const name = "samples.pos_deletes_rowgroups"
		tb := tablecheck.Plan(t, fio, "../..", name, roots[name])
		tablecheck.CheckFaults(t, fio, tb, s, func(loc string) { s.Delete(t, "warehouse", strings.TrimPrefix(loc, "gs://warehouse/")) })
	})
}
