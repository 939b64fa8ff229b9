package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// A plan whose manifest groups are planned in parallel (planFiles) can be
// streamed by PollFlightInfo: the first poll starts it and answers with
// the endpoints of the groups planned so far and a descriptor to poll
// again; each later poll waits a moment for more and answers with every
// endpoint so far (earlier ones unchanged, as Flight asks), until the
// last answer has none. Clients start reading the first endpoints while
// the coordinator and its workers still plan the rest.

// pollPrefix starts the CMD of a descriptor that continues a poll. No
// JSON command (an object) and no protobuf Command (whose field 13 is a
// string, never the fixed64 that 'i' would announce) starts with it.
const pollPrefix = "iceflight-poll:"

// pollWait is how long a poll waits for news before answering with what
// it has.
const pollWait = time.Second

// pollTTL is how long a poll job is kept after its last poll.
const pollTTL = 10 * time.Minute

// maxPollJobs bounds the poll jobs kept at once; a poll that would start
// another is ResourceExhausted.
const maxPollJobs = 64

// errPollNotFound is a poll of a job that is not here: expired, never
// started, started by another caller, or started on another coordinator.
var errPollNotFound = errors.New("no such plan")

// pollJob is one plan streamed by PollFlightInfo.
type pollJob struct {
	id    string
	owner string
	// cancel stops the planning of a job dropped before it ends.
	cancel context.CancelFunc

	mu sync.Mutex
	// info holds the endpoints planned so far; total_records is -1 until
	// the end.
	info           *flight.FlightInfo
	planned, total int
	records        int64
	// stats are the plan's statistics so far, the info's app_metadata.
	stats    planner.Stats
	err      error
	finished bool
	// news is closed, and replaced, whenever info, err or finished change.
	news     chan struct{}
	lastPoll time.Time
}

// pollJobs are the poll jobs of this process.
type pollJobs struct {
	mu   sync.Mutex
	jobs map[string]*pollJob
}

// IsPollDescriptor reports whether desc continues a poll (PollContinue).
func IsPollDescriptor(desc *flight.FlightDescriptor) bool {
	return desc.GetType() == flight.DescriptorCMD && bytes.HasPrefix(desc.GetCmd(), []byte(pollPrefix))
}

// PollDescriptor plans desc for PollFlightInfo: a plan whose manifest
// groups are planned in parallel is streamed (see pollJob); any other is
// planned whole, and its first answer is complete.
func (e *Engine) PollDescriptor(ctx context.Context, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	if IsPollDescriptor(desc) {
		return e.PollContinue(ctx, desc)
	}
	if err := e.NeedPlanner("PollFlightInfo"); err != nil {
		return nil, err
	}
	cmd, err := ParseDescriptor(desc)
	if err != nil {
		return nil, err
	}
	if cmd.MetadataTable == "" && cmd.Changes == nil && e.ticketsOf(cmd) == TicketsFiles {
		if p, err := e.startPoll(ctx, cmd, desc); p != nil || err != nil {
			return p, err
		}
	}
	info, err := e.PlanCommand(ctx, cmd, desc)
	if err != nil {
		return nil, err
	}
	done := 1.0
	return &flight.PollInfo{Info: info, Progress: &done}, nil
}

// startPoll starts the poll job of cmd when its plan is one that planFiles
// plans, and answers its first poll; nil and no error for any other plan.
func (e *Engine) startPoll(ctx context.Context, cmd *iceflightv1.Command, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	tbl, req, release, err := e.resolve(ctx, "PollFlightInfo", cmd)
	if err != nil {
		return nil, err
	}
	handedOver := false
	defer func() {
		if !handedOver {
			release()
		}
	}()
	o, err := e.outline(ctx, cmd, tbl, req)
	if o == nil || err != nil {
		return nil, err
	}
	job, err := e.newPollJob(ctx, len(o.Groups))
	if err != nil {
		return nil, err
	}
	head, err := e.infoHead(desc, o.Plan)
	if err != nil {
		e.dropPoll(job)
		return nil, err
	}
	job.info = head
	job.stats = o.Plan.Stats
	job.stats.ManifestTickets = false
	job.stats.DataFiles, job.stats.Records, job.stats.Bytes, job.stats.Endpoints = 0, 0, 0, 0
	// The job outlives the call: it plans with the caller's credentials
	// (a worker checks them again) but not its deadline.
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	job.cancel = cancel
	handedOver = true
	go func() {
		defer release()
		defer cancel()
		err := e.planGroups(jctx, tbl, req, o, func(_ int, tasks []*scantask.Task) error {
			return e.addGroup(job, tbl, o, req, tasks)
		})
		job.finish(err)
	}()
	return e.awaitPoll(ctx, job, 0)
}

