package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/reader"
)

func TestCallErrorCodes(t *testing.T) {
	t.Parallel()
	live := context.Background()
	gone, cancel := context.WithCancel(live)
	cancel()
	panicked := panics.Func("read data file d.parquet", func() error { panic("bug") })()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want codes.Code
	}{
		{"a corrupt data file is the table's fault", live, fmt.Errorf("table db.t: %w", fmt.Errorf("parquet footer of d.parquet: %w", reader.ErrCorruptFile)), codes.FailedPrecondition},
		{"a corrupt deletion vector is the table's fault", live, fmt.Errorf("table db.t: %w", reader.ErrCorruptDeletionVector), codes.FailedPrecondition},
		{"a failed Send after the client cancelled is Canceled", gone, fmt.Errorf("table db.t: %w", errors.New("arrow/ipc: could not write message: transport is closing")), codes.Canceled},
		{"a status wrapped by the layers below keeps its code", live, fmt.Errorf("write: %w", status.Error(codes.Unavailable, "transport is closing")), codes.Unavailable},
		{"a panic is Internal", live, panicked, codes.Internal},
		{"a panic stays Internal after the client left", gone, panicked, codes.Internal},
		{"storage that refuses its credentials is PermissionDenied", live, fmt.Errorf("table db.t: open s3://b/d.parquet: %w", fileio.ErrPermissionDenied), codes.PermissionDenied},
		{"a storage outage is Unavailable", live, fmt.Errorf("table db.t: read s3://b/d.parquet: %w", fileio.ErrUnavailable), codes.Unavailable},
		{"a missing object is NotFound", live, fmt.Errorf("table db.t: open s3://b/d.parquet: %w", fileio.ErrNotFound), codes.NotFound},
		{"a refused read of a corrupt-looking file stays PermissionDenied", live, fmt.Errorf("table db.t: %w", errors.Join(reader.ErrCorruptFile, fileio.ErrPermissionDenied)), codes.PermissionDenied},
		{"an unknown error is Internal", live, errors.New("something"), codes.Internal},
		{"a catalog that refused its credentials is PermissionDenied", live, fmt.Errorf("rest catalog %q: %w", "lake", catalog.ErrCatalogPermissionDenied), codes.PermissionDenied},
		{"a catalog that is down is Unavailable", live, fmt.Errorf("rest catalog %q: %w", "lake", catalog.ErrCatalogUnavailable), codes.Unavailable},
		{"a catalog outside its protocol is FailedPrecondition", live, fmt.Errorf("rest catalog %q: %w", "lake", catalog.ErrCatalogProtocol), codes.FailedPrecondition},
		{"a missing namespace is NotFound", live, fmt.Errorf("rest catalog %q: %w", "lake", catalog.ErrNamespaceNotFound), codes.NotFound},
		{"a catalog's hanging request past the call's deadline is DeadlineExceeded", live, fmt.Errorf("rest catalog %q: %w", "lake", context.DeadlineExceeded), codes.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := status.Code(callError(tt.ctx, tt.err)); got != tt.want {
				t.Errorf("code %s, want %s", got, tt.want)
			}
		})
	}
}

func TestStatusMessagesAreBounded(t *testing.T) {
	t.Parallel()
	filter := strings.Repeat("(id = 1 OR ", 600_000) // 6.6 MB, as a huge filter echoed by a parse error
	for _, err := range []error{
		fmt.Errorf("table db.t: filter %q: %w", filter, ErrBadCommand),
		status.Error(codes.InvalidArgument, filter),
		fmt.Errorf("é%s", strings.Repeat("€", MaxStatusMessageBytes)), // a cut inside a multi-byte rune
	} {
		st := status.Convert(Status(err))
		if n := len(st.Message()); n > MaxStatusMessageBytes+64 {
			t.Errorf("message of %d bytes, want at most about %d", n, MaxStatusMessageBytes)
		}
		if !utf8.ValidString(st.Message()) || !strings.Contains(st.Message(), "more bytes)") {
			t.Errorf("cut message %q… is not valid UTF-8 or does not say it was cut", st.Message()[:40])
		}
	}
	if msg := TruncateMessage("short"); msg != "short" {
		t.Errorf("a short message became %q", msg)
	}
}
