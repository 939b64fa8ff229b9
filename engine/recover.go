package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/iceflight/iceflight/internal/panics"
)

// EndCall, deferred by every RPC handler right before
// panics.Recover(&err, method), turns the handler's error into the status
// its client gets. A recovered panic (the handler's own, or one a
// goroutine of the call carried back) is reported here, once per call;
// its message names the call's table. By the time endCall runs the
// handler's defers have given back its stream or plan slot and its Arrow
// buffers.
func (e *Engine) EndCall(ctx context.Context, err *error) {
	if *err == nil {
		return
	}
	if errors.Is(*err, panics.ErrPanic) {
		if table := CallInfoFrom(ctx).Table(); table != "" && !strings.Contains((*err).Error(), table) {
			*err = fmt.Errorf("table %s: %w", table, *err)
		}
		reportPanic(ctx, e.log, e.metrics, *err)
	}
	*err = callError(ctx, *err)
}

// endIntercepted, deferred by the call log interceptors right before
// panics.Recover, reports a panic that no handler turned into a status
// (one in an interceptor further down the chain, auth say) and makes it
// Internal, so that it too fails only its call.
func endIntercepted(ctx context.Context, log *slog.Logger, m *Metrics, err *error) {
	if errors.Is(*err, panics.ErrPanic) {
		reportPanic(ctx, log, m, *err)
		*err = Status(*err)
	}
}

// reportPanic logs a recovered panic with its stack and counts it in
// iceflight_panics_total; log and m may be nil.
func reportPanic(ctx context.Context, log *slog.Logger, m *Metrics, err error) {
	var pe *panics.Error
	if !errors.As(err, &pe) {
		return
	}
	m.Panicked(ctx)
	if log != nil {
		log.ErrorContext(ctx, "panic serving a call", "err", TruncateMessage(err.Error()), "stack", string(pe.Stack))
	}
}
