package flight

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// TestCoordinatorAndWorker plans on a coordinator that places endpoints on a
// worker sharing its ticket keys, and redeems them there; each refuses the
// other's calls.
func TestCoordinatorAndWorker(t *testing.T) {
	worker := serve(t, 1000, engine.WithRole(engine.RoleWorker))
	ws, err := engine.NewWorkers(worker.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	coord := serve(t, 1000, engine.WithRole(engine.RoleCoordinator), engine.WithWorkers(ws))
	ctx := context.Background()

	info, err := coord.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range info.Endpoint {
		if len(ep.Location) != 1 || ep.Location[0].Uri != "grpc://"+worker.addr {
			t.Fatalf("endpoint locations %v, want the worker", ep.Location)
		}
		if ep.ExpirationTime == nil || time.Until(ep.ExpirationTime.AsTime()) <= 0 {
			t.Errorf("endpoint expiration %v, want the ticket's expiry", ep.ExpirationTime)
		}
	}
	if rows := worker.readAll(ctx, t, info); rows != info.TotalRecords {
		t.Errorf("worker served %d rows, plan has %d", rows, info.TotalRecords)
	}
	if _, err := coord.client.DoGet(ctx, info.Endpoint[0].Ticket); err == nil {
		stream, _ := coord.client.DoGet(ctx, info.Endpoint[0].Ticket)
		_, err = stream.Recv()
		if status.Code(err) != codes.Unimplemented {
			t.Errorf("coordinator DoGet: %v, want Unimplemented", err)
		}
	}
	_, err = worker.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "coordinator") {
		t.Errorf("worker GetFlightInfo: %v, want Unimplemented naming the coordinator", err)
	}
}

func TestAdvertisedLocation(t *testing.T) {
	h := serve(t, 1000, engine.WithAdvertise("grpc://flight.example:8815"))
	info, err := h.client.GetFlightInfo(context.Background(), testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Endpoint[0].Location; len(got) != 1 || got[0].Uri != "grpc://flight.example:8815" {
		t.Errorf("locations %v, want the advertised address", got)
	}
}

func TestLimitRefusesWithRetryHint(t *testing.T) {
	h := serve(t, 1000, engine.WithLimits(1, 1))
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	// Hold the only stream slot with a stream the client does not read:
	// 10-row batches would never fit the flow-control window.
	slow := serve(t, 10, engine.WithLimits(1, 1))
	slowInfo, err := slow.client.GetFlightInfo(ctx, testutil.CmdDesc(t, map[string]any{"table": "samples.trips", "max_endpoints": 1}))
	if err != nil {
		t.Fatal(err)
	}
	hold, cancel := context.WithCancel(ctx)
	defer cancel()
	held, err := slow.client.DoGet(hold, slowInfo.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := held.Recv(); err != nil {
		t.Fatal(err)
	}
	var trailer metadata.MD
	stream, err := slow.client.DoGet(ctx, slowInfo.Endpoint[0].Ticket, grpc.Trailer(&trailer))
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "retry in") {
		t.Fatalf("second stream over a limit of 1: %v, want ResourceExhausted with a retry hint", err)
	}
	if got := trailer.Get("grpc-retry-pushback-ms"); len(got) != 1 {
		t.Errorf("trailer %v, want grpc-retry-pushback-ms", trailer)
	}
	cancel()
	// The slot comes back once the held stream ends.
	deadline := time.Now().Add(5 * time.Second)
	for {
		stream, err := slow.client.DoGet(ctx, slowInfo.Endpoint[0].Ticket)
		if err == nil {
			_, err = stream.Recv()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not released after the held stream was cancelled: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rows := h.readAll(ctx, t, info); rows != info.TotalRecords {
		t.Errorf("read %d rows under the limit, want %d", rows, info.TotalRecords)
	}
}

func TestRenewAndCancelFlightInfo(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	ep := info.Endpoint[0]
	time.Sleep(5 * time.Millisecond) // the renewed expiry must be later
	renewed, err := h.client.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if !renewed.ExpirationTime.AsTime().After(ep.ExpirationTime.AsTime()) {
		t.Errorf("renewed expiry %v not after %v", renewed.ExpirationTime.AsTime(), ep.ExpirationTime.AsTime())
	}
	one := &flight.FlightInfo{Schema: info.Schema, Endpoint: []*flight.FlightEndpoint{renewed}, TotalRecords: -1}
	if rows := h.readAll(ctx, t, one); rows == 0 {
		t.Error("renewed ticket served no rows")
	}
	forged := &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: []byte("not a ticket")}}
	if _, err := h.client.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: forged}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("renewing a forged ticket: %v, want PermissionDenied", err)
	}
	res, err := h.client.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	if err != nil || res.Status != flight.CancelStatusCancelled {
		t.Errorf("cancel: %v, %v", res, err)
	}
}

func TestPollFlightInfoIsCompleteAtOnce(t *testing.T) {
	h := serve(t, 1000)
	ctx := context.Background()
	poll, err := h.client.PollFlightInfo(ctx, testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	if poll.FlightDescriptor != nil || poll.GetProgress() != 1 {
		t.Errorf("poll: descriptor %v, progress %v; want none and 1 (complete)", poll.FlightDescriptor, poll.GetProgress())
	}
	if rows := h.readAll(ctx, t, poll.Info); rows != poll.Info.TotalRecords || rows == 0 {
		t.Errorf("read %d rows, poll promised %d", rows, poll.Info.TotalRecords)
	}
}
