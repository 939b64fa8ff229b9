package flight

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
)

// engineService is a Service that is not served: the front end a test
// plays calls its core methods directly. Its reader counts the data files
// it opens; its allocator must be back to zero when the test ends.
func engineService(t testing.TB, signer *Signer) (*Service, *countingIO) {
	t.Helper()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	data := &countingIO{base: fileio.NewResolver()}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	rd := reader.New(data, reader.WithAllocator(mem), reader.WithBatchSize(1000), reader.WithValidation(true))
	return NewService(cat, rd, signer, WithAllocator(mem)), data
}

// streamed is what StreamTicket sent: the schema and the batches, kept.
type streamed struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
}

func (s *streamed) release() {
	for _, b := range s.batches {
		b.Release()
	}
}

func streamTicket(ctx context.Context, svc *Service, ticket []byte) (*streamed, error) {
	out := new(streamed)
	err := svc.StreamTicket(ctx, ticket, func(schema *arrow.Schema) error {
		if out.schema != nil {
			return errors.New("begin called twice")
		}
		out.schema = schema
		return nil
	}, func(rec arrow.RecordBatch) error {
		if out.schema == nil {
			return errors.New("write before begin")
		}
		rec.Retain()
		out.batches = append(out.batches, rec)
		return nil
	})
	return out, err
}

func TestStreamTicketSendsWhatDoGetSends(t *testing.T) {
	h := serve(t, 1000)
	svc, _ := engineService(t, testSigner(t, 7)) // the harness's key
	ctx := context.Background()
	for _, desc := range []*flight.FlightDescriptor{
		pathDesc("samples", "trips"),
		cmdDesc(t, map[string]any{"table": "samples.trips", "columns": []string{"id"}, "filter": "id > 10", "limit": 25}),
	} {
		info, err := h.client.GetFlightInfo(ctx, desc)
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range info.Endpoint {
			got, err := streamTicket(ctx, svc, ep.Ticket.Ticket)
			if err != nil {
				t.Fatalf("%s endpoint %d: StreamTicket: %v", desc, i, err)
			}
			stream, err := h.client.DoGet(ctx, ep.Ticket)
			if err != nil {
				t.Fatal(err)
			}
			rdr, err := flight.NewRecordReader(stream)
			if err != nil {
				t.Fatal(err)
			}
			if !rdr.Schema().Equal(got.schema) {
				t.Errorf("endpoint %d: StreamTicket began with\n%v\nDoGet sent\n%v", i, got.schema, rdr.Schema())
			}
			n := 0
			for ; rdr.Next(); n++ {
				if n >= len(got.batches) {
					continue
				}
				if want := rdr.RecordBatch(); !array.RecordEqual(got.batches[n], want) {
					t.Errorf("endpoint %d batch %d differs:\n%v\nDoGet:\n%v", i, n, got.batches[n], want)
				}
			}
			if err := rdr.Err(); err != nil {
				t.Fatal(err)
			}
			rdr.Release()
			if n != len(got.batches) || n == 0 {
				t.Errorf("endpoint %d: StreamTicket wrote %d batches, DoGet sent %d", i, len(got.batches), n)
			}
			got.release()
		}
	}
}

func TestStreamTicketRefusesBadTicketsBeforeOpeningAFile(t *testing.T) {
	svc, data := engineService(t, testSigner(t, 7))
	ctx := context.Background()
	info, err := svc.PlanCommand(ctx, mustCommand(t, "samples.trips"), pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	good := info.Endpoint[0].Ticket.Ticket
	tampered := append([]byte(nil), good...)
	tampered[len(tampered)/2] ^= 0x40
	stale := testSigner(t, 7)
	stale.now = func() time.Time { return time.Now().Add(-2 * time.Minute) }
	staleSvc, _ := engineService(t, stale)
	old, err := staleSvc.PlanCommand(ctx, mustCommand(t, "samples.trips"), pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := engineService(t, testSigner(t, 8))
	foreign, err := otherKey.PlanCommand(ctx, mustCommand(t, "samples.trips"), pathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		ticket []byte
		want   error
		code   codes.Code
	}{
		{"a tampered ticket is refused", tampered, errTicketInvalid, codes.PermissionDenied},
		{"a ticket of another key is refused", foreign.Endpoint[0].Ticket.Ticket, errTicketInvalid, codes.PermissionDenied},
		{"garbage is refused", []byte("SELECT 1"), errTicketInvalid, codes.PermissionDenied},
		{"an expired ticket is refused as expired", old.Endpoint[0].Ticket.Ticket, errTicketExpired, codes.Unauthenticated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := streamTicket(ctx, svc, tc.ticket)
			defer got.release()
			if !errors.Is(err, tc.want) {
				t.Fatalf("StreamTicket = %v, want %v", err, tc.want)
			}
			if code := status.Code(statusError(err)); code != tc.code {
				t.Errorf("maps to %v, want %v", code, tc.code)
			}
			if got.schema != nil || len(got.batches) != 0 {
				t.Errorf("a refused ticket began a stream")
			}
			if n := data.opens.Load(); n != 0 {
				t.Fatalf("a refused ticket opened %d data files", n)
			}
		})
	}
	// The good ticket does open files: the counter can see them.
	got, err := streamTicket(ctx, svc, good)
	got.release()
	if err != nil || data.opens.Load() == 0 {
		t.Fatalf("the good ticket: %v, %d files opened", err, data.opens.Load())
	}
}

func mustCommand(t *testing.T, table string) *iceflightv1.Command {
	t.Helper()
	cmd, err := ParseDescriptor(pathDesc(table))
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}
