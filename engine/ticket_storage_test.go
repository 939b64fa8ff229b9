package engine

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/fileio"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// sealedProps are storage properties as a REST catalog vends them.
var sealedProps = fileio.Properties{
	"s3.access-key-id":     "ASIASEALEDKEYID",
	"s3.secret-access-key": "sealed-secret-value",
	"s3.session-token":     "sealed-session-token",
}

func TestSealedStorageOpensOnlyWhereItWasSealed(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	sealed, err := s.sealStorage("db.t", sealedProps)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	tests := []struct {
		name   string
		signer *Signer
		ticket *iceflightv1.Ticket
		ok     bool
	}{
		{"it opens for its table under its key", s, &iceflightv1.Ticket{Table: "db.t", SealedStorage: sealed}, true},
		{"a flipped bit does not open", s, &iceflightv1.Ticket{Table: "db.t", SealedStorage: flipped}, false},
		{"it does not open for another table", s, &iceflightv1.Ticket{Table: "db.other", SealedStorage: sealed}, false},
		{"it does not open under another key", testSigner(t, 2), &iceflightv1.Ticket{Table: "db.t", SealedStorage: sealed}, false},
		{"a truncated blob does not open", s, &iceflightv1.Ticket{Table: "db.t", SealedStorage: sealed[:5]}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			props, err := tc.signer.openStorage(tc.ticket)
			if tc.ok {
				if err != nil || !maps.Equal(props, sealedProps) {
					t.Errorf("openStorage = %v, %v; want the sealed properties", props, err)
				}
				return
			}
			if !errors.Is(err, ErrTicketInvalid) {
				t.Errorf("openStorage = %v, want ErrTicketInvalid", err)
			}
		})
	}
}

func TestSealedStorageSurvivesKeyRotationAndRenewal(t *testing.T) {
	t.Parallel()
	key := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	ring := func(keys ...TicketKey) *Signer {
		s, err := NewKeyring(keys, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	k1, k2 := TicketKey{ID: "k1", Key: key(1)}, TicketKey{ID: "k2", Key: key(2)}
	before, after, retired := ring(k1), ring(k2, k1), ring(k2)

	expires := time.Now().Add(10 * time.Minute).UnixMilli()
	sealed, err := before.sealStorage("db.t", sealedProps)
	if err != nil {
		t.Fatal(err)
	}
	tkt := &iceflightv1.Ticket{Table: "db.t", SealedStorage: sealed, CredentialsExpireAtUnixMs: expires}
	b, err := before.Sign(proto.Clone(tkt).(*iceflightv1.Ticket))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := retired.Verify(b); err == nil {
		t.Fatal("a retired key's ticket verified")
	}

	// Renewal after the switch: verified with the old key, resealed and
	// signed with the new one, it opens once the old key is gone.
	svc := &Engine{signer: after}
	renewed, err := svc.RenewEndpoint(context.Background(), &flight.RenewFlightEndpointRequest{Endpoint: &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: b}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := retired.Verify(renewed.Ticket.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	props, err := retired.openStorage(got)
	if err != nil || !maps.Equal(props, sealedProps) {
		t.Errorf("renewed ticket's storage = %v, %v", props, err)
	}
	if got.ExpiresAtUnixMs > expires {
		t.Errorf("renewed ticket expires at %d, after its credentials (%d)", got.ExpiresAtUnixMs, expires)
	}
}
