package engine

import (
	"context"
	"crypto/hmac"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/fuzzseed"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// fuzzSigner is the signer of the ticket fuzz targets: key 7, with a clock
// stopped at the Unix epoch so that the checked-in tickets it signed never
// expire.
func fuzzSigner(tb testing.TB) *Signer {
	s := testSigner(tb, 7)
	s.now = func() time.Time { return time.Unix(0, 0) }
	return s
}

// ticketSeeds plans scans of the sample warehouse with fuzzSigner and
// returns their tickets: full scans, projections, filters, limits, and
// tables with deletes, so the seeds hold every part of a ticket.
func ticketSeeds(f *testing.F) [][]byte {
	f.Helper()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		f.Fatal(err)
	}
	svc := New(cat, reader.New(fileio.NewResolver()), fuzzSigner(f))
	var seeds [][]byte
	for _, cmd := range []string{
		`{"table": "samples.trips", "columns": ["id", "note"], "filter": "id > 100", "max_endpoints": 1}`,
		`{"table": "samples.trips", "limit": 5, "max_endpoints": 1}`,
		`{"table": "samples.all_types", "max_endpoints": 1}`,
		`{"table": "samples.eq_deletes_evolved", "max_endpoints": 1}`,
		`{"table": "samples.dv_many_files", "max_endpoints": 1}`,
		`{"table": "samples.history", "columns": ["id"], "max_endpoints": 1}`,
	} {
		info, err := svc.PlanDescriptor(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)})
		if err != nil {
			f.Fatalf("%s: %v", cmd, err)
		}
		for _, ep := range info.Endpoint {
			seeds = append(seeds, ep.Ticket.Ticket)
		}
	}
	return seeds
}

// FuzzVerifyTicket verifies arbitrary bytes as a ticket, seeded with tickets
// of real plans. It must not panic, every refusal must wrap ErrTicketInvalid
// or ErrTicketExpired, and a ticket is accepted only when its MAC is the one
// its key gives its payload and it has not expired.
func FuzzVerifyTicket(f *testing.F) {
	fuzzseed.AddSeeds(f, ticketSeeds(f)...)
	s := fuzzSigner(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := s.Verify(b)
		if err != nil {
			if !errors.Is(err, ErrTicketInvalid) && !errors.Is(err, ErrTicketExpired) {
				t.Fatalf("refusal %v wraps neither ErrTicketInvalid nor ErrTicketExpired", err)
			}
			return
		}
		var signed iceflightv1.SignedTicket
		if err := proto.Unmarshal(b, &signed); err != nil {
			t.Fatalf("accepted bytes that are no SignedTicket: %v", err)
		}
		key, ok := s.keys[signed.KeyId]
		if !ok || !hmac.Equal(signed.Mac, s.mac(key, signed.KeyId, signed.Payload)) {
			t.Fatal("accepted a ticket whose MAC does not match")
		}
		if tk.ExpiresAtUnixMs < s.now().UnixMilli() {
			t.Fatal("accepted an expired ticket")
		}
		expandPaths(tk)
	})
}

// FuzzTicketPayload signs arbitrary payload bytes with a valid MAC, as only
// a key holder could, and verifies them: the payload decoder must not
// panic, must accept exactly what protobuf decodes into a Ticket that has
// not expired and is of this format, and must return that ticket; its
// typed parts then decode or are refused as invalid.
func FuzzTicketPayload(f *testing.F) {
	var payloads [][]byte
	for _, b := range ticketSeeds(f) {
		var signed iceflightv1.SignedTicket
		if err := proto.Unmarshal(b, &signed); err != nil {
			f.Fatal(err)
		}
		payloads = append(payloads, signed.Payload)
	}
	fuzzseed.AddSeeds(f, payloads...)
	s := fuzzSigner(f)
	f.Fuzz(func(t *testing.T, payload []byte) {
		b, err := proto.Marshal(&iceflightv1.SignedTicket{Payload: payload, KeyId: s.keyID, Mac: s.mac(s.keys[s.keyID], s.keyID, payload)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Verify(b)
		want := new(iceflightv1.Ticket)
		wantErr := proto.Unmarshal(payload, want)
		switch {
		case wantErr != nil:
		case want.Version != ticketVersion(want):
			wantErr = ErrTicketInvalid // another release's format
		case want.ExpiresAtUnixMs < s.now().UnixMilli():
			wantErr = ErrTicketExpired
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("Verify: %v; protobuf and expiry: %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if !proto.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
		// The typed parts decode or are refused, never panic.
		if _, _, err := decodeScan(got); err != nil && !errors.Is(err, ErrTicketInvalid) {
			t.Fatalf("decodeScan refusal %v does not wrap ErrTicketInvalid", err)
		}
	})
}
