package writer

import (
	"context"
	"strings"
	"sync"
)

// tableLocks serializes the commit attempts of one process on one table.
// Optimistic concurrency is what keeps writers in different processes
// apart, but between the writers of one flightd it only turns contention
// into lost races: eight clients appending to one table at once spent
// Java's four retries and lost appends. Holding the table's lock from the
// fresh load to the catalog's swap means a process never races itself;
// the requirements and retries still guard against every other writer.
// Data files are written before the lock is taken, so only the short
// metadata step is serialized.
type tableLocks struct {
	mu    sync.Mutex
	locks map[string]*tableLock
}

type tableLock struct {
	ch    chan struct{}
	users int
}

// lock takes the lock of the table key, or fails with ctx's error; the
// returned func releases it.
func (l *tableLocks) lock(ctx context.Context, id []string) (func(), error) {
	key := strings.Join(id, "\x00")
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[string]*tableLock)
	}
	tl := l.locks[key]
	if tl == nil {
		tl = &tableLock{ch: make(chan struct{}, 1)}
		l.locks[key] = tl
	}
	tl.users++
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		if tl.users--; tl.users == 0 {
			delete(l.locks, key)
		}
		l.mu.Unlock()
	}
	select {
	case tl.ch <- struct{}{}:
		return func() { <-tl.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
