package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/client"
)

// table is a sample table and the rows its current snapshot holds
// according to the Java oracle (testdata/expected).
type table struct {
	name string
	rows int64
}

// tally is what one client, then all of them, did.
type tally struct {
	reads, errors int
	rejectedPlans int // GetFlightInfo refused: --max-plans
	rejectedReads int // DoGet refused: --max-streams
	rows, bytes   int64
	plan, read    []time.Duration
	firstErrors   []string
}

func (t *tally) add(o *tally) {
	t.reads += o.reads
	t.errors += o.errors
	t.rejectedPlans += o.rejectedPlans
	t.rejectedReads += o.rejectedReads
	t.rows += o.rows
	t.bytes += o.bytes
	t.plan = append(t.plan, o.plan...)
	t.read = append(t.read, o.read...)
	for _, e := range o.firstErrors {
		if len(t.firstErrors) < maxErrorsShown {
			t.firstErrors = append(t.firstErrors, e)
		}
	}
}

const maxErrorsShown = 5

// load runs n clients of addr, each planning and reading the tables in
// turn until ctx ends, and returns their combined tally.
func load(ctx context.Context, addr string, n, streams int, tables []table) (*tally, error) {
	clients := make([]*client.Client, n)
	for i := range clients {
		c, err := client.Dial(ctx, "grpc://"+addr, client.WithMaxWorkers(streams),
			client.WithDialOptions(grpc.WithChainUnaryInterceptor(readPushback)))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		clients[i] = c
	}
	tallies := make([]tally, n)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { runClient(ctx, c, tables, i, &tallies[i]) })
	}
	wg.Wait()
	total := &tally{}
	for i := range tallies {
		total.add(&tallies[i])
	}
	return total, nil
}

// runClient loops over the tables, starting at its own offset so the
// clients spread over them.
func runClient(ctx context.Context, c *client.Client, tables []table, id int, t *tally) {
	for i := id; !runOver(ctx); i++ {
		tb := tables[i%len(tables)]
		planned, err := readOnce(ctx, c, tb, t)
		switch {
		case err == nil:
		case runOver(ctx):
			// The run's time is up mid-read: neither a read nor an error.
			return
		case status.Code(err) == codes.ResourceExhausted:
			// The server's concurrency limit said "later": back off as
			// its retry hint asks, with jitter so clients spread out.
			if planned {
				t.rejectedReads++
			} else {
				t.rejectedPlans++
			}
			after := defaultPushback
			var rl *retryLater
			if errors.As(err, &rl) {
				after = rl.after
			}
			sleep(ctx, after+rand.N(after/2+1))
		default:
			t.errors++
			if len(t.firstErrors) < maxErrorsShown {
				t.firstErrors = append(t.firstErrors, fmt.Sprintf("%s: %v", tb.name, err))
			}
		}
	}
}

// runOver reports whether the run's time is up. gRPC times a call out on
// a timer of its own, derived from ctx's deadline, which can fire an
// instant before ctx's: a call cut by the run's end may fail with
// DeadlineExceeded while ctx.Err() is still nil, so the clock decides.
func runOver(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// defaultPushback is the wait after a rejection that came without a retry
// hint (a DoGet stream: its trailer is not read here).
const defaultPushback = 100 * time.Millisecond

// retryLater is a ResourceExhausted call and the server's retry hint.
type retryLater struct {
	err   error
	after time.Duration
}

func (e *retryLater) Error() string { return e.err.Error() }
func (e *retryLater) Unwrap() error { return e.err }

// readPushback keeps the server's grpc-retry-pushback-ms trailer (gRPC
// A6, client retries) with a rejected unary call's error.
func readPushback(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var trailer metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Trailer(&trailer))...)
	if status.Code(err) != codes.ResourceExhausted {
		return err
	}
	if v := trailer.Get("grpc-retry-pushback-ms"); len(v) > 0 {
		if ms, perr := strconv.Atoi(v[0]); perr == nil && ms >= 0 {
			return &retryLater{err: err, after: time.Duration(ms) * time.Millisecond}
		}
	}
	return err
}

// readOnce plans and reads one table and checks its row count against
// the oracle's; it reports whether planning succeeded.
func readOnce(ctx context.Context, c *client.Client, tb table, t *tally) (bool, error) {
	start := time.Now()
	p, err := c.Plan(ctx, client.Command{Table: tb.name})
	if err != nil {
		return false, err
	}
	planned := time.Now()
	var rows, bytes int64
	err = c.ScanPlan(ctx, p, func(_ int, rec arrow.RecordBatch) error {
		rows += rec.NumRows()
		bytes += recordBytes(rec)
		return nil
	})
	if err != nil {
		return true, err
	}
	if rows != tb.rows {
		return true, fmt.Errorf("read %d rows, the oracle has %d", rows, tb.rows)
	}
	t.reads++
	t.rows += rows
	t.bytes += bytes
	t.plan = append(t.plan, planned.Sub(start))
	t.read = append(t.read, time.Since(planned))
	return true, nil
}

// recordBytes is the size of a batch's Arrow buffers, children included:
// what the client decoded.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// percentile returns the p-th percentile (0 < p ≤ 100) of ds by the
// nearest-rank method; ds is sorted in place.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(float64(len(ds))*p/100+0.999999) - 1
	return ds[min(max(rank, 0), len(ds)-1)]
}
