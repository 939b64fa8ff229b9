package writer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testClock is a settable clock; it starts a day ahead of the wall clock
// so that snapshot timestamps follow it (a commit never dates a snapshot
// before the metadata's last-updated-ms, which is wall time).
type testClock struct{ ms atomic.Int64 }

func newTestClock() *testClock {
	c := &testClock{}
	c.ms.Store(time.Now().Add(24 * time.Hour).UnixMilli())
	return c
}

func (c *testClock) now() time.Time          { return time.UnixMilli(c.ms.Load()) }
func (c *testClock) advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// history writes four snapshots a day apart: append 0..5, append 6..11,
// overwrite of id < 3 by 100 and 101, delete of id 7.
func history(t *testing.T, f *fixture, clock *testClock) []int64 {
	t.Helper()
	var ids []int64
	f.write(Append, "", span(0, 6)...)
	ids = append(ids, f.current().SnapshotID)
	clock.advance(24 * time.Hour)
	f.write(Append, "", span(6, 12)...)
	ids = append(ids, f.current().SnapshotID)
	clock.advance(24 * time.Hour)
	f.write(Overwrite, "id < 3", 100, 101)
	ids = append(ids, f.current().SnapshotID)
	clock.advance(24 * time.Hour)
	f.delete(DeleteRequest{Filter: "id = 7"})
	ids = append(ids, f.current().SnapshotID)
	clock.advance(10 * 24 * time.Hour)
	return ids
}

var historyIDs = []int64{3, 4, 5, 6, 8, 9, 10, 11, 100, 101}

func TestExpireSnapshotsCommitsAndRemovesOnlyUnreachableFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, c := range versions() {
			if c.v == 1 {
				continue // v1 tables take no deletes
			}
			t.Run(fmt.Sprintf("v%d partitioned=%v", c.v, c.partitioned), func(t *testing.T) {
				t.Parallel()
				clock := newTestClock()
				f := b.make(t, c.v, c.partitioned, nil, WithClock(clock.now))
				snaps := history(t, f, clock)
				// A tag keeps the first snapshot, and every file it reads.
				if _, err := f.w.Alter(context.Background(), f.id, AlterRequest{Refs: []RefChange{{Op: "create_tag", Name: "first", SnapshotID: &snaps[0]}}}); err != nil {
					t.Fatal(err)
				}
				before := len(f.files())
				dry, err := f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(f.files()) != before {
					t.Fatal("the dry run removed files")
				}
				res, err := f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{})
				if err != nil {
					t.Fatal(err)
				}
				// main keeps its head (min-snapshots-to-keep 1, all older
				// than 5 days); the tag keeps the first.
				if want := []int64{snaps[1], snaps[2]}; !slices.Equal(res.ExpiredSnapshots, sorted(want)) || !slices.Equal(dry.ExpiredSnapshots, res.ExpiredSnapshots) {
					t.Fatalf("expired %v (dry run %v), want %v", res.ExpiredSnapshots, dry.ExpiredSnapshots, want)
				}
				if len(dry.Removed) != len(res.Removed) || res.Counts[kindManifestList] != 2 {
					t.Errorf("dry run would remove %d files, the run removed %d (%v)", len(dry.Removed), len(res.Removed), res.Counts)
				}
				md := f.load().Metadata
				if len(md.Snapshots) != 2 {
					t.Fatalf("%d snapshots left, want 2", len(md.Snapshots))
				}
				f.wantIDs(historyIDs)
				if got := f.idsOf("first"); !slices.Equal(got, span(0, 6)) {
					t.Fatalf("tag first reads %v", got)
				}
				// Everything left is referenced, and everything referenced
				// is there (the reads above open every live file).
				f.wantNoOrphans()
				for loc := range f.referenced() {
					if !slices.Contains(f.files(), loc) && loc != f.load().MetadataLocation {
						t.Errorf("referenced file %s is gone", loc)
					}
				}

				// Dropping the tag lets the first snapshot go too; the
				// rows of 0..5 that main no longer has go with it.
				if _, err := f.w.Alter(context.Background(), f.id, AlterRequest{Refs: []RefChange{{Op: "remove_ref", Name: "first"}}}); err != nil {
					t.Fatal(err)
				}
				res, err = f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.ExpiredSnapshots, []int64{snaps[0]}) || res.Counts[kindData] == 0 {
					t.Fatalf("expired %v removing %v", res.ExpiredSnapshots, res.Counts)
				}
				f.wantIDs(historyIDs)
				f.wantNoOrphans()
			})
		}
	})
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func TestExpireSnapshotsExplicitIDsAndRetainLast(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		clock := newTestClock()
		f := b.make(t, 2, true, nil, WithClock(clock.now))
		snaps := history(t, f, clock)
		res, err := f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{RetainLast: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.ExpiredSnapshots, []int64{snaps[0]}) {
			t.Fatalf("retain_last 3 expired %v, want the first", res.ExpiredSnapshots)
		}
		if _, err := f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{SnapshotIDs: []int64{snaps[3]}}); err == nil {
			t.Fatal("the head of main was expired")
		}
		res, err = f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{RetainLast: 3, SnapshotIDs: []int64{snaps[1]}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.ExpiredSnapshots, []int64{snaps[1]}) {
			t.Fatalf("expired %v, want the explicit id", res.ExpiredSnapshots)
		}
		f.wantIDs(historyIDs)
		f.wantNoOrphans()
		if _, err := f.w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{OlderThan: clock.now().Add(time.Hour)}); err == nil {
			t.Fatal("older_than in the future was accepted")
		}
	})
}

