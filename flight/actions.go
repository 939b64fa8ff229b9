package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
)

// Actions served by DoAction. Each takes a JSON body {"table": "db.t"}
// (refresh also accepts an empty body, meaning every table) and answers
// one JSON result.
const (
	ActionSnapshots = "snapshots"
	ActionRefs      = "refs"
	ActionRefresh   = "refresh"
)

var actionTypes = []*flight.ActionType{
	{Type: ActionSnapshots, Description: `List a table's snapshots: {"table": "db.t"} -> [{"snapshot_id", "parent_id", "timestamp_ms", "operation", "summary", "schema_id", "current"}]`},
	{Type: ActionRefs, Description: `List a table's branches and tags: {"table": "db.t"} -> {"name": {"snapshot_id", "type"}}`},
	{Type: ActionRefresh, Description: `Look up a table's current metadata file now instead of at the next refresh interval: {"table": "db.t"}, or {} for every table`},
	{Type: flight.RenewFlightEndpointActionType, Description: "Extend an endpoint's expiration: a RenewFlightEndpointRequest -> the FlightEndpoint with a re-signed ticket"},
	{Type: flight.CancelFlightInfoActionType, Description: "Cancel a FlightInfo: a CancelFlightInfoRequest -> CancelFlightInfoResult (tickets hold no server state, so this always succeeds for our tickets)"},
}

// ListActions lists the actions DoAction serves.
func (s *Service) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range actionTypes {
		if err := stream.Send(a); err != nil {
			return err
		}
	}
	return nil
}

// DoAction runs one action and sends its JSON result.
func (s *Service) DoAction(action *flight.Action, stream flight.FlightService_DoActionServer) error {
	body, err := s.action(stream.Context(), action)
	if err != nil {
		return statusError(err)
	}
	return stream.Send(&flight.Result{Body: body})
}

type actionRequest struct {
	Table string `json:"table"`
}

// snapshotInfo is one snapshot as the snapshots action lists it.
type snapshotInfo struct {
	SnapshotID  int64             `json:"snapshot_id"`
	ParentID    *int64            `json:"parent_id"`
	TimestampMs int64             `json:"timestamp_ms"`
	Operation   string            `json:"operation,omitempty"`
	Summary     map[string]string `json:"summary,omitempty"`
	SchemaID    *int              `json:"schema_id"`
	Current     bool              `json:"current"`
}

// refInfo is one branch or tag as the refs action lists it.
type refInfo struct {
	SnapshotID int64  `json:"snapshot_id"`
	Type       string `json:"type"`
}

func (s *Service) action(ctx context.Context, action *flight.Action) ([]byte, error) {
	// The standard Flight actions carry protobuf bodies, and a worker
	// serves them too: they need only the ticket keys.
	switch action.GetType() {
	case flight.RenewFlightEndpointActionType:
		var req flight.RenewFlightEndpointRequest
		if err := proto.Unmarshal(action.GetBody(), &req); err != nil {
			return nil, fmt.Errorf("%w: %s body: %v", errBadCommand, action.GetType(), err)
		}
		ep, err := s.renewEndpoint(ctx, &req)
		if err != nil {
			return nil, err
		}
		return proto.Marshal(ep)
	case flight.CancelFlightInfoActionType:
		var req flight.CancelFlightInfoRequest
		if err := proto.Unmarshal(action.GetBody(), &req); err != nil {
			return nil, fmt.Errorf("%w: %s body: %v", errBadCommand, action.GetType(), err)
		}
		res, err := s.cancelFlightInfo(&req)
		if err != nil {
			return nil, err
		}
		return proto.Marshal(res)
	}
	if err := s.needPlanner("DoAction " + action.GetType()); err != nil {
		return nil, err
	}
	var req actionRequest
	if len(action.GetBody()) > 0 {
		if err := decodeStrict(action.GetBody(), &req); err != nil {
			return nil, fmt.Errorf("%w: action %s body: %v", errBadCommand, action.GetType(), err)
		}
	}
	switch action.GetType() {
	case ActionRefresh:
		return s.refresh(ctx, req.Table)
	case ActionSnapshots, ActionRefs:
	default:
		return nil, fmt.Errorf("%w: unknown action %q", errBadCommand, action.GetType())
	}
	if req.Table == "" {
		return nil, fmt.Errorf("%w: action %s needs {\"table\": ...}", errBadCommand, action.GetType())
	}
	tbl, err := s.loadTable(ctx, req.Table)
	if err != nil {
		return nil, err
	}
	md := tbl.Metadata
	if action.GetType() == ActionRefs {
		refs := make(map[string]refInfo, len(md.Refs))
		for name, r := range md.Refs {
			refs[name] = refInfo{SnapshotID: r.SnapshotID, Type: r.Type}
		}
		return json.Marshal(refs)
	}
	out := make([]snapshotInfo, 0, len(md.Snapshots))
	for _, snap := range md.Snapshots {
		out = append(out, snapshotInfo{
			SnapshotID: snap.SnapshotID, ParentID: snap.ParentSnapshotID, TimestampMs: snap.TimestampMs,
			Operation: snap.Operation(), Summary: snap.Summary.Map(), SchemaID: snap.SchemaID,
			Current: md.CurrentSnapshotID != nil && *md.CurrentSnapshotID == snap.SnapshotID,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TimestampMs < out[j].TimestampMs })
	return json.Marshal(out)
}

// refresher is a catalog that caches metadata and can drop it on demand.
type refresher interface {
	Refresh(id catalog.Identifier)
}

func (s *Service) refresh(ctx context.Context, table string) ([]byte, error) {
	r, ok := s.catalog.(refresher)
	if !ok {
		return []byte(`{"refreshed": false}`), nil
	}
	if table != "" {
		id, err := catalog.ParseIdentifier(table)
		if err != nil {
			return nil, err
		}
		if err := s.auth.authorize(ctx, id); err != nil {
			return nil, err
		}
		r.Refresh(id)
		return []byte(`{"refreshed": true}`), nil
	}
	if s.auth == nil {
		r.Refresh(nil) // every table
		return []byte(`{"refreshed": true}`), nil
	}
	// A caller limited to some namespaces refreshes only their tables.
	ids, err := s.catalog.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	if ids, err = s.auth.readable(ctx, ids); err != nil {
		return nil, err
	}
	for _, id := range ids {
		r.Refresh(id)
	}
	return []byte(`{"refreshed": true}`), nil
}
