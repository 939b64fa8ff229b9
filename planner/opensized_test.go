package planner

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// TestManifestsOpenWithTheirRecordedLength checks that planning asks the
// store for the size of no manifest: each is opened with the
// manifest_length its manifest list records, which on an object store
// spares a HEAD request per manifest. Only the manifest list, whose size
// the snapshot does not record, is opened plainly.
func TestManifestsOpenWithTheirRecordedLength(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"iceberg-cxx__partition_evolution",                 // v2, two specs
		"apache-impala__iceberg_v2_delete_both_eq_and_pos", // v2, delete manifests
		"apache-impala__iceberg_v3_row_lineage",            // v3
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tbl := loadCorpusTable(t, name)
			counted := fileiotest.NewCounting(tbl.IO)
			tbl.IO = counted
			plan, err := New(WithCacheBytes(0)).Plan(context.Background(), tbl, Request{})
			if err != nil {
				t.Fatal(err)
			}
			snap := tbl.Metadata.CurrentSnapshot()
			if got, want := slices.Collect(maps.Keys(counted.Opens())), []string{snap.ManifestList}; !slices.Equal(got, want) {
				t.Errorf("opened without a size: %v, want only the manifest list %v", got, want)
			}
			sized := counted.SizedOpens()
			if plan.Stats.ManifestsRead == 0 || len(sized) != plan.Stats.ManifestsRead {
				t.Errorf("%d manifests opened with their length, the plan read %d: %v", len(sized), plan.Stats.ManifestsRead, sized)
			}
		})
	}
}
