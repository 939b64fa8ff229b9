// Package panics turns a panic in a goroutine that serves a call into an
// error carried back to that call. A panic that no goroutine recovers ends
// the process, and recover works only in the goroutine that panicked, so
// every goroutine a call starts defers Recover (or runs through Func) and
// hands the error to whoever waits for it; the call then fails alone.
package panics

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrPanic marks an error that stands for a recovered panic; match it with
// errors.Is, and use errors.As with *Error for the stack.
var ErrPanic = errors.New("panic")

// Error is a recovered panic: what the goroutine was doing, the value it
// panicked with and its stack at the panic.
type Error struct {
	// Op names the work and the object involved ("read data file s3://…").
	Op string
	// Value is what was passed to panic.
	Value any
	// Stack is the panicking goroutine's stack, as debug.Stack formats it.
	Stack []byte
}

// Error returns the operation and the panic value, without the stack: the
// message reaches clients, the stack belongs in the server's log.
func (e *Error) Error() string {
	if e.Op == "" {
		return fmt.Sprintf("panic: %v", e.Value)
	}
	return fmt.Sprintf("%s: panic: %v", e.Op, e.Value)
}

// Is reports whether target is ErrPanic.
func (e *Error) Is(target error) bool { return target == ErrPanic }

// Recover, deferred, turns a panic of the calling goroutine into an *Error
// stored in *err, so that the deferring function returns it instead of
// ending the process. op names the work for the error message. Without a
// panic it leaves *err alone. It must be deferred directly
// (defer panics.Recover(&err, op)): recover works only there.
func Recover(err *error, op string) {
	v := recover()
	if v == nil {
		return
	}
	*err = &Error{Op: op, Value: v, Stack: debug.Stack()}
}

// Func returns f made safe to run in a goroutine of its own (an errgroup's
// Go, say): a panic in f becomes its *Error result.
func Func(op string, f func() error) func() error {
	return func() (err error) {
		defer Recover(&err, op)
		return f()
	}
}