// infoHead is a FlightInfo of plan's schema for desc, with no endpoint.
func (e *Engine) infoHead(desc *flight.FlightDescriptor, plan *planner.Plan) (*flight.FlightInfo, error) {
	schema, err := reader.OutputSchema(reader.Scan{Schema: plan.Schema, Dictionary: plan.Dictionary})
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	return &flight.FlightInfo{Schema: flight.SerializeSchema(schema, e.mem), FlightDescriptor: desc, TotalRecords: -1, TotalBytes: -1}, nil
}

// addGroup appends the endpoints of one planned group's tasks to job: the
// group's share of the request's endpoints, balanced as a plan's are, and
// fewer when they would pass what the FlightInfo budget leaves (as
// planInfo fits a plan); once the budget is used up, one endpoint a group,
// over the budget as a long file list is. Earlier endpoints never change.
func (e *Engine) addGroup(job *pollJob, tbl *catalog.Table, o *planner.Outline, req planner.Request, tasks []*scantask.Task) error {
	share := max(1, maxEndpoints(req)/max(1, len(o.Groups)))
	plan := o.Finish(tasks, share)
	storage, err := e.storageForTickets(plan.Table, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return err
	}
	job.mu.Lock()
	desc := job.info.FlightDescriptor
	// The part repeats the schema and descriptor the job's FlightInfo has
	// once already.
	left := e.maxInfoBytes - proto.Size(job.info) + proto.Size(&flight.FlightInfo{Schema: job.info.Schema, FlightDescriptor: desc})
	job.mu.Unlock()
	src := planSource{recorded: tbl.Recorded, profile: tbl.Catalog, storage: storage}
	part, err := e.planInfoWithin(desc, plan, src, left)
	if errors.Is(err, errTooLarge) && left < e.maxInfoBytes {
		// The earlier groups used the budget up: the rest goes over it in
		// one endpoint a group, as a plan whose file list alone passes the
		// budget is sent (see planInfo), unless even that cannot be sent.
		plan.Regroup(1)
		part, err = e.planInfoWithin(desc, plan, src, e.maxInfoBytes)
	}
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("%w; after %d of %d manifest groups were streamed; ask for \"tickets\": %q", err, job.planned, job.total, TicketsManifests)
	}
	if err != nil {
		return err
	}
	job.mu.Lock()
	defer job.mu.Unlock()
	job.info.Endpoint = append(job.info.Endpoint, part.Endpoint...)
	job.planned++
	job.records += plan.Stats.Records
	st := &job.stats
	st.DataFiles += plan.Stats.DataFiles
	st.DeleteFiles += plan.Stats.DeleteFiles
	st.Records += plan.Stats.Records
	st.Bytes += plan.Stats.Bytes
	st.Tasks += plan.Stats.Tasks
	st.Endpoints = len(job.info.Endpoint)
	if job.info.AppMetadata, err = json.Marshal(st); err != nil {
		return err
	}
	job.notify()
	return nil
}

// maxEndpoints is the endpoints req asks for at most.
func maxEndpoints(req planner.Request) int {
	if req.MaxEndpoints > 0 {
		return req.MaxEndpoints
	}
	return planner.DefaultMaxEndpoints
}

// newPollJob registers a job of total groups for the caller of ctx.
func (e *Engine) newPollJob(ctx context.Context, total int) (*pollJob, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	job := &pollJob{id: hex.EncodeToString(b[:]), owner: e.callerName(ctx), total: total, news: make(chan struct{}), lastPoll: time.Now()}
	p := &e.polls
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, j := range p.jobs {
		j.mu.Lock()
		stale := time.Since(j.lastPoll) > pollTTL
		j.mu.Unlock()
		if stale {
			j.cancel()
			delete(p.jobs, id)
		}
	}
	if len(p.jobs) >= maxPollJobs {
		return nil, fmt.Errorf("%w: %d plans are being polled; poll them to the end or plan with GetFlightInfo", errOverloaded, maxPollJobs)
	}
	if p.jobs == nil {
		p.jobs = map[string]*pollJob{}
	}
	p.jobs[job.id] = job
	return job, nil
}

