package main

import (
	"context"
	"net"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	iceflight "github.com/iceflight/iceflight/flight"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// stuckServer serves the sample warehouse with one stream and one plan
// slot, reading metadata and manifests through meta and data files
// through data, and returns a client of it.
func stuckServer(t *testing.T, meta, data fileio.FileIO) flight.Client {
	t.Helper()
	cat, err := catalog.NewDirectory(sampleWarehouse, catalog.WithFileIO(meta))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := engine.NewRandomSigner(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rd := reader.New(fileio.Cancelable(data), reader.WithAllocator(mem))
	srv := grpc.NewServer()
	// No manifest cache: a second plan would join the first one's stuck
	// load instead of reaching storage itself.
	pl := planner.New(planner.WithCacheBytes(0))
	flight.RegisterFlightServiceServer(srv, iceflight.NewService(engine.New(cat, rd, signer,
		engine.WithLimits(1, 1), engine.WithAllocator(mem), engine.WithPlanner(pl))))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	fc, err := flight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fc.Close()
		// Graceful: waits for every handler, which returns even while
		// its storage is still stuck, so memory can be checked after.
		srv.GracefulStop()
		mem.AssertSize(t, 0)
	})
	return fc
}

// TestStuckStorageFreesItsSlot holds the one stream (or plan) slot with a
// call stuck on storage, lets the client go away, and checks that the next
// call gets the slot: a stuck FIFO or hung mount held it forever.
func TestStuckStorageFreesItsSlot(t *testing.T) {
	t.Parallel()
	isData := func(loc string) bool { return strings.HasSuffix(loc, ".parquet") }
	isList := func(loc string) bool { return strings.HasPrefix(path.Base(loc), "snap-") }
	trips := &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"samples", "trips"}}
	cases := []struct {
		name  string
		stuck *fileiotest.Blocking
		data  bool // the data file is stuck, not the manifest list
	}{
		{"a stream stuck reading a data file", fileiotest.NewBlocking(fileio.NewResolver(), isData, fileiotest.OnRead()), true},
		{"a plan stuck opening a manifest list", fileiotest.NewBlocking(fileio.NewResolver(), isList), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			t.Cleanup(tc.stuck.Release)
			meta, data := fileio.FileIO(tc.stuck), fileio.FileIO(fileio.NewResolver())
			if tc.data {
				meta, data = data, meta
			}
			fc := stuckServer(t, meta, data)
			var ticket *flight.Ticket
			if tc.data {
				info, err := fc.GetFlightInfo(context.Background(), trips)
				if err != nil {
					t.Fatal(err)
				}
				ticket = info.Endpoint[0].Ticket
			}
			// call starts the stuck call and reports how it ended.
			call := func(ctx context.Context) <-chan error {
				errc := make(chan error, 1)
				go func() {
					if !tc.data {
						_, err := fc.GetFlightInfo(ctx, trips)
						errc <- err
						return
					}
					stream, err := fc.DoGet(ctx, ticket)
					if err == nil {
						_, err = stream.Recv()
					}
					errc <- err
				}()
				return errc
			}
			first, leave := context.WithCancel(context.Background())
			firstDone := call(first)
			<-tc.stuck.Entered()
			leave()
			if err := <-firstDone; status.Code(err) != codes.Canceled {
				t.Fatalf("the first call ended with %v, want Canceled", err)
			}
			// The server frees the slot once it sees the cancel; until then
			// the next call may still be refused.
			deadline := time.Now().Add(time.Minute)
			for {
				ctx, cancel := context.WithCancel(context.Background())
				done := call(ctx)
				select {
				case <-tc.stuck.Entered():
					cancel()
					<-done
					return // the next call got the slot and reached storage
				case err := <-done:
					cancel()
					if status.Code(err) != codes.ResourceExhausted {
						t.Fatalf("the next call ended with %v", err)
					}
				}
				if time.Now().After(deadline) {
					t.Fatal("the slot of a call stuck on storage was never freed")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
