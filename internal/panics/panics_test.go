package panics

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"
)

func TestRecover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		f       func() error
		wantErr string
		panic   bool
	}{
		{"a panic becomes an error naming the operation", func() error { panic("boom") }, "read x: panic: boom", true},
		{"a runtime error keeps its message", func() error {
			var s []int
			_ = s[3]
			return nil
		}, "read x: panic: runtime error: index out of range [3] with length 0", true},
		{"panic(nil) is still a panic", func() error { panic(nil) }, "read x: panic: panic called with nil argument", true},
		{"an error without a panic passes as is", func() error { return errors.New("plain") }, "plain", false},
		{"no error without a panic", func() error { return nil }, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Func("read x", tt.f)()
			if got := errString(err); !strings.HasPrefix(got, tt.wantErr) {
				t.Fatalf("error %q, want %q", got, tt.wantErr)
			}
			if errors.Is(err, ErrPanic) != tt.panic {
				t.Fatalf("errors.Is(%v, ErrPanic) = %v, want %v", err, !tt.panic, tt.panic)
			}
			var pe *Error
			if tt.panic && (!errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "panics_test.go")) {
				t.Fatalf("the error of a panic carries no stack of the panicking code: %#v", err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestPanicInAGroupGoroutineFailsTheGroup checks the case Recover exists
// for: a panic in a goroutine other than the waiting one, which would end
// the process, reaches Wait as an error and cancels the group.
func TestPanicInAGroupGoroutineFailsTheGroup(t *testing.T) {
	t.Parallel()
	g, ctx := errgroup.WithContext(t.Context())
	g.Go(Func("read manifest m1.avro", func() error { panic("corrupt") }))
	g.Go(func() error { <-ctx.Done(); return ctx.Err() })
	err := g.Wait()
	if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "m1.avro") {
		t.Fatalf("Wait returned %v, want the panic naming m1.avro", err)
	}
}

func TestErrorWrappedKeepsItsStack(t *testing.T) {
	t.Parallel()
	err := Func("", func() error { panic(errors.New("inner")) })()
	wrapped := errors.Join(errors.New("table db.t"), err)
	var pe *Error
	if !errors.As(wrapped, &pe) || pe.Value.(error).Error() != "inner" || len(pe.Stack) == 0 {
		t.Fatalf("errors.As lost the panic: %v", wrapped)
	}
	if err.Error() != "panic: inner" {
		t.Fatalf("message %q", err.Error())
	}
}
