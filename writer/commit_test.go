package writer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

// racingCatalog commits another writer's append before the first
// CommitTable calls it forwards, so that those commits lose the race.
type racingCatalog struct {
	Catalog
	races atomic.Int32
	race  func() error
}

func (c *racingCatalog) Refresh(id catalog.Identifier) {
	if r, ok := c.Catalog.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
}

func (c *racingCatalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	if c.races.Add(-1) >= 0 {
		if err := c.race(); err != nil {
			return nil, err
		}
	}
	return c.Catalog.CommitTable(ctx, id, reqs, updates)
}

func TestACommitThatLosesARaceRetriesOnFreshMetadata(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, op := range []string{"append", "delete"} {
			t.Run(op, func(t *testing.T) {
				t.Parallel()
				f := b.make(t, 2, true, map[string]string{propMinWait: "1", propMaxWait: "5"})
				f.write(Append, "", span(0, 12)...)
				other := f.newWriter(nil)
				next := int64(100)
				var rc *racingCatalog
				w := f.newWriter(func(c Catalog) Catalog {
					rc = &racingCatalog{Catalog: c}
					return rc
				})
				rc.race = func() error {
					_, err := other.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(next)))
					next++
					return err
				}
				rc.races.Store(2)
				var res *Result
				var err error
				want := append(span(0, 12), 100, 101)
				if op == "append" {
					res, err = w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(50)))
					want = append(want, 50)
				} else {
					res, err = w.Delete(context.Background(), f.id, DeleteRequest{Filter: "id = 5"})
					want = slices.DeleteFunc(want, func(id int64) bool { return id == 5 })
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Attempts != 3 {
					t.Fatalf("%d attempts, want 3", res.Attempts)
				}
				slices.Sort(want)
				f.wantIDs(want)
				f.wantNoOrphans()
			})
		}
	})
}

func TestRetriesRunOutAndLeaveNoFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		var calls atomic.Int32
		hook := func(point string) error {
			if point == "metadata-written" {
				calls.Add(1)
				return catalog.ErrCommitConflict
			}
			return nil
		}
		f := b.make(t, 2, true, map[string]string{propRetries: "2", propMinWait: "1", propMaxWait: "2"}, WithHook(hook))
		_, err := f.w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(span(0, 12)...)))
		if !errors.Is(err, catalog.ErrCommitConflict) {
			t.Fatalf("error %v, want a commit conflict", err)
		}
		if n := calls.Load(); n != 3 {
			t.Fatalf("%d attempts, want 3 (2 retries)", n)
		}
		if f.current() != nil {
			t.Fatal("a snapshot was committed")
		}
		f.wantNoOrphans()
	})
}

func TestAHookFailureActsAsACrash(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, nil, WithHook(func(point string) error {
			if point == "manifests-written" {
				return errors.New("power cut")
			}
			return nil
		}))
		_, err := f.w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(1, 2)))
		if err == nil || !strings.Contains(err.Error(), "power cut") {
			t.Fatalf("error %v", err)
		}
		if len(f.orphans()) == 0 {
			t.Fatal("a crash left no files: the hook did not stop the commit where it ran")
		}
	})
}

func TestCommitUpdatesRetriesOnFreshMetadata(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, map[string]string{propMinWait: "1", propMaxWait: "2"})
		f.write(Append, "", 1)
		other := f.newWriter(nil)
		var rc *racingCatalog
		w := f.newWriter(func(c Catalog) Catalog {
			rc = &racingCatalog{Catalog: c}
			return rc
		})
		rc.race = func() error {
			_, err := other.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(2)))
			return err
		}
		rc.races.Store(1)
		var heads []int64
		got, err := w.commitUpdates(context.Background(), f.id, func(ctx context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
			head := t.Metadata.CurrentSnapshot().SnapshotID
			heads = append(heads, head)
			return []iceberg.Requirement{iceberg.AssertRefSnapshotID{Ref: "main", SnapshotID: &head}},
				[]iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"owner": "core"}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(heads) != 2 || heads[0] == heads[1] {
			t.Fatalf("build saw heads %v, want two different ones (a retry on fresh metadata)", heads)
		}
		if got.Metadata.Properties["owner"] != "core" || f.load().Metadata.Properties["owner"] != "core" {
			t.Fatal("the property was not committed")
		}
		same, err := w.commitUpdates(context.Background(), f.id, func(ctx context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
			return nil, nil, nil
		})
		if err != nil || same.MetadataLocation != f.load().MetadataLocation {
			t.Fatalf("no updates: %v, table %v", err, same)
		}
	})
}

