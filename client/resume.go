package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Resuming a broken stream rests on one property of the server: a ticket's
// stream is deterministic. flight.Service.doGet reads the ticket's tasks one
// after another in ticket order, each through reader.Reader.Read, which
// reads the task's data file (immutable, as every Iceberg data file is) row
// group by row group in file order and removes deleted and filtered rows
// row by row; the ticket's row limit cuts after the same row every time.
// So any location that redeems the ticket sends the same rows in the same
// order. Only the batch boundaries may differ (a worker's batch size, the
// 2 MiB message bound), which is why a resumed read counts rows, not
// batches.

// resumeBackoff is how long a read waits before it redeems a ticket at a
// location that already failed it in this read: enough for a restarting
// worker or a proxy to move on, little against a stream's length.
var resumeBackoff = 100 * time.Millisecond

// readEndpoint streams endpoint i, trying its locations in order. When a
// stream breaks with a retryable error (see retryable) the ticket is
// redeemed at the next location, wrapping around the list, and the rows
// already delivered are skipped, so that each row is delivered exactly
// once. A break after new rows lets every location (the broken one last)
// try once more; a single location is retried once after resumeBackoff.
// Any other error, or the caller's cancellation, ends the read at once.
func (c *Client) readEndpoint(ctx context.Context, p *Plan, i int, ep *flight.FlightEndpoint, emit func(arrow.RecordBatch) error) error {
	locs := make([]string, 0, len(ep.GetLocation()))
	for _, l := range ep.GetLocation() {
		locs = append(locs, l.GetUri())
	}
	if len(locs) == 0 {
		// Flight RPC: no location means the service the plan came from.
		locs = []string{ReuseConnection}
	}
	tries := len(locs) // attempts left without a new row
	if tries == 1 {
		tries = 2
	}
	var (
		delivered int64 // rows of the endpoint handed to emit
		failures  []error
	)
	for attempt := 0; tries > 0; attempt++ {
		loc := locs[attempt%len(locs)]
		if attempt >= len(locs) {
			// The location failed this read before: give it a moment.
			if err := sleep(ctx, resumeBackoff); err != nil {
				return withTable(p.Table, fmt.Errorf("endpoint %d: %w", i, err))
			}
		}
		tries--
		n, err := c.readFrom(ctx, p, loc, ep.GetTicket(), delivered, emit)
		delivered += n
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !retryable(err) {
			return withTable(p.Table, fmt.Errorf("endpoint %d at %s after %d rows: %w", i, loc, delivered, err))
		}
		if n > 0 {
			// Progress: every location gets one more turn, the broken one
			// last; a single location, one retry.
			tries = len(locs)
			failures = failures[:0]
		}
		failures = append(failures, fmt.Errorf("%s after %d rows: %w", loc, delivered, err))
	}
	return fmt.Errorf("table %s: endpoint %d: %w: %w", p.Table, i, ErrEndpointUnavailable, errors.Join(failures...))
}

// readFrom redeems ticket at one location, skips the first skip rows of its
// stream (delivered before by a stream that broke) and emits the rest. It
// returns how many rows it emitted.
func (c *Client) readFrom(ctx context.Context, p *Plan, loc string, ticket *flight.Ticket, skip int64, emit func(arrow.RecordBatch) error) (int64, error) {
	fc, err := c.conns.get(loc)
	if err != nil {
		return 0, err
	}
	// The stream's own context: returning early (emit failed) cancels the
	// call at once instead of leaving it to the caller's context.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := fc.DoGet(c.outgoing(ctx), ticket)
	if err != nil {
		return 0, err
	}
	rdr, err := flight.NewRecordReader(stream, ipc.WithAllocator(c.opts.mem))
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	// A resumed stream is checked as the first one was: skipping rows is
	// only right on the same schema.
	if !rdr.Schema().Equal(p.Schema) {
		return 0, fmt.Errorf("%w: %v, plan %v", ErrSchemaMismatch, rdr.Schema(), p.Schema)
	}
	var seen, emitted int64 // rows read from this stream, rows emitted
	for rdr.Next() {
		if c.onRecord != nil {
			c.onRecord()
		}
		rec := rdr.RecordBatch()
		n := rec.NumRows()
		seen += n
		if seen <= skip {
			continue // delivered before the break
		}
		if from := n - (seen - skip); from > 0 {
			// The batch straddles the resume point: emit its new rows as a
			// slice, which shares the batch's buffers.
			part := rec.NewSlice(from, n)
			err := emit(part)
			part.Release()
			if err != nil {
				return emitted, err
			}
			emitted += n - from
			continue
		}
		if err := emit(rec); err != nil {
			return emitted, err
		}
		emitted += n
	}
	if err := rdr.Err(); err != nil {
		return emitted, err
	}
	if seen < skip {
		return emitted, fmt.Errorf("%w: %s sent %d rows, %d were delivered before", ErrResumeDiverged, loc, seen, skip)
	}
	return emitted, nil
}

// transportBreaks are the messages of codes.Internal statuses that report
// a connection or stream cut under the call rather than a server bug: a
// peer or proxy resetting the HTTP/2 stream (grpc-go "stream terminated by
// RST_STREAM", gRPC C++ "Received RST_STREAM"), a stream that ended without
// a gRPC status (grpc-go, e.g. a proxy whose upstream died), and a closed
// or reset connection.
var transportBreaks = []string{
	"RST_STREAM",
	"server closed the stream without sending trailers",
	"transport is closing",
	"connection reset",
	"error reading from server",
}

// retryable reports whether a failed stream may be redeemed again, at this
// location or another: Unavailable (a location that is down, a storage
// outage, a connection lost; grpc-go reports a server killed mid-stream as
// Unavailable "error reading from server: EOF") and the transport-level
// Internal statuses above. Everything else is an answer the next location
// would repeat: PermissionDenied and Unauthenticated (an expired ticket
// stays expired), NotFound, InvalidArgument, a schema mismatch, any other
// Internal; the caller's cancellation is checked before.
func retryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// The status as the transport made it: status.FromError would put
	// the wrapping messages (file and table names) into the message.
	var gs interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &gs) || gs.GRPCStatus() == nil {
		return false
	}
	s := gs.GRPCStatus()
	switch s.Code() {
	case codes.Unavailable:
		return true
	case codes.Internal:
		for _, m := range transportBreaks {
			if strings.Contains(s.Message(), m) {
				return true
			}
		}
	}
	return false
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
