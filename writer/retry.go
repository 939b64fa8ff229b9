package writer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// The table properties of commit retries and their Iceberg Java defaults
// (TableProperties.COMMIT_*).
const (
	propRetries      = "commit.retry.num-retries"
	propMinWait      = "commit.retry.min-wait-ms"
	propMaxWait      = "commit.retry.max-wait-ms"
	propTotalTimeout = "commit.retry.total-timeout-ms"

	defaultRetries      = 4
	defaultMinWait      = 100 * time.Millisecond
	defaultMaxWait      = 60 * time.Second
	defaultTotalTimeout = 30 * time.Minute
)

// retryPolicy is how often and how patiently a commit is retried.
type retryPolicy struct {
	retries          int
	minWait, maxWait time.Duration
	total            time.Duration
}

// retryPolicyOf reads the policy from table properties; a value that does
// not parse keeps the default, as Java's PropertyUtil would fail the
// commit for it and a retry setting should never be why a write fails.
func retryPolicyOf(props map[string]string) retryPolicy {
	p := retryPolicy{retries: defaultRetries, minWait: defaultMinWait, maxWait: defaultMaxWait, total: defaultTotalTimeout}
	if n, ok := intProp(props, propRetries); ok && n >= 0 {
		p.retries = int(n)
	}
	if n, ok := intProp(props, propMinWait); ok && n >= 0 {
		p.minWait = time.Duration(n) * time.Millisecond
	}
	if n, ok := intProp(props, propMaxWait); ok && n >= 0 {
		p.maxWait = time.Duration(n) * time.Millisecond
	}
	if n, ok := intProp(props, propTotalTimeout); ok && n >= 0 {
		p.total = time.Duration(n) * time.Millisecond
	}
	return p
}

func intProp(props map[string]string, key string) (int64, bool) {
	v, ok := props[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// wait is the pause before retry number attempt (1 for the first retry):
// exponential from minWait, capped at maxWait, plus up to 10% jitter, as
// Iceberg Java's Tasks.runTaskWithRetry sleeps.
func (p retryPolicy) wait(attempt int) time.Duration {
	d := p.minWait
	for i := 1; i < attempt && d < p.maxWait; i++ {
		d *= 2
	}
	d = min(d, p.maxWait)
	if j := int64(d / 10); j > 0 {
		d += time.Duration(rand.Int64N(j))
	}
	return d
}

// isConflict reports whether err is a lost race that a retry on fresh
// metadata may win.
func isConflict(err error) bool {
	var final finalError
	if errors.As(err, &final) {
		return false
	}
	return errors.Is(err, catalog.ErrCommitConflict) || errors.Is(err, iceberg.ErrRequirementFailed)
}

// attemptFunc is one commit attempt on a freshly loaded table. It returns
// the files it wrote that the table does not reference unless the attempt
// committed: they are removed when the attempt fails with a known outcome.
type attemptFunc func(ctx context.Context, attempt int, t *catalog.Table) (written []string, err error)

// errHook marks a failure injected by the writer's hook: it stands for a
// crash, so nothing is retried and nothing is cleaned up, unless the hook
// returned a conflict, which is retried like a lost race.
var errHook = errors.New("writer hook")

// mayClean reports whether the files of a commit that failed with err
// may be removed: not when the outcome is unknown (they may be the table
// now), nor after a hook's simulated crash.
func mayClean(err error) bool {
	crashed := errors.Is(err, errHook) && !isConflict(err)
	return !errors.Is(err, catalog.ErrCommitStateUnknown) && !crashed
}

// retry runs attempts on fresh loads of the table until one commits, the
// error is not a conflict, or the table's retry policy is spent. It
// returns how many attempts ran.
func (w *Writer) retry(ctx context.Context, id catalog.Identifier, run attemptFunc) (attempts int, err error) {
	start := w.now()
	for attempt := 1; ; attempt++ {
		unlock, err := w.locks.lock(ctx, id)
		if err != nil {
			return attempt, fmt.Errorf("commit to %s: %w", id, err)
		}
		t, err := w.load(ctx, id)
		if err != nil {
			unlock()
			return attempt, err
		}
		policy := retryPolicyOf(t.Metadata.Properties)
		written, err := run(ctx, attempt, t)
		unlock()
		if err == nil {
			return attempt, nil
		}
		if mayClean(err) {
			w.removeFiles(context.WithoutCancel(ctx), t.IO, written)
		}
		if !isConflict(err) || attempt > policy.retries || w.now().Sub(start) >= policy.total {
			if isConflict(err) && attempt > 1 {
				return attempt, fmt.Errorf("commit to %s: %w (after %d attempts)", id, err, attempt)
			}
			return attempt, err
		}
		timer := time.NewTimer(policy.wait(attempt))
		select {
		case <-ctx.Done():
			timer.Stop()
			return attempt, fmt.Errorf("commit to %s: %w", id, ctx.Err())
		case <-timer.C:
		}
	}
}

// load reads the table's current metadata, past any cache: a commit
// built on stale metadata would only fail its requirements.
func (w *Writer) load(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	if r, ok := w.cat.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
	t, err := w.cat.LoadTable(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", id, err)
	}
	return t, nil
}

// removeFiles deletes files a failed attempt wrote; a file that cannot be
// removed is left for remove_orphan_files, since the commit's own error
// is the one worth reporting.
func (w *Writer) removeFiles(ctx context.Context, fio fileio.FileIO, locations []string) {
	for _, loc := range locations {
		_ = fileio.Remove(ctx, fio, loc)
	}
}

// runHook calls the writer's hook at a named point of a commit.
func (w *Writer) runHook(point string) error {
	if w.hook == nil {
		return nil
	}
	if err := w.hook(point); err != nil {
		return fmt.Errorf("%w at %s: %w", errHook, point, err)
	}
	return nil
}
