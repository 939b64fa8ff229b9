package flight

import (
	"bytes"
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/testutil"
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
	io    *testutil.CountingIO
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

func newVendingHarness(t *testing.T, expires time.Time, opts ...engine.Option) *harness {
	t.Helper()
	dir, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	return serveCatalog(t, vendingCatalog{Catalog: dir, expires: expires}, 1000, opts...)
}

func TestVendedStorageTravelsSealedInTheTicket(t *testing.T) {
	t.Parallel()
	rec := &storageRecorder{io: &testutil.CountingIO{Base: fileio.NewResolver()}}
	expires := time.Now().Add(30 * time.Second)
	h := newVendingHarness(t, expires, engine.WithStorage(rec.build))
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
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
	if rec.io.Opens.Load() == 0 || h.data.Opens.Load() != 0 {
		t.Errorf("data files opened %d times with the vended FileIO and %d with the worker's own; want all with the vended one",
			rec.io.Opens.Load(), h.data.Opens.Load())
	}
}

func TestAWorkerWithoutStorageRefusesSealedTickets(t *testing.T) {
	t.Parallel()
	h := newVendingHarness(t, time.Time{})
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
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
	if h.data.Opens.Load() != 0 {
		t.Errorf("the worker opened %d files with its own FileIO", h.data.Opens.Load())
	}
}
