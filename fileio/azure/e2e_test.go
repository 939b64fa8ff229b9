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
// with equality deletes and schema evolution, one partitioned) to Azurite
// under a root of their own and reads them through the planner and the
// reader with the Azure FileIO, at abfss:// locations.
func TestTablesReadBackFromAzureEqualToTheOracle(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "warehouse")
	fio, err := azure.New(context.Background(), s.Props())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"samples.eq_deletes_evolved", "samples.events_by_day"} {
		t.Run(name, func(t *testing.T) {
			root := s.Upload(t, tablecheck.Dir("../..", name), "warehouse", "moved/"+name)
			if n := tablecheck.ReadBack(t, fio, "../..", name, root); n == 0 {
				t.Errorf("%s read no rows", name)
			}
		})
	}
}

// TestAScanCutByAStoppedServerIsUnavailableAndAMissingFileNotFound stops
// Azurite after the first batch of a planned scan: the read ends with
// ErrUnavailable (after the SDK's retries) and releases its memory; with
// the server back, the same plan reads equal to the oracle, and once a
// data file is deleted after planning it fails with ErrNotFound.
func TestAScanCutByAStoppedServerIsUnavailableAndAMissingFileNotFound(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "warehouse")
	fio, err := azure.New(context.Background(), s.Props())
	if err != nil {
		t.Fatal(err)
	}
	const name = "samples.pos_deletes_rowgroups"
	tb := tablecheck.Plan(t, fio, "../..", name, s.Upload(t, tablecheck.Dir("../..", name), "warehouse", name))
	tablecheck.CheckFaults(t, fio, tb, s, func(loc string) { s.Delete(t, "warehouse", strings.TrimPrefix(loc, azurite.Location("warehouse", ""))) })
}
