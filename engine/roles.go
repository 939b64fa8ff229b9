package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/iceflight/iceflight/iceberg/scantask"
)

// Role is what a flightd process does.
type Role int

const (
	// RoleAll plans scans and serves their tickets.
	RoleAll Role = iota
	// RoleCoordinator plans scans and places their endpoints on workers.
	RoleCoordinator
	// RoleWorker redeems tickets only; it needs no catalog.
	RoleWorker
)

// ParseRole parses a --role value.
func ParseRole(s string) (Role, error) {
	switch s {
	case "all", "":
		return RoleAll, nil
	case "coordinator":
		return RoleCoordinator, nil
	case "worker":
		return RoleWorker, nil
	}
	return 0, fmt.Errorf("role %q: want all, coordinator or worker", s)
}

func (r Role) String() string {
	return [...]string{"all", "coordinator", "worker"}[r]
}

// errWrongRole is a call this process's role does not serve; it maps to
// Unimplemented so a client sees at once that it dialled the wrong kind of
// process.
var errWrongRole = errors.New("not served by this process")

// plans reports whether the role plans scans.
func (r Role) plans() bool { return r != RoleWorker }

// streams reports whether the role redeems tickets.
func (r Role) streams() bool { return r != RoleCoordinator }

// NeedPlanner refuses call (named in the refusal) on a process that does
// not plan: a worker.
func (e *Engine) NeedPlanner(call string) error {
	if !e.role.plans() {
		return fmt.Errorf("%w: %s: this is a worker; send it to the coordinator", errWrongRole, call)
	}
	return nil
}

func (e *Engine) needStreamer() error {
	if !e.role.streams() {
		return fmt.Errorf("%w: DoGet: this is a coordinator; redeem tickets at the endpoint's locations", errWrongRole)
	}
	return nil
}

// locations says where an endpoint's ticket is redeemed: workers chosen by
// rendezvous hashing, this process's advertised address, or the connection
// the client planned on.
func (e *Engine) locations(tasks []*scantask.Task) ([]*flight.Location, error) {
	switch {
	case e.workers != nil:
		locs, err := e.workers.Locations(tasks)
		if err != nil {
			return nil, err
		}
		return locs, nil
	case e.advertise != "":
		return []*flight.Location{{Uri: e.advertise}}, nil
	}
	return []*flight.Location{{Uri: ReuseConnection}}, nil
}

// RenewEndpoint re-signs an endpoint's still-valid ticket with a fresh
// expiry. The ticket's content is unchanged, so any worker serves it alike.
func (e *Engine) RenewEndpoint(ctx context.Context, req *flight.RenewFlightEndpointRequest) (*flight.FlightEndpoint, error) {
	ep := req.GetEndpoint()
	if ep == nil {
		return nil, fmt.Errorf("%w: RenewFlightEndpoint without an endpoint", ErrBadCommand)
	}
	t, err := e.signer.Verify(ep.GetTicket().GetTicket())
	if err != nil {
		return nil, err
	}
	if err := e.authorizeTicket(ctx, t); err != nil {
		return nil, err
	}
	if err := e.signer.reseal(t); err != nil {
		return nil, err
	}
	b, err := e.signer.Sign(t)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Table, err)
	}
	return &flight.FlightEndpoint{
		Ticket:         &flight.Ticket{Ticket: b},
		Location:       ep.GetLocation(),
		ExpirationTime: timestamppb.New(time.UnixMilli(t.ExpiresAtUnixMs)),
		AppMetadata:    ep.GetAppMetadata(),
	}, nil
}

// CancelFlightInfo accepts a cancellation. A plan holds nothing on the
// server (its tickets are self-contained and streams end when their client
// goes away), so there is nothing to stop; the tickets are still checked so
// a client learns when it is cancelling something that is not ours.
func (e *Engine) CancelFlightInfo(req *flight.CancelFlightInfoRequest) (*flight.CancelFlightInfoResult, error) {
	for _, ep := range req.GetInfo().GetEndpoint() {
		if _, err := e.signer.Verify(ep.GetTicket().GetTicket()); err != nil && !errors.Is(err, ErrTicketExpired) {
			return nil, err
		}
	}
	return &flight.CancelFlightInfoResult{Status: flight.CancelStatusCancelled}, nil
}
