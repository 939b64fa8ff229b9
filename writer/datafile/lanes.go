package datafile

import (
	"sync"

	"github.com/iceflight/iceflight/internal/panics"
)

// lanes runs the encoding tasks of a file's batches without a barrier
// between batches. Each leaf column, and each column's data metrics, is a
// lane: its tasks run one at a time, in the order the batches came, since a
// column chunk is written page after page; different lanes run at once, on
// up to workers goroutines. The writer hands over a batch and goes on to
// the next while earlier ones are still being encoded, up to maxBatches.
//
// Waiting for every column of a batch before the next one starts left
// cores idle behind the slowest column (a string column's dictionary
// takes several times an integer column's time): with two cores, a 10M-row
// append kept flightd at about one core.
type lanes struct {
	sem        chan struct{} // a token per running task
	maxBatches int

	mu      sync.Mutex
	changed sync.Cond // a task or a batch finished
	queues  [][]laneTask
	busy    []bool // a goroutine drains the lane
	tasks   int    // tasks queued or running
	batches int    // batches with tasks queued or running
	err     error  // the first task's error; later tasks are dropped
}

// laneTask is a queued task and what its batch does when it has finished.
type laneTask struct {
	run    func() error
	finish func()
}

// newLanes returns lanes whose tasks run on up to workers goroutines,
// with up to maxBatches batches in flight.
func newLanes(workers, maxBatches int) *lanes {
	l := &lanes{sem: make(chan struct{}, max(workers, 1)), maxBatches: max(maxBatches, 1)}
	l.changed.L = &l.mu
	return l
}

// submit queues a batch's tasks, tasks[i] to lane i (nil: none for that
// lane), once fewer than maxBatches batches are in flight; done runs when
// the last of them has finished. It returns the error of an earlier task,
// if any, and then queues nothing.
func (l *lanes) submit(tasks []func() error, done func()) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.batches >= l.maxBatches && l.err == nil {
		l.changed.Wait()
	}
	if l.err != nil {
		return l.err
	}
	left := 0
	for _, t := range tasks {
		if t != nil {
			left++
		}
	}
	if left == 0 {
		done()
		return nil
	}
	l.batches++
	var mu sync.Mutex
	finish := func() {
		mu.Lock()
		left--
		last := left == 0
		mu.Unlock()
		if last {
			done()
			l.mu.Lock()
			l.batches--
			l.changed.Broadcast()
			l.mu.Unlock()
		}
	}
	for i, t := range tasks {
		if t == nil {
			continue
		}
		for len(l.queues) <= i {
			l.queues = append(l.queues, nil)
			l.busy = append(l.busy, false)
		}
		l.queues[i] = append(l.queues[i], laneTask{run: panics.Func("encode parquet", t), finish: finish})
		l.tasks++
		if !l.busy[i] {
			l.busy[i] = true
			go l.drain(i)
		}
	}
	return nil
}

// drain runs lane i's tasks until its queue is empty.
func (l *lanes) drain(i int) {
	l.mu.Lock()
	for len(l.queues[i]) > 0 {
		t := l.queues[i][0]
		l.queues[i][0] = laneTask{}
		l.queues[i] = l.queues[i][1:]
		failed := l.err != nil
		l.mu.Unlock()

		var err error
		if !failed {
			l.sem <- struct{}{}
			err = t.run()
			<-l.sem
		}
		// After a failure the file is abandoned: the rest of its batches
		// are let go without being encoded.
		t.finish()

		l.mu.Lock()
		if err != nil && l.err == nil {
			l.err = err
		}
		l.tasks--
		l.changed.Broadcast()
	}
	l.busy[i] = false
	l.mu.Unlock()
}

// wait blocks until every queued task has finished and returns the first
// error.
func (l *lanes) wait() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.tasks > 0 {
		l.changed.Wait()
	}
	return l.err
}
