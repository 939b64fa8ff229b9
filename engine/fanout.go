package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// ActionPlanGroup is the internal action by which a coordinator has a
// worker plan one manifest group file by file: its body is the group's
// signed ticket, and its results the tasks, each result an unsigned
// iceflightv1.Ticket holding a run of them (tasks, residuals, path
// prefix), in manifest order. Only processes that share the ticket keys
// can ask it, and the caller's credentials go along, so the worker plans
// for the same caller with the same grants.
const ActionPlanGroup = "iceflight.plan-manifest-group"

// maxTasksPerResult bounds the tasks of one ActionPlanGroup result, so
// that it stays well under the 4 MiB a gRPC message may carry.
const maxTasksPerResult = 4096

// PlanGroupAction serves ActionPlanGroup: it verifies the group's ticket
// and the caller's grant on its table, plans the group and sends its tasks
// in runs. It takes a stream slot, as redeeming the ticket would.
func (e *Engine) PlanGroupAction(ctx context.Context, body []byte, send func([]byte) error) error {
	t, release, err := e.redeem(ctx, body)
	if err != nil {
		return err
	}
	defer release()
	if t.ManifestGroup == nil {
		return fmt.Errorf("%w: table %s: %s takes a manifest group's ticket", ErrTicketInvalid, t.Table, ActionPlanGroup)
	}
	CallInfoFrom(ctx).SetTable(t.Table)
	scan, err := decodeGroupScan(t)
	if err != nil {
		return err
	}
	rd, err := e.readerFor(ctx, t)
	if err != nil {
		return err
	}
	return e.planTicketGroup(ctx, t, rd, scan.Schema, func(gt planner.GroupTasks) error {
		for lo := 0; lo < len(gt.Tasks); lo += maxTasksPerResult {
			var res iceflightv1.Ticket
			if err := encodeTasks(&res, gt.Tasks[lo:min(lo+maxTasksPerResult, len(gt.Tasks))]); err != nil {
				return fmt.Errorf("table %s: %w", t.Table, err)
			}
			b, err := proto.Marshal(&res)
			if err != nil {
				return err
			}
			if err := send(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// planGroups plans every group of outline o file by file, in parallel:
// each on the worker its manifests hash to when this coordinator has
// workers (the next ones if it fails), else here. done is called with each
// group's tasks as the group is planned, from one goroutine at a time.
func (e *Engine) planGroups(ctx context.Context, tbl *catalog.Table, req planner.Request, o *planner.Outline, done func(group int, tasks []*scantask.Task) error) error {
	tickets, err := e.groupTickets(tbl, req, o)
	if err != nil {
		return err
	}
	parallel := runtime.GOMAXPROCS(0)
	if e.workers != nil {
		parallel = 2 * max(1, len(e.workers.Healthy()))
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, t := range tickets {
		g.Go(panics.Func("table "+t.Table+": plan a manifest group", func() error {
			tasks, err := e.planGroup(gctx, tbl, req, o, i, t)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			return done(i, tasks)
		}))
	}
	return g.Wait()
}

// planGroup plans group i of outline o, whose ticket is t, file by file:
// on a worker, or here with the table as the catalog gave it.
func (e *Engine) planGroup(ctx context.Context, tbl *catalog.Table, req planner.Request, o *planner.Outline, i int, t *iceflightv1.Ticket) ([]*scantask.Task, error) {
	g := o.Groups[i]
	if e.workers == nil {
		var tasks []*scantask.Task
		scan := planner.GroupScan{SchemaID: o.SchemaID, Schema: o.Plan.Schema, Filter: req.Filter, CaseSensitive: req.CaseSensitive,
			TargetSplitBytes: req.TargetSplitBytes, Group: g}
		err := e.planner.PlanGroup(ctx, plannerTable(tbl), scan, func(gt planner.GroupTasks) error {
			tasks = append(tasks, gt.Tasks...)
			return nil
		})
		return tasks, err
	}
	signed, err := e.signer.Sign(t)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Table, err)
	}
	conns, err := e.workers.Ranked(manifestKeys(g.Data))
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, conn := range conns {
		tasks, err := askPlanGroup(ctx, flight.NewFlightServiceClient(conn), signed)
		if err == nil {
			return tasks, nil
		}
		if ctx.Err() != nil || status.Code(err) != codes.Unavailable {
			return nil, fmt.Errorf("table %s: a worker planning a manifest group: %w", t.Table, err)
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("table %s: no worker could plan a manifest group: %w", t.Table, errors.Join(errs...))
}

// askPlanGroup has the worker behind client plan the group of the signed
// ticket, for the caller of ctx, whose credentials go along.
func askPlanGroup(ctx context.Context, client flight.FlightServiceClient, signed []byte) ([]*scantask.Task, error) {
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		for _, v := range md.Get("authorization") {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", v)
		}
	}
	stream, err := client.DoAction(ctx, &flight.Action{Type: ActionPlanGroup, Body: signed})
	if err != nil {
		return nil, err
	}
	var tasks []*scantask.Task
	for {
		res, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return tasks, nil
		}
		if err != nil {
			return nil, err
		}
		var run iceflightv1.Ticket
		if err := proto.Unmarshal(res.GetBody(), &run); err != nil {
			return nil, fmt.Errorf("%w: a worker's planned tasks: %v", ErrTicketInvalid, err)
		}
		got, err := decodeTasks(&run)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, got...)
	}
}

// planFiles plans outline o file by file with its groups planned in
// parallel (planGroups), then groups the tasks into endpoints as a local
// plan would: exact endpoints and counts for a plan too large for one
// process to plan quickly.
func (e *Engine) planFiles(ctx context.Context, desc *flight.FlightDescriptor, tbl *catalog.Table, req planner.Request, o *planner.Outline) (*flight.FlightInfo, error) {
	byGroup := make([][]*scantask.Task, len(o.Groups))
	err := e.planGroups(ctx, tbl, req, o, func(i int, tasks []*scantask.Task) error {
		byGroup[i] = tasks
		return nil
	})
	if err != nil {
		return nil, err
	}
	var tasks []*scantask.Task
	for _, ts := range byGroup {
		tasks = append(tasks, ts...)
	}
	plan := o.Finish(tasks, req.MaxEndpoints)
	storage, err := e.storageForTickets(plan.Table, tbl.StorageProperties, tbl.CredentialsExpire)
	if err != nil {
		return nil, err
	}
	return e.planInfo(desc, plan, planSource{recorded: tbl.Recorded, profile: tbl.Catalog, storage: storage})
}
