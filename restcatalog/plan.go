package restcatalog

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/planner"
)

// planTableScanRequest is the API's PlanTableScanRequest.
type planTableScanRequest struct {
	SnapshotID        *int64          `json:"snapshot-id"`
	Select            []string        `json:"select"`
	Filter            json.RawMessage `json:"filter"`
	MinRowsRequested  *int64          `json:"min-rows-requested"`
	CaseSensitive     *bool           `json:"case-sensitive"`
	UseSnapshotSchema *bool           `json:"use-snapshot-schema"`
	StartSnapshotID   *int64          `json:"start-snapshot-id"`
	EndSnapshotID     *int64          `json:"end-snapshot-id"`
	StatsFields       []string        `json:"stats-fields"`
}

// plannerRequest turns the API's request into the planner's: one task
// per data file with the file described in full, as the client splits
// files itself.
func (p *planTableScanRequest) plannerRequest() (planner.Request, error) {
	// select is not the plan's projection: the answer names whole files,
	// whatever columns the client reads of them. Its names (Java's, with
	// "element", "key" and "value" inside lists and maps) are checked
	// once the plan has its schema.
	req := planner.Request{
		CaseSensitive: p.CaseSensitive == nil || *p.CaseSensitive,
		KeepFiles:     true,
		StatsFields:   p.StatsFields,
	}
	if len(p.Filter) > 0 && string(p.Filter) != "null" {
		f, err := expr.ParseJSON(p.Filter)
		if err != nil {
			return req, fmt.Errorf("%w: filter: %w", errBadRequest, err)
		}
		req.Filter = f
	}
	switch {
	case p.StartSnapshotID != nil || p.EndSnapshotID != nil:
		if p.EndSnapshotID == nil {
			return req, badRequest("start-snapshot-id needs end-snapshot-id")
		}
		if p.SnapshotID != nil {
			return req, badRequest("snapshot-id with an incremental scan (start-snapshot-id, end-snapshot-id)")
		}
		req.Incremental = &planner.Incremental{FromSnapshotID: p.StartSnapshotID, ToSnapshotID: *p.EndSnapshotID}
	case p.SnapshotID != nil:
		req.SnapshotID = p.SnapshotID
	}
	if p.MinRowsRequested != nil && *p.MinRowsRequested > 0 {
		// The planner stops adding files once they hold this many rows
		// only when no filter or delete can drop rows, so the hint never
		// makes a scan return fewer rows than asked.
		req.Limit = *p.MinRowsRequested
	}
	return req, nil
}

// planResponse is the API's PlanTableScanResult and FetchPlanningResult.
type planResponse struct {
	Status string `json:"status"`
	PlanID string `json:"plan-id,omitempty"`
	*scanTasks
	StorageCredentials []storageCredential `json:"storage-credentials,omitempty"`
	Error              *errorBody          `json:"error,omitempty"`
}

func (s *Server) planTableScan(req *request, w http.ResponseWriter) error {
	var in planTableScanRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	preq, err := in.plannerRequest()
	if err != nil {
		return err
	}
	id := req.table()
	if err := s.auth.Authorize(req.ctx, id); err != nil {
		return err
	}
	p, err := s.plans.start(req.ctx, id, func(ctx context.Context) (*planResult, error) {
		return s.plan(ctx, id, preq, in.Select)
	})
	if err != nil {
		return err
	}
	// Most plans end in well under the wait; a client then gets its tasks
	// in this answer. A longer one is answered "submitted", and the
	// client polls fetchPlanningResult.
	timer := time.NewTimer(s.plans.wait)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
	case <-req.ctx.Done():
		// The client never learns the plan's id: nobody could fetch it.
		_ = s.plans.cancel(id, p.id)
		return fmt.Errorf("plan of %s: %w", catalog.Identifier(req.unmount(id)), req.ctx.Err())
	}
	return s.writePlan(req, w, p)
}

// plan plans the scan and splits its tasks into pages.
func (s *Server) plan(ctx context.Context, id catalog.Identifier, req planner.Request, selected []string) (*planResult, error) {
	plan, t, err := s.eng.PlanTasks(ctx, id, req)
	if err != nil {
		return nil, err
	}
	if plan.Schema != nil {
		if _, err := planner.FieldIDs(plan.Schema, selected, req.CaseSensitive); err != nil {
			return nil, fmt.Errorf("table %s: select: %w", id, err)
		}
	}
	res := &planResult{table: t}
	var tasks []*planner.Task
	for _, ep := range plan.Endpoints {
		tasks = append(tasks, ep.Tasks...)
	}
	per := s.plans.pageTasks
	// An empty plan is one empty page.
	for start := 0; ; start += per {
		end := min(start+per, len(tasks))
		page, err := newScanTasks(t.Metadata, tasks[start:end], plan.StatsFields)
		if err != nil {
			return nil, fmt.Errorf("plan of %s: %w", id, err)
		}
		res.pages = append(res.pages, page)
		if end == len(tasks) {
			break
		}
	}
	return res, nil
}

// writePlan answers the state of plan p.
func (s *Server) writePlan(req *request, w http.ResponseWriter, p *storedPlan) error {
	out := planResponse{PlanID: p.id}
	select {
	case <-p.done:
	default:
		out.Status = "submitted"
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	switch {
	case p.cancelled.Load():
		out.Status = "cancelled"
	case p.err != nil:
		code, typ := classify(p.err, aboutPlan)
		if code < 500 && code != http.StatusConflict {
			// A request the planner refused (a bad filter, an unknown
			// snapshot) is the client's: the error model, not a plan.
			return p.err
		}
		out.Status = "failed"
		out.Error = &errorBody{Message: p.err.Error(), Type: typ, Code: code}
	default:
		out.Status = "completed"
		res := p.result
		if len(res.pages) == 1 {
			out.scanTasks = res.pages[0]
		} else {
			out.scanTasks = &scanTasks{}
			for i := range res.pages {
				out.PlanTasks = append(out.PlanTasks, planTaskToken(p.id, i))
			}
		}
		if wantsVended(req.r) {
			if cred := s.credentials(req, res.table); cred != nil {
				out.StorageCredentials = []storageCredential{*cred}
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) fetchPlanningResult(req *request, w http.ResponseWriter) error {
	p, err := s.plans.get(req.table(), req.vars.plan)
	if err != nil {
		return err
	}
	if err := s.auth.Authorize(req.ctx, req.table()); err != nil {
		return err
	}
	return s.writePlan(req, w, p)
}

func (s *Server) cancelPlanning(req *request, w http.ResponseWriter) error {
	if err := s.auth.Authorize(req.ctx, req.table()); err != nil {
		return err
	}
	if err := s.plans.cancel(req.table(), req.vars.plan); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type fetchScanTasksRequest struct {
	PlanTask string `json:"plan-task"`
}

func (s *Server) fetchScanTasks(req *request, w http.ResponseWriter) error {
	var in fetchScanTasksRequest
	if err := s.decodeBody(req, &in); err != nil {
		return err
	}
	if err := s.auth.Authorize(req.ctx, req.table()); err != nil {
		return err
	}
	planID, page, err := parsePlanTask(in.PlanTask)
	if err != nil {
		return err
	}
	p, err := s.plans.get(req.table(), planID)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
	default:
		return fmt.Errorf("%w: plan %s is still running", errNoSuchPlan, planID)
	}
	if p.result == nil || page >= len(p.result.pages) {
		return fmt.Errorf("%w: plan task %q", errNoSuchPlan, abbreviate(in.PlanTask))
	}
	writeJSON(w, http.StatusOK, p.result.pages[page])
	return nil
}
