// Package flight is iceflight's plain Arrow Flight protocol: it turns
// descriptors into planned scans with signed tickets (GetFlightInfo,
// GetSchema, ListFlights), redeems tickets as Arrow record batch streams
// (DoGet) and serves the write API (DoPut, DoAction). Planning, tickets,
// grants, limits and streaming are the engine's (package engine); this
// package adapts the protocol's calls onto it, and Mux serves other front
// ends (Flight SQL) on the same port.
package flight

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/internal/panics"
)

// Service implements the plain Flight RPCs over an Engine.
type Service struct {
	flight.BaseFlightServer

	eng *engine.Engine
	writeConfig
}

// Option configures a Service.
type Option func(*Service)

// NewService returns the plain Flight service over eng.
func NewService(eng *engine.Engine, opts ...Option) *Service {
	s := &Service{eng: eng}
	s.puts = engine.NewLimiter("DoPut", DefaultMaxPuts)
	for _, o := range opts {
		o(s)
	}
	return s
}

// Engine is the core the service plans and streams through.
func (s *Service) Engine() *engine.Engine { return s.eng }

// Handshake logs a Basic user in and returns a session bearer token (see
// engine.Authenticator.Handshake).
func (s *Service) Handshake(stream flight.FlightService_HandshakeServer) (err error) {
	defer s.eng.EndCall(stream.Context(), &err)
	defer panics.Recover(&err, "Handshake")
	return s.eng.Authenticator().Handshake(stream)
}

// GetFlightInfo plans a scan and returns one signed ticket per endpoint.
func (s *Service) GetFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.FlightInfo, err error) {
	// The call log interceptor traces and logs the call; errors only
	// need their status here.
	defer s.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "GetFlightInfo")
	return s.eng.PlanDescriptor(ctx, desc)
}

// PollFlightInfo plans like GetFlightInfo, but streams a large plan whose
// manifest groups are planned in parallel: the first answer has the
// endpoints planned so far and a descriptor to poll for the rest (see
// engine.Engine.PollDescriptor).
func (s *Service) PollFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.PollInfo, err error) {
	defer s.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "PollFlightInfo")
	return s.eng.PollDescriptor(ctx, desc)
}

func pollInfo(info *flight.FlightInfo, err error) (*flight.PollInfo, error) {
	if err != nil {
		return nil, err
	}
	done := 1.0
	return &flight.PollInfo{Info: info, Progress: &done}, nil
}

// GetSchema returns the schema a GetFlightInfo for desc would stream,
// without reading manifests.
func (s *Service) GetSchema(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.SchemaResult, err error) {
	defer s.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "GetSchema")
	schema, err := s.eng.DescriptorSchema(ctx, desc)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, s.eng.Allocator())}, nil
}

// ListFlights lists every table the caller may read with its schema and
// estimated rows (see engine.Engine.ListFlights).
func (s *Service) ListFlights(_ *flight.Criteria, stream flight.FlightService_ListFlightsServer) (err error) {
	defer s.eng.EndCall(stream.Context(), &err)
	defer panics.Recover(&err, "ListFlights")
	return s.eng.ListFlights(stream)
}

// DoGet verifies a ticket and streams its tasks' rows. No file is opened
// before the ticket's signature and expiry check out.
func (s *Service) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) (err error) {
	defer s.eng.EndCall(stream.Context(), &err)
	defer panics.Recover(&err, "DoGet")
	return s.eng.Stream(stream.Context(), tkt.GetTicket(), stream)
}
