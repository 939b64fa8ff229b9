package flight

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/internal/panics"
)

// endCall, deferred by every RPC handler right before
// panics.Recover(&err, method), turns the handler's error into the status
// its client gets. A recovered panic (the handler's own, or one a
// goroutine of the call carried back) is logged here with its stack, once
// per call, and counted; its message names the call's table. By the time
// endCall runs the handler's defers have given back its stream or plan
// slot and its Arrow buffers.
func (s *Service) endCall(ctx context.Context, err *error) {
	if *err == nil {
		return
	}
	var pe *panics.Error
	if errors.As(*err, &pe) {
		if table := CallInfoFrom(ctx).Table(); table != "" && !strings.Contains((*err).Error(), table) {
			*err = fmt.Errorf("table %s: %w", table, *err)
		}
		s.metrics.Panicked(ctx)
		s.log.ErrorContext(ctx, "panic serving a call", "err", truncateMessage((*err).Error()), "stack", string(pe.Stack))
	}
	*err = callError(ctx, *err)
}