func TestConcurrentAppendsAllLand(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 3, true, map[string]string{propRetries: "100", propMinWait: "1", propMaxWait: "5"})
		const writers = 6
		errs := make(chan error, writers)
		for i := range writers {
			w := f.newWriter(nil)
			rows := f.stream(0, rowsOf(int64(i)*10, int64(i)*10+1))
			go func() {
				_, err := w.Write(context.Background(), f.id, WriteRequest{}, rows)
				errs <- err
			}()
		}
		var want []int64
		for i := range writers {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
			want = append(want, int64(i)*10, int64(i)*10+1)
		}
		slices.Sort(want)
		f.wantIDs(want)
		md := f.load().Metadata
		if len(md.Snapshots) != writers || md.LastSequenceNumber != writers || *md.NextRowID != 2*writers {
			t.Fatalf("%d snapshots, last sequence number %d, next row id %d; want %d, %d, %d",
				len(md.Snapshots), md.LastSequenceNumber, *md.NextRowID, writers, writers, 2*writers)
		}
		if sum := md.CurrentSnapshot().Summary.Map(); sum["total-records"] != strconv.Itoa(2*writers) {
			t.Fatalf("total-records %s", sum["total-records"])
		}
		f.wantNoOrphans()
	})
}

func TestManifestsMergeKeepingSequenceNumbers(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, v := range []int{2, 3} {
			t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
				f := b.make(t, v, false, map[string]string{propMinMergeCount: "3"})
				seqs := map[string]int64{}
				firstRows := map[string]int64{}
				var ids []int64
				for i := range int64(7) {
					f.write(Append, "", 10*i, 10*i+1)
					ids = append(ids, 10*i, 10*i+1)
					if i == 2 {
						f.delete(DeleteRequest{Filter: "id = 1"})
						ids = slices.DeleteFunc(ids, func(id int64) bool { return id == 1 })
					}
					tb := f.load()
					s := tb.Metadata.CurrentSnapshot()
					live, err := readLive(context.Background(), tb, s)
					if err != nil {
						t.Fatal(err)
					}
					for loc, e := range live.data {
						if seq, ok := seqs[loc]; ok && seq != e.SequenceNumber {
							t.Fatalf("after append %d: %s has sequence number %d, was %d", i, loc, e.SequenceNumber, seq)
						}
						seqs[loc] = e.SequenceNumber
						if e.DataFile.FirstRowID != nil {
							if r, ok := firstRows[loc]; ok && r != *e.DataFile.FirstRowID {
								t.Fatalf("after append %d: %s has first row id %d, was %d", i, loc, *e.DataFile.FirstRowID, r)
							}
							firstRows[loc] = *e.DataFile.FirstRowID
						}
					}
					mfs, err := (&producer{t: tb, md: tb.Metadata}).readList(context.Background(), s)
					if err != nil {
						t.Fatal(err)
					}
					data := 0
					for _, mf := range mfs {
						if mf.Content == iceberg.ManifestContentData {
							data++
						}
					}
					if data >= 3 {
						t.Fatalf("after append %d: %d data manifests, want them merged below 3", i, data)
					}
				}
				f.wantIDs(ids)
				if v >= 3 && len(firstRows) == 0 {
					t.Fatal("no first row ids")
				}
				f.wantNoOrphans()
			})
		}
	})
}

// unknownCatalog commits, then reports the outcome unknown.
type unknownCatalog struct{ Catalog }

func (c unknownCatalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	if _, err := c.Catalog.CommitTable(ctx, id, reqs, updates); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("the catalog went away: %w", catalog.ErrCommitStateUnknown)
}

func TestAnUnknownOutcomeKeepsTheFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		w := f.newWriter(func(c Catalog) Catalog { return unknownCatalog{c} })
		_, err := w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(span(0, 6)...)))
		if !errors.Is(err, catalog.ErrCommitStateUnknown) {
			t.Fatalf("error %v, want ErrCommitStateUnknown", err)
		}
		// The commit did land: its files must all still be there.
		f.wantIDs(span(0, 6))
		f.wantNoOrphans()
		if _, err := w.Delete(context.Background(), f.id, DeleteRequest{Filter: "id = 2"}); !errors.Is(err, catalog.ErrCommitStateUnknown) {
			t.Fatalf("error %v, want ErrCommitStateUnknown", err)
		}
		f.wantIDs([]int64{0, 1, 3, 4, 5})
	})
}
