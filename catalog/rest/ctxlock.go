package rest

import "context"

// ctxLock is a mutex whose Lock gives up when the caller's context ends:
// a call waiting behind another's hanging request (the catalog's config,
// a token) must still end at its own deadline.
type ctxLock chan struct{}

func newCtxLock() ctxLock { return make(ctxLock, 1) }

// lock takes the lock, or returns ctx's error if ctx ends first.
func (l ctxLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l ctxLock) unlock() { <-l }
