package flight

import "github.com/apache/arrow-go/v18/arrow/flight"

// FrontEnd is a second protocol served on the Service's port, Flight SQL:
// it claims the descriptors, tickets and actions that are its own (by
// their Any type URL or action type), and the Service hands those calls to
// it unchanged. Everything it does not claim is the plain protocol.
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

// WithFrontEnd serves fe's calls on this Service's port.
func WithFrontEnd(fe FrontEnd) Option { return func(s *Service) { s.frontEnd = fe } }

// SetFrontEnd is WithFrontEnd after construction, for a front end that
// itself needs the Service.
func (s *Service) SetFrontEnd(fe FrontEnd) { s.frontEnd = fe }
