package restcatalog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iceflight/iceflight/catalog"
)

// Server-side planning keeps each plan in the process that planned it
// until the client has fetched it: the plan id and plan-task tokens name
// it there. These bound what a client can make the process hold.
const (
	// tasksPerPage is the file scan tasks of one answer: about 1 KiB of
	// JSON each, so a page is a few hundred KiB to a few MiB.
	tasksPerPage = 2000
	// planTTL is how long a plan is kept after it ends.
	planTTL = 10 * time.Minute
	// maxPlans is how many plans a process keeps at once; past it the
	// oldest ended plan goes, or a new plan is refused while all run.
	maxPlans = 64
	// DefaultPlanWait is how long planTableScan waits for a plan before
	// answering "submitted". PyIceberg 0.12 does not poll a submitted
	// plan, so most plans must complete within one call.
	DefaultPlanWait = 30 * time.Second
)

// WithPlanWait sets how long planTableScan waits for a plan to end before
// it answers "submitted" (default DefaultPlanWait).
func WithPlanWait(d time.Duration) Option { return func(s *Server) { s.plans.wait = d } }

// planResult is a finished plan: its tasks in pages of the API's form.
type planResult struct {
	table *catalog.Table
	pages []*scanTasks
}

// storedPlan is one plan, running or ended.
type storedPlan struct {
	id    string
	table string
	// done is closed when the plan ends; the fields below are set
	// before.
	done      chan struct{}
	cancel    context.CancelFunc
	result    *planResult
	err       error
	cancelled atomic.Bool
	ended     time.Time
}

// planStore holds a process's plans.
type planStore struct {
	mu    sync.Mutex
	plans map[string]*storedPlan
	wait  time.Duration
	// pageTasks is the file scan tasks of one answer (tasksPerPage).
	pageTasks int
	now       func() time.Time
}

func newPlanStore(now func() time.Time) *planStore {
	return &planStore{plans: map[string]*storedPlan{}, wait: DefaultPlanWait, pageTasks: tasksPerPage, now: now}
}

// start runs plan in the background with the caller's context values
// (its principal, its call record) but not its cancellation: a plan
// answered "submitted" outlives the call that started it.
func (ps *planStore) start(ctx context.Context, table catalog.Identifier, plan func(context.Context) (*planResult, error)) (*storedPlan, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("plan id: %w", err)
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), planTTL)
	p := &storedPlan{id: hex.EncodeToString(raw[:]), table: table.String(), done: make(chan struct{}), cancel: cancel}
	if err := ps.add(p); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		defer cancel()
		res, err := plan(pctx)
		ps.mu.Lock()
		p.result, p.err, p.ended = res, err, ps.now()
		if pctx.Err() != nil && p.cancelled.Load() {
			p.result, p.err = nil, nil
		}
		ps.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// add stores p, first dropping expired plans and, when full, the plan
// that ended first.
func (ps *planStore) add(p *storedPlan) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	now := ps.now()
	var oldest *storedPlan
	for id, q := range ps.plans {
		if q.ended.IsZero() {
			continue
		}
		if now.Sub(q.ended) > planTTL {
			delete(ps.plans, id)
			continue
		}
		if oldest == nil || q.ended.Before(oldest.ended) {
			oldest = q
		}
	}
	if len(ps.plans) >= maxPlans {
		if oldest == nil {
			return fmt.Errorf("%w: %d scan plans are running; try again when one ends", errBusy, maxPlans)
		}
		delete(ps.plans, oldest.id)
	}
	ps.plans[p.id] = p
	return nil
}

// get returns the plan id of table, or an error wrapping errNoSuchPlan.
func (ps *planStore) get(table catalog.Identifier, id string) (*storedPlan, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.plans[id]
	if !ok || p.table != table.String() {
		return nil, fmt.Errorf("%w: plan %q of table %s (plans are kept %s after they end, in the process that planned them)", errNoSuchPlan, abbreviate(id), table, planTTL)
	}
	return p, nil
}

// cancel stops plan id and forgets it.
func (ps *planStore) cancel(table catalog.Identifier, id string) error {
	p, err := ps.get(table, id)
	if err != nil {
		return err
	}
	ps.mu.Lock()
	p.cancelled.Store(true)
	delete(ps.plans, id)
	ps.mu.Unlock()
	p.cancel()
	return nil
}

// planTaskToken names page i of plan id.
func planTaskToken(id string, i int) string { return id + "-" + strconv.Itoa(i) }

// parsePlanTask reads a planTaskToken.
func parsePlanTask(tok string) (string, int, error) {
	id, n, ok := strings.Cut(tok, "-")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 0 || len(id) != 32 {
		return "", 0, fmt.Errorf("%w: plan task %q is not one this server issued", errNoSuchPlan, abbreviate(tok))
	}
	return id, i, nil
}
