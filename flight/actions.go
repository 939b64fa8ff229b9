package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/proto/actions"
)

// Actions served by DoAction. Each takes a JSON body {"table": "db.t"}
// (refresh also accepts an empty body, meaning every table). Refresh
// answers one JSON result; snapshots and refs answer one JSON array or
// object, split over several results when it is long (see
// maxResultBytes), which a client joins in order.
const (
	ActionSnapshots = actions.Snapshots
	ActionRefs      = actions.Refs
	ActionRefresh   = actions.Refresh
)

var actionTypes = []*flight.ActionType{
	{Type: ActionSnapshots, Description: `List a table's snapshots: {"table": "db.t"} -> [{"snapshot_id", "parent_id", "timestamp_ms", "operation", "summary", "schema_id", "current"}], in results of at most 1 MiB each: concatenate their arrays`},
	{Type: ActionRefs, Description: `List a table's branches and tags: {"table": "db.t"} -> {"name": {"snapshot_id", "type"}}, in results of at most 1 MiB each: merge their objects`},
	{Type: ActionRefresh, Description: `Look up a table's current metadata file now instead of at the next refresh interval: {"table": "db.t"}, or {} for every table`},
	{Type: flight.RenewFlightEndpointActionType, Description: "Extend an endpoint's expiration: a RenewFlightEndpointRequest -> the FlightEndpoint with a re-signed ticket"},
	{Type: flight.CancelFlightInfoActionType, Description: "Cancel a FlightInfo: a CancelFlightInfoRequest -> CancelFlightInfoResult (tickets hold no server state, so this always succeeds for our tickets)"},
}

// actionTypes are the plain protocol's actions, the write API's among
// them.
func (s *Service) actionTypes() []*flight.ActionType {
	return append(actionTypes[:len(actionTypes):len(actionTypes)], writeActionTypes...)
}

// ListActions lists the actions DoAction serves.
func (s *Service) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range s.actionTypes() {
		if err := stream.Send(a); err != nil {
			return err
		}
	}
	return nil
}

// DoAction runs one action and sends its JSON or protobuf result. It takes
// a planning slot: an action may load a table's metadata.
func (s *Service) DoAction(action *flight.Action, stream flight.FlightService_DoActionServer) (err error) {
	ctx := stream.Context()
	defer s.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "DoAction "+action.GetType())
	release, err := s.eng.PlanSlot(ctx)
	if err != nil {
		return err
	}
	defer release()
	return s.action(ctx, action, func(body []byte) error { return stream.Send(&flight.Result{Body: body}) })
}

