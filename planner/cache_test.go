package planner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/testkit/testutil"
)

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newCache(100)
	load := func(v string, size int64) func(context.Context) (any, int64, error) {
		return func(context.Context) (any, int64, error) { return v, size, nil }
	}
	ctx := context.Background()
	c.get(ctx, "a", load("a", 40))
	c.get(ctx, "b", load("b", 40))
	c.get(ctx, "a", load("a", 40)) // a is now the most recent
	c.get(ctx, "c", load("c", 40)) // over 100 bytes: b goes
	if _, hit, _ := c.get(ctx, "a", load("a", 40)); !hit {
		t.Error("a was evicted though it was used more recently than b")
	}
	if _, hit, _ := c.get(ctx, "b", load("b", 40)); hit {
		t.Error("b survived though it was the least recently used")
	}
	if st := c.stats(); st.Bytes > 100 {
		t.Errorf("cache holds %d bytes, bound is 100", st.Bytes)
	}
	if _, hit, _ := c.get(ctx, "huge", load("huge", 1000)); hit {
		t.Error("a value larger than the cache was reported as a hit")
	}
	if _, hit, _ := c.get(ctx, "huge", load("huge", 1000)); hit {
		t.Error("a value larger than the cache was kept")
	}
}

func TestCacheLoadsOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	c := newCache(1 << 20)
	var loads atomic.Int64
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.get(context.Background(), "k", func(context.Context) (any, int64, error) {
				loads.Add(1)
				<-release
				return 1, 8, nil
			})
		}()
	}
	close(release)
	wg.Wait()
	if n := loads.Load(); n > 8 || n < 1 {
		t.Fatalf("%d loads", n)
	}
	if _, hit, _ := c.get(context.Background(), "k", nil); !hit {
		t.Fatal("value not cached after the concurrent loads")
	}
}

