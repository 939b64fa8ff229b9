// Package committest holds the checks every catalog that commits shares:
// a race of writers on one table, of which exactly one may win each round,
// and a commit that changes nothing.
package committest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// Catalog is a catalog that loads and commits tables.
type Catalog interface {
	catalog.Catalog
	catalog.Committer
}

// Schema is a small schema for tables the checks create.
func Schema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.StringType{}},
	)
}

// NewMetadata returns the metadata of a new, unpartitioned table of Schema
// at location ("" lets the catalog choose).
func NewMetadata(t testing.TB, location string, props map[string]string) *iceberg.TableMetadata {
	t.Helper()
	md, err := iceberg.NewTableMetadata(Schema(), iceberg.PartitionSpec{}, iceberg.SortOrder{}, location, props)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// AppendUpdates returns the requirement and updates of an append-like
// commit on md: a new snapshot made current on main, required to follow
// the main branch's head as md has it.
func AppendUpdates(md *iceberg.TableMetadata, snapshotID int64) ([]iceberg.Requirement, []iceberg.Update) {
	var head *int64
	if ref, ok := md.Refs["main"]; ok {
		id := ref.SnapshotID
		head = &id
	}
	snap := iceberg.Snapshot{
		SnapshotID:       snapshotID,
		ParentSnapshotID: head,
		SequenceNumber:   md.LastSequenceNumber + 1,
		TimestampMs:      time.Now().UnixMilli(),
		ManifestList:     md.Location + "/metadata/snap-" + time.Now().Format("150405.000000000") + ".avro",
		Summary:          iceberg.NewSummary(map[string]string{"operation": "append"}),
	}
	return []iceberg.Requirement{iceberg.AssertRefSnapshotID{Ref: "main", SnapshotID: head}},
		[]iceberg.Update{iceberg.AddSnapshot{Snapshot: snap}, iceberg.SetSnapshotRef{Name: "main", Ref: iceberg.SnapshotRef{SnapshotID: snapshotID, Type: iceberg.RefBranch}}}
}

// Race runs rounds in each of which writers goroutines load the table id
// and commit an append on what they loaded, all at once: exactly one must
// win each round and every other fail wrapping catalog.ErrCommitConflict.
// load returns the table's metadata as the catalog has it now (bypassing
// any cache). It returns the snapshot ids that won, in order.
func Race(t *testing.T, ctx context.Context, c Catalog, id catalog.Identifier, rounds, writers int, load func() *iceberg.TableMetadata) []int64 {
	t.Helper()
	var winners []int64
	for round := range rounds {
		start := make(chan struct{})
		errs := make([]error, writers)
		// Every writer loads before any commits: all race from the same
		// metadata.
		var wg, loaded sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			loaded.Add(1)
			go func() {
				defer wg.Done()
				md := load()
				loaded.Done()
				<-start
				reqs, updates := AppendUpdates(md, int64(1000*(round+1)+w))
				_, errs[w] = c.CommitTable(ctx, id, reqs, updates)
			}()
		}
		loaded.Wait()
		close(start)
		wg.Wait()
		won := -1
		for w, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("round %d: writers %d and %d both won: %v", round, won, w, errs)
			case err == nil:
				won = w
			case !errors.Is(err, catalog.ErrCommitConflict):
				t.Fatalf("round %d: writer %d: %v, want a commit conflict", round, w, err)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no writer won: %v", round, errs)
		}
		winners = append(winners, int64(1000*(round+1)+won))
		md := load()
		if got := md.Refs["main"].SnapshotID; got != winners[len(winners)-1] {
			t.Fatalf("round %d: main is at %d, want the winner %d", round, got, winners[len(winners)-1])
		}
	}
	return winners
}

// NoChange commits updates that change nothing on the table id (the
// removal of a snapshot it does not have, as a second of two concurrent
// expiries sends): the commit must succeed and leave the table at the
// metadata file it had, not write a copy of it as a new version.
func NoChange(t *testing.T, ctx context.Context, c Catalog, id catalog.Identifier) {
	t.Helper()
	before, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CommitTable(ctx, id, nil, []iceberg.Update{iceberg.RemoveSnapshots{SnapshotIDs: []int64{-12345}}})
	if err != nil {
		t.Fatalf("a commit that changes nothing: %v", err)
	}
	if got.MetadataLocation != before.MetadataLocation {
		t.Fatalf("a commit that changes nothing wrote %s (the table was at %s)", got.MetadataLocation, before.MetadataLocation)
	}
	if r, ok := c.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
	after, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if after.MetadataLocation != before.MetadataLocation {
		t.Fatalf("after a commit that changes nothing the table is at %s, was %s", after.MetadataLocation, before.MetadataLocation)
	}
}
