package flight

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// vendedProps are storage properties as a REST catalog vends them.
var vendedProps = fileio.Properties{
	"s3.access-key-id":     "ASIAVENDEDKEYID",
	"s3.secret-access-key": "vended-secret-value",
	"s3.session-token":     "vended-session-token",
}

// vendingCatalog is the sample warehouse with storage credentials vended
// for every table, as a REST catalog's load-table answer gives them.
type vendingCatalog struct {
	catalog.Catalog
	expires time.Time
}

func (v vendingCatalog) LoadTable(ctx context.Context, id catalog.Identifier) (*catalog.Table, error) {
	t, err := v.Catalog.LoadTable(ctx, id)
	if err != nil {
		return nil, err
	}
	c := *t
	c.StorageProperties, c.CredentialsExpire = maps.Clone(vendedProps), v.expires
	return &c, nil
}

// storageRecorder is a worker's storage registry: it records the
// properties of each FileIO it builds, and counts what those open.
type storageRecorder struct {
	mu    sync.Mutex
	props []fileio.Properties
	io    *countingIO
}

func (r *storageRecorder) build(_ context.Context, p fileio.Properties) (fileio.FileIO, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.props = append(r.props, p)
	return r.io, nil
}

// checkSealedTickets checks that no ticket of info holds any of secrets in
// the clear, and that each expires no later than expiresMs, when its
// sealed credentials do.
func checkSealedTickets(t *testing.T, info *flight.FlightInfo, expiresMs int64, secrets ...string) {
	t.Helper()
	for _, ep := range info.Endpoint {
		for _, secret := range secrets {
			if bytes.Contains(ep.Ticket.Ticket, []byte(secret)) {
				t.Errorf("a ticket holds %q in the clear", secret)
			}
		}
		if got := ep.ExpirationTime.AsTime().UnixMilli(); got > expiresMs {
			t.Errorf("ticket expires at %d, after its credentials (%d)", got, expiresMs)
		}
	}
}

func newVendingHarness(t *testing.T, expires time.Time, opts ...Option) *harness {
	t.Helper()
	dir, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	return serveCatalog(t, vendingCatalog{Catalog: dir, expires: expires}, 1000, opts...)
}

func TestVendedStorageTravelsSealedInTheTicket(t *testing.T) {
	t.Parallel()
	rec := &storageRecorder{io: &countingIO{base: fileio.NewResolver()}}
	expires := time.Now().Add(30 * time.Second)
	h := newVendingHarness(t, expires, WithStorage(rec.build))
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	checkSealedTickets(t, info, expires.UnixMilli(), "vended-secret-value", "vended-session-token", "ASIAVENDEDKEYID", "s3.secret-access-key")
	if rows := h.readAll(ctx, t, info); rows != info.TotalRecords || rows == 0 {
		t.Fatalf("read %d rows, FlightInfo promised %d", rows, info.TotalRecords)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.props) != len(info.Endpoint) {
		t.Fatalf("%d FileIOs built for %d tickets", len(rec.props), len(info.Endpoint))
	}
	for _, p := range rec.props {
		if !maps.Equal(p, vendedProps) {
			t.Errorf("worker built its FileIO from %v, want the vended properties", p)
		}
	}
	if rec.io.opens.Load() == 0 || h.data.opens.Load() != 0 {
		t.Errorf("data files opened %d times with the vended FileIO and %d with the worker's own; want all with the vended one",
			rec.io.opens.Load(), h.data.opens.Load())
	}
}

func TestAWorkerWithoutStorageRefusesSealedTickets(t *testing.T) {
	t.Parallel()
	h := newVendingHarness(t, time.Time{})
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := h.client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("DoGet = %v, want Unimplemented", err)
	}
	if h.data.opens.Load() != 0 {
		t.Errorf("the worker opened %d files with its own FileIO", h.data.opens.Load())
	}
}

func TestSealedStorageOpensOnlyWhereItWasSealed(t *testing.T) {
	t.Parallel()
	s := testSigner(t, 1)
	sealed, err := s.sealStorage("db.t", vendedProps)
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
				if err != nil || !maps.Equal(props, vendedProps) {
					t.Errorf("openStorage = %v, %v; want the sealed properties", props, err)
				}
				return
			}
			if !errors.Is(err, errTicketInvalid) {
				t.Errorf("openStorage = %v, want errTicketInvalid", err)
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
	sealed, err := before.sealStorage("db.t", vendedProps)
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
	svc := &Service{signer: after}
	renewed, err := svc.renewEndpoint(context.Background(), &flight.RenewFlightEndpointRequest{Endpoint: &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: b}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := retired.Verify(renewed.Ticket.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	props, err := retired.openStorage(got)
	if err != nil || !maps.Equal(props, vendedProps) {
		t.Errorf("renewed ticket's storage = %v, %v", props, err)
	}
	if got.ExpiresAtUnixMs > expires {
		t.Errorf("renewed ticket expires at %d, after its credentials (%d)", got.ExpiresAtUnixMs, expires)
	}
}