func TestCacheDoesNotKeepErrors(t *testing.T) {
	t.Parallel()
	c := newCache(1 << 20)
	boom := errors.New("boom")
	if _, _, err := c.get(context.Background(), "k", func(context.Context) (any, int64, error) { return nil, 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	v, hit, err := c.get(context.Background(), "k", func(context.Context) (any, int64, error) { return 2, 8, nil })
	if err != nil || hit || v != 2 {
		t.Fatalf("after a failed load: %v %v %v", v, hit, err)
	}
}

func TestSecondPlanIsServedFromCache(t *testing.T) {
	t.Parallel()
	tbl := loadCorpusTable(t, "iceberg-cxx__partition_evolution")
	p := New()
	first, err := p.Plan(context.Background(), tbl, Request{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Plan(context.Background(), tbl, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Stats.ManifestCacheHits != 0 || second.Stats.ManifestCacheHits != second.Stats.ManifestsRead || second.Stats.ManifestsRead == 0 {
		t.Fatalf("cache hits: first %+v, second %+v", first.Stats, second.Stats)
	}
	if first.Stats.DataFiles != second.Stats.DataFiles || first.Stats.Records != second.Stats.Records {
		t.Fatalf("cached plan differs: %+v vs %+v", first.Stats, second.Stats)
	}
}

// A cached value that does not fit a request is loaded again, from the
// value that did not fit, and replaces it.
func TestCacheReplacesValuesThatDoNotFit(t *testing.T) {
	t.Parallel()
	c := newCache(1 << 20)
	ctx := context.Background()
	atLeast := func(n int) func(any) bool { return func(v any) bool { return v.(int) >= n } }
	load := func(n int) func(context.Context, any) (any, int64, error) {
		return func(_ context.Context, prev any) (any, int64, error) {
			if prev != nil {
				n = max(n, prev.(int))
			}
			return n, 8, nil
		}
	}
	steps := []struct {
		name    string
		need    int
		wantV   int
		wantHit bool
	}{
		{"a first load", 2, 2, false},
		{"a value that fits hits", 1, 2, true},
		{"a value that does not fit is loaded again", 5, 5, false},
		{"the replacement serves both", 2, 5, true},
	}
	for _, st := range steps {
		v, hit, err := c.getFitting(ctx, "k", strconv.Itoa(st.need), atLeast(st.need), true, load(st.need))
		if err != nil || v != st.wantV || hit != st.wantHit {
			t.Errorf("%s: got %v, hit %v, %v; want %v, hit %v", st.name, v, hit, err, st.wantV, st.wantHit)
		}
	}
	if s := c.stats(); s.Entries != 1 || s.Bytes != 8 {
		t.Errorf("the replaced value is still counted: %+v", s)
	}
	// A value read once is served when cached, and not added when not.
	if v, hit, err := c.getFitting(ctx, "k", "2", atLeast(2), false, load(2)); err != nil || v != 5 || !hit {
		t.Errorf("a cached value not kept anew: got %v, hit %v, %v; want the cached 5", v, hit, err)
	}
	if v, hit, err := c.getFitting(ctx, "other", "2", atLeast(2), false, load(2)); err != nil || v != 2 || hit {
		t.Errorf("a value not kept: got %v, hit %v, %v; want a load of 2", v, hit, err)
	}
	if s := c.stats(); s.Entries != 1 {
		t.Errorf("a value read with keep false was kept: %+v", s)
	}
}

// sampleTrips loads copies of the sample trips table from folders a and b
// of a new warehouse; both record the same paths, those trips was
// written with, and corrupt, when set, replaces b's manifest list.
func sampleTrips(t *testing.T, corrupt []byte) (a, b Table) {
	t.Helper()
	src := filepath.Join("..", "testdata", "warehouse", "samples", "trips")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("sample warehouse missing: %v", err)
	}
	root := t.TempDir()
	for _, ns := range []string{"a", "b"} {
		testutil.CopyTree(t, src, filepath.Join(root, ns, "trips"))
	}
	if corrupt != nil {
		lists, err := filepath.Glob(filepath.Join(root, "b", "trips", "metadata", "snap-*.avro"))
		if err != nil || len(lists) != 1 {
			t.Fatalf("manifest lists of b: %v %v", lists, err)
		}
		if err := os.WriteFile(lists[0], corrupt, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	load := func(ns string) Table {
		tbl, err := cat.LoadTable(context.Background(), catalog.Identifier{ns, "trips"})
		if err != nil {
			t.Fatal(err)
		}
		return Table{Name: tbl.Identifier.String(), MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO, Check: tbl.CheckFile}
	}
	return load("a"), load("b")
}

// Two tables that record the same manifest paths have files of their own:
// a corrupt copy must fail, not be served the healthy table's manifests.
func TestCacheKeysFilesByTableAndRealLocation(t *testing.T) {
	t.Parallel()
	a, b := sampleTrips(t, []byte("root:x:0:0:root:/root:/bin/bash\n"))
	p := New()
	plan, err := p.Plan(context.Background(), a, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Stats.Records != 20000 {
		t.Fatalf("a: %d records, want 20000", plan.Stats.Records)
	}
	if plan, err := p.Plan(context.Background(), b, Request{}); err == nil {
		t.Fatalf("b's corrupt manifest list was served from a's cache: %d records", plan.Stats.Records)
	} else if strings.Contains(err.Error(), "root") {
		t.Errorf("error %q echoes the file", err)
	}
}

// Check vets cached files too: a file refused to one plan is not served
// from another plan's cache.
func TestCheckRefusesCachedFiles(t *testing.T) {
	t.Parallel()
	a, _ := sampleTrips(t, nil)
	p := New()
	if _, err := p.Plan(context.Background(), a, Request{}); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	a.Check = func(string) error { return refused }
	_, err := p.Plan(context.Background(), a, Request{})
	if !errors.Is(err, refused) {
		t.Fatalf("Plan = %v, want the check's refusal", err)
	}
	if !strings.Contains(err.Error(), a.Metadata.CurrentSnapshot().ManifestList) {
		t.Errorf("error %q does not name the recorded manifest list", err)
	}
}
