package client

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Read plans cmd and reads every endpoint into one table, endpoints
// concatenated in plan order. The caller releases the table.
func (c *Client) Read(ctx context.Context, cmd Command) (arrow.Table, error) {
	p, err := c.Plan(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return c.ReadPlan(ctx, p)
}

// Inspect reads the metadata table kind of cmd's table ("files",
// "snapshots", "entries", "partitions" ...; see Command.MetadataTable) into
// memory; cmd's columns, filter and snapshot selection apply to it.
func (c *Client) Inspect(ctx context.Context, kind string, cmd Command) (arrow.Table, error) {
	cmd.MetadataTable = kind
	return c.Read(ctx, cmd)
}

// Scan plans cmd and calls fn with every record batch as it arrives (see
// ScanPlan). It plans with PollFlightInfo: a large plan whose manifest
// groups the server plans in parallel (Command.Tickets "files") is read
// from its first endpoints on while the rest are still being planned.
func (c *Client) Scan(ctx context.Context, cmd Command, fn func(arrow.RecordBatch) error) error {
	desc, err := cmd.Descriptor()
	if err != nil {
		return fmt.Errorf("table %s: %w", cmd.Table, err)
	}
	fc, err := c.origin()
	if err != nil {
		return err
	}
	first, err := fc.PollFlightInfo(c.outgoing(ctx), desc)
	if status.Code(err) == codes.Unimplemented {
		// A server that does not poll plans whole.
		var info *flight.FlightInfo
		if info, err = fc.GetFlightInfo(c.outgoing(ctx), desc); err == nil {
			first = &flight.PollInfo{Info: info}
		}
	}
	if err != nil {
		return withTable(cmd.Table, err)
	}
	p, err := c.planOf(cmd.Table, first.GetInfo())
	if err != nil {
		return err
	}
	q := newEndpointQueue(p.Endpoints)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		q.finish(c.pollRest(ctx, fc, cmd.Table, first, q))
	}()
	err = c.scan(ctx, p, q, func(_ int, rec arrow.RecordBatch) error { return fn(rec) })
	cancel()
	<-polled
	return err
}

// pollRest polls the plan on from its answer last until its end, adding
// each answer's new endpoints to q.
func (c *Client) pollRest(ctx context.Context, fc flight.Client, table string, last *flight.PollInfo, q *endpointQueue) error {
	seen := len(last.GetInfo().GetEndpoint())
	for last.GetFlightDescriptor() != nil {
		next, err := fc.PollFlightInfo(c.outgoing(ctx), last.GetFlightDescriptor())
		if err != nil {
			return withTable(table, err)
		}
		eps := next.GetInfo().GetEndpoint()
		if len(eps) < seen {
			return fmt.Errorf("table %s: a poll answered %d endpoints after %d", table, len(eps), seen)
		}
		q.add(eps[seen:])
		seen, last = len(eps), next
	}
	return nil
}

// endpointQueue hands the endpoints of a plan to its readers, in order, as
// they become known: all at once for a planned FlightInfo, as polls answer
// for a plan still being planned.
type endpointQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	eps    []*flight.FlightEndpoint
	next   int
	closed bool
	err    error
}

func newEndpointQueue(eps []*flight.FlightEndpoint) *endpointQueue {
	q := &endpointQueue{eps: eps}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// add appends eps.
func (q *endpointQueue) add(eps []*flight.FlightEndpoint) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.eps = append(q.eps, eps...)
	q.cond.Broadcast()
}

// finish says no endpoint follows; err, if any, fails the read.
func (q *endpointQueue) finish(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed, q.err = true, err
	q.cond.Broadcast()
}

// take returns the next endpoint and its index, waiting for one; ok is
// false once every endpoint was taken and none follows, or the plan
// failed (err).
func (q *endpointQueue) take(ctx context.Context) (i int, ep *flight.FlightEndpoint, ok bool, err error) {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.cond.Broadcast()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.next >= len(q.eps) && !q.closed && ctx.Err() == nil {
		q.cond.Wait()
	}
	switch {
	case ctx.Err() != nil:
		return 0, nil, false, nil
	case q.next < len(q.eps):
		i = q.next
		q.next++
		return i, q.eps[i], true, nil
	}
	return 0, nil, false, q.err
}

