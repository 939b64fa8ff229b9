package datafile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/iceflight/iceflight/internal/panics"
)

// TestLanesKeepOrderAndBounds submits batches whose tasks yield at random
// points, and checks what the encoder relies on: each lane runs its tasks
// in submission order and one at a time, no more than workers tasks run at
// once, no more than maxBatches batches are in flight, every batch's done
// runs once, after all its tasks, and no goroutine outlives wait.
func TestLanesKeepOrderAndBounds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, c := range []struct{ workers, maxBatches, lanes, batches int }{
		{1, 1, 3, 20},
		{2, 4, 16, 50},
		{4, 2, 5, 40},
		{3, 8, 1, 30},
	} {
		t.Run(fmt.Sprintf("w%d_b%d_l%d", c.workers, c.maxBatches, c.lanes), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.workers), uint64(c.lanes)))
			l := newLanes(c.workers, c.maxBatches)
			var (
				mu       sync.Mutex
				seen     = make([][]int, c.lanes)
				running  atomic.Int32
				peak     atomic.Int32
				inFlight atomic.Int32
				peakB    atomic.Int32
				laneBusy = make([]atomic.Bool, c.lanes)
				doneRuns = make([]atomic.Int32, c.batches)
				finished = make([]atomic.Int32, c.batches)
			)
			raise := func(p *atomic.Int32, v int32) {
				for old := p.Load(); v > old && !p.CompareAndSwap(old, v); old = p.Load() {
				}
			}
			for b := range c.batches {
				tasks := make([]func() error, c.lanes)
				for i := range tasks {
					if rng.IntN(5) == 0 {
						continue // a lane with nothing in this batch
					}
					spins := rng.IntN(20)
					tasks[i] = func() error {
						if laneBusy[i].Swap(true) {
							t.Errorf("lane %d runs two tasks at once", i)
						}
						raise(&peak, running.Add(1))
						for range spins {
							runtime.Gosched()
						}
						mu.Lock()
						seen[i] = append(seen[i], b)
						mu.Unlock()
						finished[b].Add(1)
						running.Add(-1)
						laneBusy[i].Store(false)
						return nil
					}
				}
				want := int32(0)
				for _, f := range tasks {
					if f != nil {
						want++
					}
				}
				raise(&peakB, inFlight.Add(1))
				if err := l.submit(tasks, func() {
					if got := finished[b].Load(); got != want {
						t.Errorf("batch %d: done after %d of its %d tasks", b, got, want)
					}
					doneRuns[b].Add(1)
					inFlight.Add(-1)
				}); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.wait(); err != nil {
				t.Fatal(err)
			}
			for i, s := range seen {
				if !slices.IsSorted(s) {
					t.Errorf("lane %d ran batches in the order %v", i, s)
				}
			}
			for b := range doneRuns {
				if n := doneRuns[b].Load(); n != 1 {
					t.Errorf("batch %d: done ran %d times", b, n)
				}
			}
			if p := peak.Load(); p > int32(c.workers) {
				t.Errorf("%d tasks ran at once, workers %d", p, c.workers)
			}
			// A batch counts from just before submit, so the one being
			// submitted may be one over.
			if p := peakB.Load(); p > int32(c.maxBatches)+1 {
				t.Errorf("%d batches in flight, max %d", p, c.maxBatches)
			}
		})
	}
}

// TestLanesStopAfterAnError checks that after a failing task the later
// tasks are not run, every batch is still let go, wait and submit return
// the error, and a panicking task is an error too.
func TestLanesStopAfterAnError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	boom := errors.New("boom")
	for _, c := range []struct {
		name string
		fail func() error
		is   error
	}{
		{"error", func() error { return boom }, boom},
		{"panic", func() error { panic("kaboom") }, panics.ErrPanic},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLanes(2, 2)
			var ran, released atomic.Int32
			ok := func() error { ran.Add(1); return nil }
			submitted := 0
			var err error
			for b := 0; b < 10 && err == nil; b++ {
				tasks := []func() error{ok, ok}
				if b == 3 {
					tasks[1] = c.fail
				}
				err = l.submit(tasks, func() { released.Add(1) })
				if err == nil {
					submitted++
				}
			}
			werr := l.wait()
			if !errors.Is(werr, c.is) {
				t.Fatalf("wait: %v, want %v", werr, c.is)
			}
			if err != nil && !errors.Is(err, c.is) {
				t.Errorf("submit: %v, want %v", err, c.is)
			}
			if err := l.submit([]func() error{ok}, func() { t.Error("a batch after the error was queued") }); !errors.Is(err, c.is) {
				t.Errorf("submit after the error: %v", err)
			}
			if got := released.Load(); got != int32(submitted) {
				t.Errorf("%d of %d batches let go", got, submitted)
			}
			// The failing batch's other task may run, and so may those
			// of the batches the lanes had started; never all ten.
			if got := ran.Load(); got >= 2*10-1 {
				t.Errorf("%d tasks ran after the error", got)
			}
		})
	}
}
