package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/iceflight/iceflight/fileio/fileiotest"
)

// stuckService is a gRPC service whose one method blocks, deaf to its
// context, until released: a handler caught in a system call on hung
// storage, which no cancellation reaches.
func stuckService(entered chan<- struct{}, release <-chan struct{}) *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: "iceflight.test.Stuck",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Hang",
			Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				var in emptypb.Empty
				if err := dec(&in); err != nil {
					return nil, err
				}
				entered <- struct{}{}
				<-release
				return &emptypb.Empty{}, nil
			},
		}},
	}
}

// TestDrainEndsAtItsDeadlineWhateverCallsDo checks that serve returns once
// the drain timeout and its grace have passed even though a call never
// returns: flightd was alive 22 minutes past --drain-timeout, waiting on a
// stream stuck in a read.
func TestDrainEndsAtItsDeadlineWhateverCallsDo(t *testing.T) {
	t.Parallel()
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg.flags(fs)
	if err := fs.Parse([]string{"--warehouse", sampleWarehouse}); err != nil {
		t.Fatal(err)
	}
	role, err := cfg.check()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	p, err := newProcess(ctx, cfg, role, log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	// Released only once the test is over, so the handler outlives serve.
	t.Cleanup(func() { close(release) })
	p.grpc.RegisterService(stuckService(entered, release), struct{}{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.serve(ctx, lis, 50*time.Millisecond, log) }()

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	called := make(chan error, 1)
	go func() {
		called <- conn.Invoke(context.Background(), "/iceflight.test.Stuck/Hang", &emptypb.Empty{}, &emptypb.Empty{})
	}()
	<-entered
	stop() // SIGTERM
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve = %v after the drain", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve still running a minute after its drain deadline, held by a stuck call")
	}
	if err := <-called; status.Code(err) != codes.Unavailable && status.Code(err) != codes.Canceled {
		t.Errorf("the stuck call ended with %v, want the connection cut", err)
	}
}

// TestHugeMetadataIsFailedPrecondition serves a table whose metadata file
// is a sparse 64 GiB file: planning it answers FailedPrecondition naming
// the file, and the server lives on.
func TestHugeMetadataIsFailedPrecondition(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	meta := filepath.Join(root, "db", "huge", "metadata")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	fileiotest.SparseFile(t, filepath.Join(meta, "v1.metadata.json"), 64<<30, nil)
	s := startServe(t, "--warehouse", root, "--listen", "127.0.0.1:0", "--max-metadata-bytes", "1000000")
	fc, err := flight.NewClientWithMiddleware(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	for range 2 { // the second call finds the process alive
		_, err = fc.GetFlightInfo(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"db", "huge"}})
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "v1.metadata.json") {
			t.Fatalf("GetFlightInfo = %v, want FailedPrecondition naming the metadata file", err)
		}
	}
}
