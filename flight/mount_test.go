package flight

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// downCatalog is a mounted catalog whose server is down.
type downCatalog struct{}

func (downCatalog) ListTables(context.Context) ([]catalog.Identifier, error) {
	return nil, errors.New("GET /v1/namespaces: 500 Internal Server Error")
}

func (downCatalog) LoadTable(context.Context, catalog.Identifier) (*catalog.Table, error) {
	return nil, fileio.ErrUnavailable
}

// mountedHarness serves the bundled warehouse mounted as "lake" beside a
// catalog "prod" that is down; lake's files are read by its own storage
// profile's reader, whose FileIO is returned.
func mountedHarness(t *testing.T) (*harness, *testutil.CountingIO) {
	t.Helper()
	dir, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := catalog.NewRegistry(map[string]catalog.Catalog{"lake": dir, "prod": downCatalog{}})
	if err != nil {
		t.Fatal(err)
	}
	lakeIO := &testutil.CountingIO{Base: fileio.NewResolver()}
	mem := memory.NewCheckedAllocator(reader.NewPoolAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	lake := reader.New(lakeIO, reader.WithAllocator(mem), reader.WithValidation(true))
	return serveCatalog(t, reg, 1000, engine.WithProfileReaders(map[string]*reader.Reader{"lake": lake})), lakeIO
}

func TestMountedCatalogsListWhatTheyCanAndNameWhatFailed(t *testing.T) {
	h, _ := mountedHarness(t)
	ctx := context.Background()
	stream, err := h.client.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		info, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("ListFlights beside a catalog that is down: %v", err)
		}
		names = append(names, strings.Join(info.FlightDescriptor.Path, "."))
	}
	if len(names) < 6 || !strings.HasPrefix(names[0], "lake.samples.") {
		t.Errorf("ListFlights = %v, want the tables of lake", names)
	}
	failed := stream.Trailer().Get(engine.CatalogErrorsKey)
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "catalog prod: ") || !strings.Contains(failed[0], "500") {
		t.Errorf("trailer %s = %q, want catalog prod's failure", engine.CatalogErrorsKey, failed)
	}
}

func TestAMountedTableReadsWithItsCatalogsStorage(t *testing.T) {
	h, lakeIO := mountedHarness(t)
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("lake", "samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := testSigner(t, 7).Verify(info.Endpoint[0].Ticket.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Table != "lake.samples.trips" || tk.StorageProfile != "lake" {
		t.Errorf("ticket of table %q with storage profile %q, want lake.samples.trips of lake", tk.Table, tk.StorageProfile)
	}
	if rows := h.readAll(ctx, t, info); rows != info.TotalRecords || rows == 0 {
		t.Errorf("read %d rows, planned %d", rows, info.TotalRecords)
	}
	if lakeIO.Opens.Load() == 0 || h.data.Opens.Load() != 0 {
		t.Errorf("lake's reader opened %d files, the default reader %d: want all by lake's", lakeIO.Opens.Load(), h.data.Opens.Load())
	}
}

func TestATicketOfAStorageProfileTheServerLacksIsRefused(t *testing.T) {
	coordinator, _ := mountedHarness(t)
	ctx := context.Background()
	info, err := coordinator.client.GetFlightInfo(ctx, testutil.PathDesc("lake", "samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	// A worker with the same ticket key but started without the catalogs.
	worker := serve(t, 1000, engine.WithRole(engine.RoleWorker))
	stream, err := worker.client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `catalog "lake"`) {
		t.Errorf("DoGet on a worker without lake's storage: %v, want FailedPrecondition naming the catalog", err)
	}
	if worker.data.Opens.Load() != 0 {
		t.Errorf("the worker opened %d files with storage the ticket did not name", worker.data.Opens.Load())
	}
}

func TestMountedTableHintsAndErrorsNameTheCatalog(t *testing.T) {
	h, _ := mountedHarness(t)
	ctx := context.Background()
	tests := []struct {
		name, table string
		code        codes.Code
		says        string
	}{
		{"a misspelt table is suggested across catalogs", "lake.samples.trip", codes.NotFound, "nearest: lake.samples.trips"},
		{"a name without its catalog is suggested with it", "trips", codes.NotFound, "lake.samples.trips"},
		{"a catalog that is down is Unavailable and named", "prod.db.t", codes.Unavailable, "catalog prod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": tt.table}))
			if status.Code(err) != tt.code || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("GetFlightInfo %s: %v, want %s saying %q", tt.table, err, tt.code, tt.says)
			}
		})
	}
}
