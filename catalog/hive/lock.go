package hive

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/hive/hms"
)

// checkTimeout bounds what runs after a commit's own context may have
// ended: the release of its lock, the check of a lost reply.
const checkTimeout = 10 * time.Second

// lock takes an exclusive metastore lock on the table db.name, as Iceberg
// Java's MetastoreLock does, and returns its id. A lock another writer
// holds is checked again after PropLockCheckMinWait, then after twice the
// last wait up to PropLockCheckMaxWait, PropLockCheckRetries times at most
// and within PropLockTimeout; one not granted by then is released and the
// commit is a conflict, which the writer may retry.
//
// The lock is not heartbeated: a commit holds it for one read and one
// alter, each bounded by the call timeout, far below the metastore's lock
// timeout (hive.txn.timeout, 300 s by default).
func (s *store) lock(ctx context.Context, c *hms.Client, db, table string) (int64, error) {
	req := &hms.LockRequest{
		Components: []hms.LockComponent{{Type: hms.LockExclusive, Level: hms.LockLevelTable, DBName: db, TableName: table}},
		User:       s.user, Hostname: s.host, AgentInfo: s.agent,
	}
	res, err := c.Lock(ctx, req)
	if err != nil {
		return 0, mapError(err, aTable)
	}
	deadline := time.Now().Add(s.cfg.lockTimeout)
	wait := s.cfg.minWait
	for checks := 0; res.State == hms.LockWaiting; checks++ {
		if checks >= s.cfg.retries || time.Now().Add(wait).After(deadline) {
			s.unlock(ctx, c, res.LockID)
			return 0, fmt.Errorf("%w: lock on %s.%s still held by another writer after %d checks", catalog.ErrCommitConflict, db, table, checks)
		}
		select {
		case <-ctx.Done():
			s.unlock(ctx, c, res.LockID)
			return 0, fmt.Errorf("waiting for the lock on %s.%s: %w", db, table, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, s.cfg.maxWait)
		id := res.LockID
		if res, err = c.CheckLock(ctx, id); err != nil {
			s.unlock(ctx, c, id)
			return 0, mapError(err, aTable)
		}
	}
	if res.State != hms.LockAcquired {
		s.unlock(ctx, c, res.LockID)
		return 0, fmt.Errorf("%w: lock on %s.%s ended %s: %s", catalog.ErrCommitConflict, db, table, res.State, res.ErrorMessage)
	}
	return res.LockID, nil
}

// unlock releases the metastore lock id, even when ctx has ended: on c,
// or on a new connection when c failed. A lock that cannot be released
// now is released by the metastore when it times out.
func (s *store) unlock(ctx context.Context, c *hms.Client, id int64) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	err := c.Unlock(ctx, id)
	var ce *hms.ConnError
	if errors.As(err, &ce) {
		_ = s.pool.Do(ctx, func(c *hms.Client) error { return c.Unlock(ctx, id) })
	}
}

// tableLocks are this process's locks on tables, taken before the
// metastore's (Java's per-JVM commit lock): writers of one process queue
// here, in order, and do not poll the metastore for each other.
type tableLocks struct {
	mu    sync.Mutex
	held  map[string]chan struct{}
	users map[string]int
}

// acquire waits for the lock on key, or for ctx to end, and returns its
// release.
func (l *tableLocks) acquire(ctx context.Context, key string) (func(), error) {
	l.mu.Lock()
	if l.held == nil {
		l.held, l.users = map[string]chan struct{}{}, map[string]int{}
	}
	ch, ok := l.held[key]
	if !ok {
		ch = make(chan struct{}, 1)
		l.held[key] = ch
	}
	l.users[key]++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		if l.users[key]--; l.users[key] == 0 {
			delete(l.users, key)
			delete(l.held, key)
		}
		l.mu.Unlock()
	}
	select {
	case ch <- struct{}{}:
		return func() { <-ch; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
