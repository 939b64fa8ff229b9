package flight

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/internal/panics"
)

// FrontEnd is a second protocol served on the Flight port, Flight SQL: it
// claims the descriptors, tickets and actions that are its own (by their
// Any type URL or action type), and Mux hands those calls to it unchanged.
// Everything it does not claim is the plain protocol.
type FrontEnd interface {
	flight.FlightServer
	// ClaimsDescriptor reports whether d is one of the front end's commands.
	ClaimsDescriptor(d *flight.FlightDescriptor) bool
	// ClaimsTicket reports whether t is one of the front end's tickets
	// (iceflight's own signed tickets never are).
	ClaimsTicket(t *flight.Ticket) bool
	// ClaimsAction reports whether actionType is one of the front end's.
	ClaimsAction(actionType string) bool
	// Actions lists the front end's action types for ListActions.
	Actions() []*flight.ActionType
}

// Mux serves the plain protocol and the front ends that share its port:
// each call whose descriptor, ticket or action a front end claims goes to
// that front end, every other call to the plain Service. It is the one
// place that routes between protocols; the front ends do not know of each
// other, and errors become statuses and panics failed calls here for the
// front ends' calls as the Service does for its own.
type Mux struct {
	*Service
	fronts []FrontEnd
}

// NewMux serves plain and fronts on one port.
func NewMux(plain *Service, fronts ...FrontEnd) *Mux {
	return &Mux{Service: plain, fronts: fronts}
}

// descriptorOwner is the front end that claims d, or nil.
func (m *Mux) descriptorOwner(d *flight.FlightDescriptor) FrontEnd {
	for _, fe := range m.fronts {
		if fe.ClaimsDescriptor(d) {
			return fe
		}
	}
	return nil
}

// GetFlightInfo plans desc with the protocol that claims it.
func (m *Mux) GetFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.FlightInfo, err error) {
	fe := m.descriptorOwner(desc)
	if fe == nil {
		return m.Service.GetFlightInfo(ctx, desc)
	}
	defer m.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "GetFlightInfo")
	return fe.GetFlightInfo(ctx, desc)
}

// PollFlightInfo polls desc with the protocol that claims it: the plain
// protocol streams large plans (Service.PollFlightInfo); another front end
// plans whole, so its first answer is complete.
func (m *Mux) PollFlightInfo(ctx context.Context, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	if m.descriptorOwner(desc) == nil {
		return m.Service.PollFlightInfo(ctx, desc)
	}
	return pollInfo(m.GetFlightInfo(ctx, desc))
}

// GetSchema answers with the protocol that claims desc.
func (m *Mux) GetSchema(ctx context.Context, desc *flight.FlightDescriptor) (_ *flight.SchemaResult, err error) {
	fe := m.descriptorOwner(desc)
	if fe == nil {
		return m.Service.GetSchema(ctx, desc)
	}
	defer m.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "GetSchema")
	return fe.GetSchema(ctx, desc)
}

// DoGet streams tkt with the protocol whose ticket it is.
func (m *Mux) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) (err error) {
	for _, fe := range m.fronts {
		if fe.ClaimsTicket(tkt) {
			defer m.eng.EndCall(stream.Context(), &err)
			defer panics.Recover(&err, "DoGet")
			return fe.DoGet(tkt, stream)
		}
	}
	return m.Service.DoGet(tkt, stream)
}

// DoAction runs action with the protocol whose action type it is.
func (m *Mux) DoAction(action *flight.Action, stream flight.FlightService_DoActionServer) (err error) {
	for _, fe := range m.fronts {
		if fe.ClaimsAction(action.GetType()) {
			defer m.eng.EndCall(stream.Context(), &err)
			defer panics.Recover(&err, "DoAction")
			return fe.DoAction(action, stream)
		}
	}
	return m.Service.DoAction(action, stream)
}

// ListActions lists the plain protocol's actions and every front end's.
func (m *Mux) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) (err error) {
	defer m.eng.EndCall(stream.Context(), &err)
	defer panics.Recover(&err, "ListActions")
	all := m.actionTypes()
	for _, fe := range m.fronts {
		all = append(all, fe.Actions()...)
	}
	for _, a := range all {
		if err := stream.Send(a); err != nil {
			return err
		}
	}
	return nil
}

// DoPut writes with the protocol whose descriptor the stream's first
// message carries.
func (m *Mux) DoPut(stream flight.FlightService_DoPutServer) (err error) {
	if len(m.fronts) == 0 {
		return m.Service.DoPut(stream)
	}
	ctx := stream.Context()
	defer m.eng.EndCall(ctx, &err)
	defer panics.Recover(&err, "DoPut")
	// A Flight SQL DoPut (parameters for a prepared statement) is a read:
	// it is claimed by its first message's descriptor before the write
	// checks, which workers and read-only servers would fail. The whole
	// stream, that message first, goes to its owner.
	first, err := stream.Recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errPutEmpty
		}
		return err
	}
	peeked := &peekedPut{FlightService_DoPutServer: stream, first: first}
	if fe := m.descriptorOwner(first.GetFlightDescriptor()); fe != nil {
		return fe.DoPut(peeked)
	}
	return m.Service.doPut(ctx, peeked)
}