// dropPoll forgets job and stops its planning.
func (e *Engine) dropPoll(job *pollJob) {
	e.polls.mu.Lock()
	delete(e.polls.jobs, job.id)
	e.polls.mu.Unlock()
	if job.cancel != nil {
		job.cancel()
	}
}

// callerName names the caller of ctx for a poll job, so that only the
// caller who started a plan polls it; "" when authentication is off.
func (e *Engine) callerName(ctx context.Context) string {
	p, err := e.auth.Principal(ctx)
	if err != nil || p == nil {
		return ""
	}
	return p.Name
}

// PollContinue answers a poll of a job this process streams, waiting up to
// pollWait for endpoints past those the last answer had.
func (e *Engine) PollContinue(ctx context.Context, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	var ref struct {
		ID   string `json:"id"`
		Seen int    `json:"seen"`
	}
	if err := json.Unmarshal(desc.GetCmd()[len(pollPrefix):], &ref); err != nil {
		return nil, fmt.Errorf("%w: poll descriptor: %v", ErrBadCommand, err)
	}
	e.polls.mu.Lock()
	job := e.polls.jobs[ref.ID]
	e.polls.mu.Unlock()
	if job == nil || job.owner != e.callerName(ctx) {
		return nil, fmt.Errorf("%w: %w: plan %q is not being polled here (it ended more than %v ago, or was started elsewhere); plan again",
			catalog.ErrTableNotFound, errPollNotFound, ref.ID, pollTTL)
	}
	return e.awaitPoll(ctx, job, ref.Seen)
}

// awaitPoll waits until job has more than seen endpoints, ends, or
// pollWait passes, then answers with what it has. The answer after the
// end has no descriptor, and the job is forgotten.
func (e *Engine) awaitPoll(ctx context.Context, job *pollJob, seen int) (*flight.PollInfo, error) {
	timer := time.NewTimer(pollWait)
	defer timer.Stop()
	for {
		job.mu.Lock()
		job.lastPoll = time.Now()
		n, finished, news := len(job.info.Endpoint), job.finished, job.news
		job.mu.Unlock()
		if finished || n > seen {
			break
		}
		select {
		case <-news:
		case <-timer.C:
			return e.pollAnswer(job)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return e.pollAnswer(job)
}

// pollAnswer is job's state as a PollInfo.
func (e *Engine) pollAnswer(job *pollJob) (*flight.PollInfo, error) {
	job.mu.Lock()
	defer job.mu.Unlock()
	if job.err != nil {
		e.dropPollLocked(job)
		return nil, job.err
	}
	info := proto.Clone(job.info).(*flight.FlightInfo)
	progress := 1.0
	if job.total > 0 {
		progress = float64(job.planned) / float64(job.total)
	}
	out := &flight.PollInfo{Info: info, Progress: &progress}
	if job.finished {
		info.TotalRecords = job.records
		e.dropPollLocked(job)
		return out, nil
	}
	next, err := json.Marshal(map[string]any{"id": job.id, "seen": len(info.Endpoint)})
	if err != nil {
		return nil, err
	}
	out.FlightDescriptor = &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: append([]byte(pollPrefix), next...)}
	out.ExpirationTime = timestamppb.New(job.lastPoll.Add(pollTTL))
	return out, nil
}

// dropPollLocked forgets job, whose lock is held, once its end was told.
func (e *Engine) dropPollLocked(job *pollJob) {
	e.polls.mu.Lock()
	delete(e.polls.jobs, job.id)
	e.polls.mu.Unlock()
}

// finish records the end of job's planning.
func (j *pollJob) finish(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.finished = true
	if err != nil && j.err == nil {
		j.err = err
	}
	j.notify()
}

// notify wakes the polls waiting on j; j's lock is held.
func (j *pollJob) notify() {
	close(j.news)
	j.news = make(chan struct{})
}
