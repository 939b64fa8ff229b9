package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// errOverloaded is a call refused because a concurrency limit is reached;
// it maps to ResourceExhausted.
var errOverloaded = errors.New("server busy")

// Default concurrency limits per process.
const (
	DefaultMaxStreams = 64
	DefaultMaxPlans   = 16
)

// retryPushback is the hint sent with a refused call. gRPC clients with a
// retry policy honour the grpc-retry-pushback-ms trailer; others see the
// delay in the message.
const retryPushback = 250 * time.Millisecond

// Limiter bounds concurrent calls of one kind. A call over the bound is
// refused at once rather than queued: a queue would hold the client's
// resources and hide the overload from its load balancer.
type Limiter struct {
	kind  string
	slots chan struct{}
}

// NewLimiter returns a Limiter of n concurrent calls of kind (named in
// its refusals); n <= 0 is unbounded, a nil Limiter.
func NewLimiter(kind string, n int) *Limiter {
	if n <= 0 {
		return nil // unbounded
	}
	return &Limiter{kind: kind, slots: make(chan struct{}, n)}
}

// Acquire takes a slot or fails with errOverloaded after setting the retry
// trailer on ctx's call. The returned func gives the slot back.
func (l *Limiter) Acquire(ctx context.Context) (func(), error) {
	if l == nil {
		return func() {}, nil
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots }, nil
	default:
	}
	ms := strconv.FormatInt(retryPushback.Milliseconds(), 10)
	// Fails only outside a gRPC call (unit tests), where there is no trailer.
	_ = grpc.SetTrailer(ctx, metadata.Pairs("grpc-retry-pushback-ms", ms))
	return nil, fmt.Errorf("%w: %d concurrent %s calls already running; retry in %s", errOverloaded, cap(l.slots), l.kind, retryPushback)
}
