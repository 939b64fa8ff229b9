package engine

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// engineService is an Engine that is not served: the front end a test
// plays calls its core methods directly. Its reader counts the data files
// it opens; its allocator must be back to zero when the test ends.
func engineService(t testing.TB, signer *Signer) (*Engine, *testutil.CountingIO) {
	t.Helper()
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		t.Fatal(err)
	}
	data := &testutil.CountingIO{Base: fileio.NewResolver()}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	rd := reader.New(data, reader.WithAllocator(mem), reader.WithBatchSize(1000), reader.WithValidation(true))
	return New(cat, rd, signer, WithAllocator(mem)), data
}

// streamed is what the stream core sent: the schema and the batches, kept.
type streamed struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
}

func (s *streamed) release() {
	for _, b := range s.batches {
		b.Release()
	}
}

func (s *streamed) rows() int64 {
	var n int64
	for _, b := range s.batches {
		n += b.NumRows()
	}
	return n
}

// streamTicket streams ticket through the engine's stream core, keeping
// what it sends.
func streamTicket(ctx context.Context, svc *Engine, ticket []byte) (*streamed, error) {
	out := new(streamed)
	err := svc.streamTicket(ctx, ticket, func(schema *arrow.Schema) error {
		if out.schema != nil {
			return errors.New("begin called twice")
		}
		out.schema = schema
		return nil
	}, func(rec arrow.RecordBatch) (int64, error) {
		if out.schema == nil {
			return 0, errors.New("write before begin")
		}
		rec.Retain()
		out.batches = append(out.batches, rec)
		return 0, nil
	})
	return out, err
}

func TestStreamTicketRefusesBadTicketsBeforeOpeningAFile(t *testing.T) {
	svc, data := engineService(t, testSigner(t, 7))
	ctx := context.Background()
	info, err := svc.PlanCommand(ctx, mustCommand(t, "samples.trips"), testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	good := info.Endpoint[0].Ticket.Ticket
	tampered := append([]byte(nil), good...)
	tampered[len(tampered)/2] ^= 0x40
	stale := testSigner(t, 7)
	stale.now = func() time.Time { return time.Now().Add(-2 * time.Minute) }
	staleSvc, _ := engineService(t, stale)
	old, err := staleSvc.PlanCommand(ctx, mustCommand(t, "samples.trips"), testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := engineService(t, testSigner(t, 8))
	foreign, err := otherKey.PlanCommand(ctx, mustCommand(t, "samples.trips"), testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		ticket []byte
		want   error
		code   codes.Code
	}{
		{"a tampered ticket is refused", tampered, ErrTicketInvalid, codes.PermissionDenied},
		{"a ticket of another key is refused", foreign.Endpoint[0].Ticket.Ticket, ErrTicketInvalid, codes.PermissionDenied},
		{"garbage is refused", []byte("SELECT 1"), ErrTicketInvalid, codes.PermissionDenied},
		{"an expired ticket is refused as expired", old.Endpoint[0].Ticket.Ticket, ErrTicketExpired, codes.Unauthenticated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := streamTicket(ctx, svc, tc.ticket)
			defer got.release()
			if !errors.Is(err, tc.want) {
				t.Fatalf("StreamTicket = %v, want %v", err, tc.want)
			}
			if code := status.Code(Status(err)); code != tc.code {
				t.Errorf("maps to %v, want %v", code, tc.code)
			}
			if got.schema != nil || len(got.batches) != 0 {
				t.Errorf("a refused ticket began a stream")
			}
			if n := data.Opens.Load(); n != 0 {
				t.Fatalf("a refused ticket opened %d data files", n)
			}
		})
	}
	// The good ticket does open files: the counter can see them.
	got, err := streamTicket(ctx, svc, good)
	got.release()
	if err != nil || data.Opens.Load() == 0 {
		t.Fatalf("the good ticket: %v, %d files opened", err, data.Opens.Load())
	}
}

func mustCommand(t *testing.T, table string) *iceflightv1.Command {
	t.Helper()
	cmd, err := ParseDescriptor(testutil.PathDesc(table))
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// replayStream gives a captured stream's messages back to a Flight reader.
type replayStream struct{ msgs []*flight.FlightData }

func (r *replayStream) Recv() (*flight.FlightData, error) {
	if len(r.msgs) == 0 {
		return nil, io.EOF
	}
	m := r.msgs[0]
	r.msgs = r.msgs[1:]
	return m, nil
}

// A front end that renames columns (Flight SQL's aliases) streams through
// the same sink as a plain DoGet: the same batches, compressed as the
// engine says, under the new names.
func TestStreamRenamesOnTheSameSink(t *testing.T) {
	ctx := context.Background()
	sent := func(c Compression, opts ...StreamOption) (*capturedStream, int) {
		eng, _ := engineService(t, testSigner(t, 7))
		eng.compression = c
		cmd := mustCommand(t, "samples.trips")
		cmd.MaxEndpoints = 1 // one stream: a reader takes one schema
		info, err := eng.PlanCommand(ctx, cmd, testutil.PathDesc("samples", "trips"))
		if err != nil {
			t.Fatal(err)
		}
		var out capturedStream
		for _, ep := range info.Endpoint {
			if err := eng.Stream(ctx, ep.Ticket.Ticket, &out, opts...); err != nil {
				t.Fatal(err)
			}
		}
		body := 0
		for _, m := range out.msgs {
			body += len(m.DataBody)
		}
		return &out, body
	}
	plain, plainBody := sent(CompressionZstd)
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"}
	first, err := flight.NewRecordReader(&replayStream{msgs: slices.Clone(plain.msgs)})
	if err != nil {
		t.Fatal(err)
	}
	names = names[:len(first.Schema().Fields())]
	first.Release()
	aliased, aliasedBody := sent(CompressionZstd, WithColumnNames(names))
	_, rawBody := sent(CompressionNone)
	if aliasedBody != plainBody || len(aliased.msgs) != len(plain.msgs) {
		t.Fatalf("renamed: %d messages of %d body bytes; plain: %d of %d", len(aliased.msgs), aliasedBody, len(plain.msgs), plainBody)
	}
	if plainBody >= rawBody {
		t.Fatalf("zstd sent %d body bytes, uncompressed %d: compression not applied", plainBody, rawBody)
	}
	rdr, err := flight.NewRecordReader(&replayStream{msgs: aliased.msgs})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	for i, f := range rdr.Schema().Fields() {
		if f.Name != names[i] {
			t.Fatalf("column %d is %q, want %q", i, f.Name, names[i])
		}
	}
	rows := int64(0)
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	if err := rdr.Err(); err != nil || rows == 0 {
		t.Fatalf("read %d rows: %v", rows, err)
	}
	wrong, _ := engineService(t, testSigner(t, 7))
	info, err := wrong.PlanCommand(ctx, mustCommand(t, "samples.trips"), testutil.PathDesc("samples", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	if err := wrong.Stream(ctx, info.Endpoint[0].Ticket.Ticket, &capturedStream{}, WithColumnNames([]string{"x"})); !errors.Is(err, ErrBadCommand) {
		t.Fatalf("one name for %d columns: %v, want ErrBadCommand", len(names), err)
	}
}
