package s3

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// DefaultMaxConcurrentRequests bounds the requests in flight to S3 from one
// process unless SetMaxConcurrentRequests says otherwise: enough to keep a
// store's latency hidden behind a few dozen parallel scans, few enough that
// a burst of tickets does not exhaust file descriptors or earn throttling.
const DefaultMaxConcurrentRequests = 64

// requests is the process-wide limit every FileIO of this package shares:
// catalogs and the reader each hold their own FileIO, but the store, the
// network and the descriptors they use are one.
var requests atomic.Pointer[semaphore.Weighted]

func init() { SetMaxConcurrentRequests(DefaultMaxConcurrentRequests) }

// SetMaxConcurrentRequests sets the most S3 requests (a GET with its body,
// a HEAD, a LIST page, an upload part) that the process sends at once; n
// below 1 means 1. Requests under way keep the slot of the old limit.
func SetMaxConcurrentRequests(n int) {
	requests.Store(semaphore.NewWeighted(int64(max(n, 1))))
}

// acquire waits for a request slot, or for ctx to end, and returns what
// gives the slot back.
func acquire(ctx context.Context) (release func(), err error) {
	sem := requests.Load()
	if err := sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	return func() { sem.Release(1) }, nil
}