// ReadPlan reads every endpoint of p into one table, endpoints
// concatenated in plan order. The caller releases the table.
func (c *Client) ReadPlan(ctx context.Context, p *Plan) (arrow.Table, error) {
	parts := make([][]arrow.RecordBatch, len(p.Endpoints))
	release := func() {
		for _, recs := range parts {
			for _, r := range recs {
				r.Release()
			}
		}
	}
	defer release()
	err := c.ScanPlan(ctx, p, func(i int, rec arrow.RecordBatch) error {
		rec.Retain()
		parts[i] = append(parts[i], rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var all []arrow.RecordBatch
	for _, recs := range parts {
		all = append(all, recs...)
	}
	// NewTableFromRecords retains the batches; the deferred release drops ours.
	return array.NewTableFromRecords(p.Schema, all), nil
}

// indexed is a record batch and the endpoint it came from.
type indexed struct {
	endpoint int
	rec      arrow.RecordBatch
}

// ScanPlan reads the endpoints of p, at most the client's MaxWorkers at
// once, and calls fn with each record batch and the index of its endpoint,
// from the calling goroutine, one call at a time. Batches of one endpoint
// keep their order; endpoints interleave. A batch is valid only during fn:
// Retain it to keep it.
//
// Memory is bounded by the buffered batches plus one per worker. If fn
// returns an error or ctx is cancelled, every stream is cancelled and
// ScanPlan returns once all of its goroutines have stopped.
func (c *Client) ScanPlan(ctx context.Context, p *Plan, fn func(endpoint int, rec arrow.RecordBatch) error) error {
	if len(p.Endpoints) == 0 {
		return ctx.Err()
	}
	q := newEndpointQueue(p.Endpoints)
	q.finish(nil)
	return c.scan(ctx, p, q, fn)
}

// scan is ScanPlan over the endpoints q hands out.
func (c *Client) scan(ctx context.Context, p *Plan, q *endpointQueue, fn func(endpoint int, rec arrow.RecordBatch) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	recs := make(chan indexed, c.opts.buffered)
	for range c.opts.maxWorkers {
		g.Go(func() error {
			for {
				i, ep, ok, err := q.take(gctx)
				if !ok || err != nil {
					return err
				}
				err = c.readEndpoint(gctx, p, i, ep, func(rec arrow.RecordBatch) error {
					rec.Retain()
					select {
					case recs <- indexed{i, rec}:
						return nil
					case <-gctx.Done():
						rec.Release()
						return gctx.Err()
					}
				})
				if err != nil {
					return err
				}
			}
		})
	}
	// The channel's writers are the workers: close it once they are done.
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_ = g.Wait()
		close(recs)
	}()
	var fnErr error
	for r := range recs {
		// After an error or a cancel, drain what the workers already queued
		// without handing it out.
		if fnErr == nil && ctx.Err() == nil {
			if fnErr = fn(r.endpoint, r.rec); fnErr != nil {
				cancel()
			}
		}
		r.rec.Release()
	}
	<-closed
	if fnErr != nil {
		return fnErr
	}
	err := g.Wait()
	if ctx.Err() != nil {
		// The caller cancelled (only fn's error cancels ctx here otherwise):
		// report that rather than the streams' Canceled statuses.
		return fmt.Errorf("table %s: %w", p.Table, context.Cause(ctx))
	}
	return err
}

// DecodeDictionaries returns tbl with its dictionary columns (see
// Command.Dictionary) replaced by plain columns of their value type,
// allocated from mem. The caller releases the result; tbl stays the
// caller's.
func DecodeDictionaries(ctx context.Context, mem memory.Allocator, tbl arrow.Table) (arrow.Table, error) {
	ctx = compute.WithAllocator(ctx, mem)
	fields := tbl.Schema().Fields()
	cols := make([]arrow.Column, 0, tbl.NumCols())
	defer func() {
		for i := range cols {
			cols[i].Release()
		}
	}()
	for i := range int(tbl.NumCols()) {
		col := tbl.Column(i)
		dt, ok := col.DataType().(*arrow.DictionaryType)
		if !ok {
			col.Retain()
			cols = append(cols, *col)
			continue
		}
		fields[i].Type = dt.ValueType
		chunks := make([]arrow.Array, 0, len(col.Data().Chunks()))
		for _, c := range col.Data().Chunks() {
			d := c.(*array.Dictionary)
			dense, err := compute.TakeArray(ctx, d.Dictionary(), d.Indices())
			if err != nil {
				for _, done := range chunks {
					done.Release()
				}
				return nil, fmt.Errorf("decode column %s: %w", fields[i].Name, err)
			}
			chunks = append(chunks, dense)
		}
		chunked := arrow.NewChunked(dt.ValueType, chunks)
		for _, c := range chunks {
			c.Release()
		}
		cols = append(cols, *arrow.NewColumn(fields[i], chunked))
		chunked.Release()
	}
	md := tbl.Schema().Metadata()
	return array.NewTable(arrow.NewSchema(fields, &md), cols, tbl.NumRows()), nil
}
