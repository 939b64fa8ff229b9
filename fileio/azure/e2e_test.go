package azure_test

import (
	"context"
	"testing"

	"github.com/iceflight/iceflight/fileio/azure"
	"github.com/iceflight/iceflight/testkit/servers/azurite"
	"github.com/iceflight/iceflight/testkit/tablecheck"
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
	tablecheck.CheckStore(t, fio, s, "../..", "warehouse", "samples.pos_deletes_rowgroups", "samples.eq_deletes_evolved", "samples.events_by_day")
}
