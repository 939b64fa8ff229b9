package engine

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// errTooLarge is a plan whose FlightInfo or tickets no default client could
// receive, however its tasks are grouped. It maps to InvalidArgument: the
// command (its filter) must change, and retrying never helps, whereas
// ResourceExhausted is what a busy server answers, to be retried.
var errTooLarge = errors.New("plan too large to send")

// DefaultMaxFlightInfoBytes is the largest FlightInfo GetFlightInfo sends.
// gRPC clients refuse a message over 4 MiB unless told otherwise (grpc-go's
// default, which arrow-go's Flight client keeps); the margin leaves room for
// PollInfo's fields around the FlightInfo.
const DefaultMaxFlightInfoBytes = 4<<20 - 16<<10

// maxTicketBytes bounds one ticket: a DoGet request carries it, and flightd
// keeps gRPC's default 4 MiB receive limit.
const maxTicketBytes = 4<<20 - 1<<10

// WithMaxFlightInfoBytes sets the FlightInfo budget (see planInfo); 0 means
// DefaultMaxFlightInfoBytes. Clients must accept messages of that size.
func WithMaxFlightInfoBytes(n int) Option {
	return func(s *Engine) {
		if n > 0 {
			s.maxInfoBytes = n
		}
	}
}

// endpointSize splits an endpoint's encoded size into what its tasks take
// and what it repeats whatever its tasks: the schemas, the residual
// filters, the locations and app_metadata.
type endpointSize struct {
	total, tasks int
}

// sizeEndpoint measures fe, built from the compact ticket t signed with
// key keyID.
func sizeEndpoint(fe *flight.FlightEndpoint, t *iceflightv1.Ticket, keyID string) endpointSize {
	tasks := t.Tasks
	t.Tasks = nil
	head := proto.Size(t)
	t.Tasks = tasks
	// The signed ticket wraps the payload in its own field, with the key id
	// and a 32-byte MAC.
	signed := len(fe.Ticket.Ticket)
	payload := signed - protowire.SizeTag(1) - protowire.SizeVarint(uint64(signed)) - protowire.SizeTag(2) - protowire.SizeBytes(len(keyID)) -
		protowire.SizeTag(3) - protowire.SizeBytes(32)
	return endpointSize{total: protowire.SizeTag(2) + protowire.SizeBytes(proto.Size(fe)), tasks: max(0, payload-head)}
}

// infoSize is a FlightInfo's encoded size and its parts.
type infoSize struct {
	total int
	// fixed is what the FlightInfo holds besides its endpoints: the schema,
	// the descriptor (the command, its filter included) and app_metadata.
	fixed int
	// tasks is what all tickets' tasks take, however they are grouped.
	tasks int
	// shared is the most one endpoint takes besides its tasks.
	shared int
}

func measure(info *flight.FlightInfo, eps []endpointSize) infoSize {
	size := infoSize{total: proto.Size(info)}
	size.fixed = size.total
	for _, ep := range eps {
		size.fixed -= ep.total
		size.tasks += ep.tasks
		size.shared = max(size.shared, ep.total-ep.tasks)
	}
	return size
}

// planInfo builds the FlightInfo of a plan within the engine's budget, so
// that a client with gRPC's default limits can receive it. Every ticket
// must carry what its tasks share (the schemas and the residual filter,
// which may be megabytes), so when the plan's endpoints repeat too much of
// it, planInfo groups the tasks into fewer endpoints until the FlightInfo
// fits. A plan that cannot fit in one endpoint because of its command is
// refused (errTooLarge). A plan whose tasks alone exceed the budget (a
// table of very many files) is sent over it, with at most as many endpoints
// as keep the repeated part no larger than the tasks, since only a client
// with a larger limit can receive it anyway.
func (e *Engine) planInfo(desc *flight.FlightDescriptor, plan *planner.Plan, src planSource) (*flight.FlightInfo, error) {
	return e.planInfoWithin(desc, plan, src, e.maxInfoBytes)
}

// planInfoWithin is planInfo with budget bytes for the FlightInfo: a
// streamed plan's part gets what its earlier parts left.
func (e *Engine) planInfoWithin(desc *flight.FlightDescriptor, plan *planner.Plan, src planSource, budget int) (*flight.FlightInfo, error) {
	schema, err := reader.OutputSchema(reader.Scan{Schema: plan.Schema, Dictionary: plan.Dictionary})
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	schemas, err := encodeTicketSchemas(plan)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", plan.Table, err)
	}
	schemas.storage = src.storage
	head := &flight.FlightInfo{Schema: flight.SerializeSchema(schema, e.mem), FlightDescriptor: desc}
	for {
		info, size, err := e.buildInfo(head, plan, schemas, src)
		if err != nil {
			return nil, err
		}
		if size.total <= budget {
			return info, nil
		}
		n := len(info.Endpoint)
		switch {
		case size.fixed+size.shared > budget:
			return nil, fmt.Errorf("%w: table %s: its FlightInfo would take %d bytes: the command %d, and each ticket %d "+
				"besides its files (the schemas and the residual filter), more than the %d bytes a default gRPC client accepts; "+
				"send a shorter filter", errTooLarge, plan.Table, size.total, proto.Size(desc), size.shared, budget)
		case n <= 1:
			// One endpoint over the budget by its tasks.
		case size.fixed+size.tasks+size.shared <= budget:
			n = min((budget-size.fixed-size.tasks)/size.shared, n-1)
		default:
			n = min(max(1, size.tasks/size.shared), n)
		}
		if n == len(info.Endpoint) {
			return info, ticketsFit(plan.Table, info)
		}
		plan.Regroup(n)
	}
}

// ticketsFit checks that a DoGet can carry each of info's tickets.
func ticketsFit(table string, info *flight.FlightInfo) error {
	for _, ep := range info.Endpoint {
		if n := len(ep.GetTicket().GetTicket()); n > maxTicketBytes {
			return fmt.Errorf("%w: table %s: a ticket would take %d bytes, more than the %d a DoGet request may carry; "+
				"send a shorter filter or ask for more endpoints", errTooLarge, table, n, maxTicketBytes)
		}
	}
	return nil
}
