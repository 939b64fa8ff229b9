package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
)

func TestTransient(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "x"}}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"no error is not transient", nil, false},
		{"a refused connection is transient", fmt.Errorf("get: %w", syscall.ECONNREFUSED), true},
		{"a reset connection is transient", &url.Error{Op: "Get", URL: "http://x", Err: syscall.ECONNRESET}, true},
		{"a body cut short is transient", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"a network error is transient", refused, true},
		{"the caller's cancellation is not transient", &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}, false},
		{"the caller's deadline is not transient", fmt.Errorf("read: %w", context.DeadlineExceeded), false},
		{"a server's answer is not transient", errors.New("403 Forbidden"), false},
		{"a request's error is judged by what it wraps", &url.Error{Op: "Get", URL: "http://x", Err: errors.New("cannot fetch token")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Transient(tc.err); got != tc.want {
				t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
