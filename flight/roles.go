package flight

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/types/known/timestamppb"

	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
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

func (s *Service) needPlanner(call string) error {
	if !s.role.plans() {
		return fmt.Errorf("%w: %s: this is a worker; send it to the coordinator", errWrongRole, call)
	}
	return nil
}

func (s *Service) needStreamer() error {
	if !s.role.streams() {
		return fmt.Errorf("%w: DoGet: this is a coordinator; redeem tickets at the endpoint's locations", errWrongRole)
	}
	return nil
}

// locations says where an endpoint's ticket is redeemed: workers chosen by
// rendezvous hashing, this process's advertised address, or the connection
// the client planned on.
func (s *Service) locations(tasks []*iceflightv1.Task) ([]*flight.Location, error) {
	switch {
	case s.workers != nil:
		locs, err := s.workers.Locations(tasks)
		if err != nil {
			return nil, err
		}
		return locs, nil
	case s.advertise != "":
		return []*flight.Location{{Uri: s.advertise}}, nil
	}
	return []*flight.Location{{Uri: ReuseConnection}}, nil
}

// PollFlightInfo plans like GetFlightInfo: planning is synchronous, so the
// first poll returns the complete answer.
func (s *Service) PollFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	info, err := s.GetFlightInfo(ctx, desc)
	if err != nil {
		return nil, err
	}
	done := 1.0
	return &flight.PollInfo{Info: info, Progress: &done}, nil
}

// renewEndpoint re-signs an endpoint's still-valid ticket with a fresh
// expiry. The ticket's content is unchanged, so any worker serves it alike.
func (s *Service) renewEndpoint(ctx context.Context, req *flight.RenewFlightEndpointRequest) (*flight.FlightEndpoint, error) {
	ep := req.GetEndpoint()
	if ep == nil {
		return nil, fmt.Errorf("%w: RenewFlightEndpoint without an endpoint", errBadCommand)
	}
	t, err := s.signer.Verify(ep.GetTicket().GetTicket())
	if err != nil {
		return nil, err
	}
	if err := s.authorizeTicket(ctx, t); err != nil {
		return nil, err
	}
	if err := s.signer.reseal(t); err != nil {
		return nil, err
	}
	b, err := s.signer.Sign(t)
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

// cancelFlightInfo accepts a cancellation. A plan holds nothing on the
// server (its tickets are self-contained and streams end when their client
// goes away), so there is nothing to stop; the tickets are still checked so
// a client learns when it is cancelling something that is not ours.
func (s *Service) cancelFlightInfo(req *flight.CancelFlightInfoRequest) (*flight.CancelFlightInfoResult, error) {
	for _, ep := range req.GetInfo().GetEndpoint() {
		if _, err := s.signer.Verify(ep.GetTicket().GetTicket()); err != nil && !errors.Is(err, errTicketExpired) {
			return nil, err
		}
	}
	return &flight.CancelFlightInfoResult{Status: flight.CancelStatusCancelled}, nil
}
