package engine

import (
	"encoding/json"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/planner"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// WarmUp builds, before the first request, what a fresh process otherwise
// builds during it: protobuf's per-message coders for tickets and
// FlightInfo, encoding/json's encoders for the plan statistics and endpoint
// metadata, and the metadata decoder's (iceberg.WarmUp). Measured on a
// one-day plan of a 100,000-file table, that was about a millisecond of
// the first GetFlightInfo's nine. It encodes empty values only: no table
// is read and nothing is kept.
func WarmUp() {
	iceberg.WarmUp()
	t := &iceflightv1.Ticket{Tasks: []*iceflightv1.Task{{
		Constants: []*iceflightv1.PartitionConstant{{}},
		Deletes:   []*iceflightv1.DeleteFile{{}},
	}}}
	payload, _ := proto.MarshalOptions{Deterministic: true}.Marshal(t)
	signed, _ := proto.Marshal(&iceflightv1.SignedTicket{Payload: payload})
	_ = proto.Unmarshal(signed, new(iceflightv1.SignedTicket))
	_ = proto.Unmarshal(payload, new(iceflightv1.Ticket))
	_, _ = proto.Marshal(&flight.FlightInfo{
		FlightDescriptor: &flight.FlightDescriptor{},
		Endpoint: []*flight.FlightEndpoint{{
			Ticket:         &flight.Ticket{},
			Location:       []*flight.Location{{}},
			ExpirationTime: timestamppb.New(time.Unix(0, 0)),
		}},
	})
	_, _ = json.Marshal(EndpointMetadata{})
	_, _ = json.Marshal(planner.Stats{})
}
