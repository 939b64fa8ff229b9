package flight

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// TestPollStreamsALargePlanAsItsGroupsArePlanned plans a table of four
// manifests in four groups, file by file, with the manifests of all but
// one group held back: the first poll answers with that group's endpoints
// and a descriptor to poll on; once the rest are released, later polls
// append their endpoints without changing the first ones, the last answer
// has no descriptor and the summary's row count, and the endpoints read
// the rows GetFlightInfo's plan reads.
func TestPollStreamsALargePlanAsItsGroupsArePlanned(t *testing.T) {
	t.Parallel()
	blocking := fileiotest.NewBlocking(fileio.NewLocal(), fileiotest.AllButFirst(fileiotest.IsManifest))
	t.Cleanup(blocking.Release)
	cat, err := catalog.NewDirectory(warehouse, catalog.WithFileIO(blocking))
	if err != nil {
		t.Fatal(err)
	}
	h := serveCatalog(t, cat, 0, engine.WithManifestTicketsAbove(0), engine.WithLargePlanTickets(engine.TicketsFiles))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, _ := json.Marshal(map[string]any{"table": "samples.history", "max_endpoints": 4})
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}
	first, err := h.client.PollFlightInfo(ctx, desc)
	if err != nil {
		t.Fatal(err)
	}
	if first.GetFlightDescriptor() == nil || first.GetProgress() >= 1 || len(first.GetInfo().GetEndpoint()) == 0 {
		t.Fatalf("first poll: %d endpoints, progress %v, next %v; want some endpoints and a descriptor to poll on",
			len(first.GetInfo().GetEndpoint()), first.GetProgress(), first.GetFlightDescriptor())
	}
	if first.GetInfo().GetTotalRecords() != -1 {
		t.Errorf("total_records %d before the plan ends, want -1", first.GetInfo().GetTotalRecords())
	}
	blocking.Release()
	last := first
	for polls := 0; last.GetFlightDescriptor() != nil; polls++ {
		if polls > 20 {
			t.Fatal("the plan never ended")
		}
		next, err := h.client.PollFlightInfo(ctx, last.GetFlightDescriptor())
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range last.GetInfo().GetEndpoint() {
			if i >= len(next.GetInfo().GetEndpoint()) || !proto.Equal(ep, next.GetInfo().GetEndpoint()[i]) {
				t.Fatalf("poll %d changed or dropped endpoint %d of the one before", polls+1, i)
			}
		}
		last = next
	}
	if last.GetProgress() != 1 {
		t.Errorf("last progress %v, want 1", last.GetProgress())
	}
	var stats struct {
		DataFiles int   `json:"data_files"`
		Records   int64 `json:"records"`
	}
	if err := json.Unmarshal(last.GetInfo().GetAppMetadata(), &stats); err != nil {
		t.Fatalf("last answer's app_metadata: %v", err)
	}
	whole, err := h.client.GetFlightInfo(ctx, desc)
	if err != nil {
		t.Fatal(err)
	}
	polled, planned := h.readAll(ctx, t, last.GetInfo()), h.readAll(ctx, t, whole)
	if polled != planned || last.GetInfo().GetTotalRecords() != planned || stats.Records != planned {
		t.Errorf("the polled plan reads %d rows and says %d (%d in its statistics); GetFlightInfo's reads %d",
			polled, last.GetInfo().GetTotalRecords(), stats.Records, planned)
	}
	var wholeStats struct {
		DataFiles int `json:"data_files"`
	}
	if err := json.Unmarshal(whole.AppMetadata, &wholeStats); err != nil || wholeStats.DataFiles != stats.DataFiles {
		t.Errorf("the polled plan's statistics name %d data files, GetFlightInfo's %d (%v)", stats.DataFiles, wholeStats.DataFiles, err)
	}
	if _, err := h.client.PollFlightInfo(ctx, first.GetFlightDescriptor()); status.Code(err) != codes.NotFound {
		t.Errorf("a poll of a plan whose end was told: %v, want NotFound", err)
	}
}
