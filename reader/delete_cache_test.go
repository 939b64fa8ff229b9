package reader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

func setOf(bytes int64) *keySet { return &keySet{keys: map[string]struct{}{"k": {}}, bytes: bytes} }

func TestDeleteCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("concurrent requests load a set once", func(t *testing.T) {
		t.Parallel()
		c := newDeleteCache(1 << 20)
		var loads atomic.Int32
		want := setOf(10)
		var g errgroup.Group
		for i := 0; i < 16; i++ {
			g.Go(func() error {
				got, err := c.get(ctx, "f", func(context.Context) (*keySet, error) {
					loads.Add(1)
					return want, nil
				})
				if err == nil && got != want {
					err = errors.New("another set")
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		if n := loads.Load(); n != 1 {
			t.Errorf("%d loads, want 1", n)
		}
	})
	t.Run("a load cancelled by its caller is retried by a waiter", func(t *testing.T) {
		t.Parallel()
		c := newDeleteCache(1 << 20)
		first, cancel := context.WithCancel(ctx)
		started, waiting := make(chan struct{}), make(chan struct{})
		var result error
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, result = c.get(first, "f", func(ctx context.Context) (*keySet, error) {
				close(started)
				<-waiting
				cancel()
				return nil, ctx.Err()
			})
		}()
		<-started
		var loads atomic.Int32
		done := make(chan error)
		go func() {
			_, err := c.get(ctx, "f", func(context.Context) (*keySet, error) {
				loads.Add(1)
				return setOf(1), nil
			})
			done <- err
		}()
		close(waiting)
		if err := <-done; err != nil {
			t.Fatalf("waiter: %v", err)
		}
		wg.Wait()
		if !errors.Is(result, context.Canceled) || loads.Load() != 1 {
			t.Errorf("first caller %v, waiter loads %d; want context.Canceled and 1", result, loads.Load())
		}
	})
	t.Run("a failed load is not cached", func(t *testing.T) {
		t.Parallel()
		c := newDeleteCache(1 << 20)
		boom := errors.New("boom")
		if _, err := c.get(ctx, "f", func(context.Context) (*keySet, error) { return nil, boom }); !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
		if _, err := c.get(ctx, "f", func(context.Context) (*keySet, error) { return setOf(1), nil }); err != nil {
			t.Fatalf("retry: %v", err)
		}
	})
	t.Run("least recently used sets are evicted past the byte limit", func(t *testing.T) {
		t.Parallel()
		c := newDeleteCache(100)
		loads := map[string]int{}
		get := func(key string, bytes int64) {
			if _, err := c.get(ctx, key, func(context.Context) (*keySet, error) {
				loads[key]++
				return setOf(bytes), nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		get("a", 40)
		get("b", 40)
		get("a", 40) // a is now the most recent
		get("c", 40) // evicts b
		get("a", 40)
		get("b", 40) // reloads b, evicts c
		get("big", 1000)
		get("big", 1000) // larger than the cache: never kept
		want := map[string]int{"a": 1, "b": 2, "c": 1, "big": 2}
		if fmt.Sprint(loads) != fmt.Sprint(want) {
			t.Errorf("loads %v, want %v", loads, want)
		}
		if c.size > c.limit {
			t.Errorf("cache holds %d bytes, limit %d", c.size, c.limit)
		}
	})
}

// countingIO counts the opens of each file.
type countingIO struct {
	fileio.FileIO
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	c.mu.Lock()
	c.opens[loc]++
	c.mu.Unlock()
	return c.FileIO.Open(ctx, loc)
}

func TestEqualityDeleteFileLoadedOnceForManyReads(t *testing.T) {
	t.Parallel()
	files := memIO{"eq.parquet": eqFile(t, []eqRow{{id: 3}, {id: 5}}, 1)}
	const tasks = 8
	for i := 0; i < tasks; i++ {
		files[fmt.Sprintf("d%d.parquet", i)] = eqFile(t, []eqRow{{id: 1}, {id: 3}, {id: 5}, {id: 7}}, 1, 2)
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.IntType{}})
	for _, tc := range []struct {
		name       string
		cacheBytes int64
		wantOpens  int
	}{
		{"shared by every read", DefaultDeleteCacheBytes, 1},
		// Reads one after the other: concurrent ones would share the load
		// in flight even with no cache.
		{"read by every task when the cache holds nothing", 0, tasks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fio := &countingIO{FileIO: files, opens: map[string]int{}}
			mem := checkedAlloc(t)
			r := New(fio, WithAllocator(mem), WithDeleteCacheBytes(tc.cacheBytes))
			var g errgroup.Group
			if tc.cacheBytes == 0 {
				g.SetLimit(1)
			}
			for i := 0; i < tasks; i++ {
				g.Go(func() error {
					task := parquetTask(fmt.Sprintf("d%d.parquet", i))
					task.Deletes = []*scantask.DeleteFile{eqDelete("eq.parquet", 1)}
					rows := 0
					err := r.Read(context.Background(), Scan{Schema: schema}, task, func(rec arrow.RecordBatch) error {
						rows += int(rec.NumRows())
						return nil
					})
					if err == nil && rows != 2 {
						err = fmt.Errorf("task %d: %d rows, want 2", i, rows)
					}
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			if n := fio.opens["eq.parquet"]; n != tc.wantOpens {
				t.Errorf("delete file opened %d times, want %d", n, tc.wantOpens)
			}
		})
	}
}

// A delete file replaced at the same path is another file: its set is not
// served from the cache of the one it replaced.
func TestDeleteCacheKnowsAReplacedFile(t *testing.T) {
	t.Parallel()
	files := memIO{"d.parquet": eqFile(t, []eqRow{{id: 1}, {id: 3}, {id: 5}, {id: 7}}, 1, 2)}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.IntType{}})
	mem := checkedAlloc(t)
	r := New(files, WithAllocator(mem))
	for _, step := range []struct {
		deleted []eqRow
		want    []int64
	}{
		{[]eqRow{{id: 3}}, []int64{1, 5, 7}},
		{[]eqRow{{id: 5}, {id: 7}}, []int64{1, 3}},
	} {
		files["eq.parquet"] = eqFile(t, step.deleted, 1)
		task := parquetTask("d.parquet")
		d := eqDelete("eq.parquet", 1)
		d.FileSize = int64(len(files["eq.parquet"]))
		task.Deletes = []*scantask.DeleteFile{d}
		res := readAll(t, r, Scan{Schema: schema}, task)
		if res.err != nil {
			t.Fatal(res.err)
		}
		if got := ids(res.rows); !equalInts(got, step.want) {
			t.Errorf("deleting %v: ids %v, want %v", step.deleted, got, step.want)
		}
	}
}