func (s *Service) action(ctx context.Context, action *flight.Action, send func([]byte) error) error {
	// The standard Flight actions carry protobuf bodies, and a worker
	// serves them too: they need only the ticket keys.
	switch action.GetType() {
	case flight.RenewFlightEndpointActionType:
		var req flight.RenewFlightEndpointRequest
		if err := proto.Unmarshal(action.GetBody(), &req); err != nil {
			return fmt.Errorf("%w: %s body: %v", engine.ErrBadCommand, action.GetType(), err)
		}
		ep, err := s.eng.RenewEndpoint(ctx, &req)
		if err != nil {
			return err
		}
		return sendProto(ep, send)
	case flight.CancelFlightInfoActionType:
		var req flight.CancelFlightInfoRequest
		if err := proto.Unmarshal(action.GetBody(), &req); err != nil {
			return fmt.Errorf("%w: %s body: %v", engine.ErrBadCommand, action.GetType(), err)
		}
		res, err := s.eng.CancelFlightInfo(&req)
		if err != nil {
			return err
		}
		return sendProto(res, send)
	case engine.ActionPlanGroup:
		// A coordinator's, to a worker that shares its ticket keys.
		return s.eng.PlanGroupAction(ctx, action.GetBody(), send)
	}
	if isWriteAction(action.GetType()) {
		return s.writeAction(ctx, action, send)
	}
	if err := s.eng.NeedPlanner("DoAction " + action.GetType()); err != nil {
		return err
	}
	var req actions.TableRequest
	if len(action.GetBody()) > 0 {
		if err := strictjson.Decode(action.GetBody(), &req); err != nil {
			return fmt.Errorf("%w: action %s body: %v", engine.ErrBadCommand, action.GetType(), err)
		}
	}
	switch action.GetType() {
	case ActionRefresh:
		body, err := s.refresh(ctx, req.Table)
		if err != nil {
			return err
		}
		return send(body)
	case ActionSnapshots, ActionRefs:
	default:
		return fmt.Errorf("%w: unknown action %q", engine.ErrBadCommand, action.GetType())
	}
	if req.Table == "" {
		return fmt.Errorf("%w: action %s needs {\"table\": ...}", engine.ErrBadCommand, action.GetType())
	}
	tbl, err := s.eng.LoadTable(ctx, req.Table)
	if err != nil {
		return err
	}
	md := tbl.Metadata
	if action.GetType() == ActionRefs {
		names := make([]string, 0, len(md.Refs))
		for name := range md.Refs {
			names = append(names, name)
		}
		sort.Strings(names)
		return sendPages(ctx, len(names), '{', '}', func(i int) ([]byte, error) {
			key, err := json.Marshal(names[i])
			if err != nil {
				return nil, err
			}
			r := md.Refs[names[i]]
			val, err := json.Marshal(actions.Ref{SnapshotID: r.SnapshotID, Type: r.Type})
			return append(append(key, ':'), val...), err
		}, send)
	}
	// Sorted as indexes, and each snapshot encoded only when its page is,
	// so that a table of a million snapshots costs a page of memory, not
	// a copy of them all.
	order := make([]int, len(md.Snapshots))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return md.Snapshots[order[i]].TimestampMs < md.Snapshots[order[j]].TimestampMs })
	return sendPages(ctx, len(order), '[', ']', func(i int) ([]byte, error) {
		snap := &md.Snapshots[order[i]]
		return json.Marshal(actions.Snapshot{
			SnapshotID: snap.SnapshotID, ParentID: snap.ParentSnapshotID, TimestampMs: snap.TimestampMs,
			Operation: snap.Operation(), Summary: snap.Summary.Map(), SchemaID: snap.SchemaID,
			Current: md.CurrentSnapshotID != nil && *md.CurrentSnapshotID == snap.SnapshotID,
		})
	}, send)
}

// maxResultBytes bounds the body of one action result. gRPC clients refuse
// messages over 4 MiB by default, and one message of a long answer (175 MB
// for a million snapshots) would be held whole on both ends.
const maxResultBytes = 1 << 20

// sendPages sends n JSON elements, each encoded by elem, as the members
// of JSON arrays (open '[', end ']') or objects ('{', '}') of at most
// about maxResultBytes each, in order; an empty answer is one empty page.
// An element longer than a page gets a page of its own.
func sendPages(ctx context.Context, n int, open, end byte, elem func(i int) ([]byte, error), send func([]byte) error) error {
	page := []byte{open}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := elem(i)
		if err != nil {
			return fmt.Errorf("encode action result: %w", err)
		}
		if len(page) > 1 && len(page)+1+len(b)+1 > maxResultBytes {
			if err := send(append(page, end)); err != nil {
				return err
			}
			page = []byte{open}
		}
		if len(page) > 1 {
			page = append(page, ',')
		}
		page = append(page, b...)
	}
	return send(append(page, end))
}

// sendProto sends one protobuf result.
func sendProto(m proto.Message, send func([]byte) error) error {
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	return send(b)
}

// refresher is a catalog that caches metadata and can drop it on demand.
type refresher interface {
	Refresh(id catalog.Identifier)
}

func (s *Service) refresh(ctx context.Context, table string) ([]byte, error) {
	r, ok := s.eng.Catalog().(refresher)
	if !ok {
		return notRefreshedAnswer, nil
	}
	if table != "" {
		id, err := catalog.ParseIdentifier(table)
		if err != nil {
			return nil, err
		}
		if err := s.eng.Authenticator().Authorize(ctx, id); err != nil {
			return nil, err
		}
		r.Refresh(id)
		return refreshedAnswer, nil
	}
	if s.eng.Authenticator() == nil {
		r.Refresh(nil) // every table
		return refreshedAnswer, nil
	}
	// A caller limited to some namespaces refreshes only their tables.
	ids, _, err := s.eng.ReadableTables(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		r.Refresh(id)
	}
	return refreshedAnswer, nil
}