// Two expiries at once (and an append racing them): whatever the order,
// nothing a remaining snapshot needs is deleted.
func TestConcurrentExpiresKeepWhatIsNeeded(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		clock := newTestClock()
		f := b.make(t, 2, true, map[string]string{propRetries: "20", propMinWait: "1", propMaxWait: "5"}, WithClock(clock.now))
		history(t, f, clock)
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for range 2 {
			w := f.newWriter(func(c Catalog) Catalog { return c })
			w.now = clock.now
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := w.ExpireSnapshots(context.Background(), f.id, ExpireRequest{})
				errs <- err
			}()
		}
		rows := f.stream(0, rowsOf(500))
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.w.Write(context.Background(), f.id, WriteRequest{}, rows)
			errs <- err
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		f.wantIDs(sorted(append(slices.Clone(historyIDs), 500)))
		for loc := range f.referenced() {
			if !slices.Contains(f.files(), loc) && loc != f.load().MetadataLocation {
				t.Errorf("referenced file %s is gone", loc)
			}
		}
	})
}

// The interleaving the test above finds only sometimes: B plans its expiry,
// A expires the same snapshots and deletes their files, then B's commit
// lands (its requirements hold: no ref moved). B must find the files gone
// and carry on, deleting nothing a remaining snapshot needs.
func TestExpiryCommittedAfterAnotherCleanedTheSameSnapshots(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		clock := newTestClock()
		f := b.make(t, 2, true, nil, WithClock(clock.now))
		history(t, f, clock)
		a := f.newWriter(nil)
		a.now = clock.now
		var first *MaintenanceResult
		var once sync.Once
		bw := f.newWriter(nil)
		bw.now = clock.now
		bw.hook = func(point string) error {
			var err error
			if point == "metadata-written" {
				once.Do(func() { first, err = a.ExpireSnapshots(context.Background(), f.id, ExpireRequest{}) })
			}
			return err
		}
		second, err := bw.ExpireSnapshots(context.Background(), f.id, ExpireRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil || len(first.ExpiredSnapshots) == 0 || len(first.Removed) == 0 {
			t.Fatalf("the first expiry expired nothing (%+v): the test does not exercise the race", first)
		}
		if !slices.Equal(second.ExpiredSnapshots, first.ExpiredSnapshots) {
			t.Fatalf("the second expiry reports %v, want the same snapshots as the first, %v", second.ExpiredSnapshots, first.ExpiredSnapshots)
		}
		f.wantIDs(historyIDs)
		f.wantNoOrphans()
		for loc := range f.referenced() {
			if !slices.Contains(f.files(), loc) && loc != f.load().MetadataLocation {
				t.Errorf("referenced file %s is gone", loc)
			}
		}
	})
}
