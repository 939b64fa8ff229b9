package planner

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
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
