package azure_test

import (
	"context"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio/azure"
	"github.com/iceflight/iceflight/internal/servers/azurite"
	"github.com/iceflight/iceflight/internal/servers/tablecheck"
)

// TestTablesReadBackFromAzureEqualToTheOracle uploads sample tables (one
// with position deletes, one with equality deletes and schema evolution,
// one partitioned) to Azurite under a root of their own and reads them at
// abfss:// locations through the planner and the reader with the Azure
// FileIO. Then it stops the server mid-scan, restarts it and deletes a
// planned data file (tablecheck.CheckFaults).
func TestTablesReadBackFromAzureEqualToTheOracle(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "warehouse")
	fio, err := azure.New(context.Background(), s.Props())
	if err != nil {
		t.Fatal(err)
	}
	roots := map[string]string{}
	for _, name := range []string{"samples.pos_deletes_rowgroups", "samples.eq_deletes_evolved", "samples.events_by_day"} {
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
		prefix := azurite.Location("warehouse", "")
		tablecheck.CheckFaults(t, fio, tb, s, func(loc string) { s.Delete(t, "warehouse", strings.TrimPrefix(loc, prefix)) })
	})
}
