package engine

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/changelog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/internal/panics"
	"github.com/iceflight/iceflight/metatable"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/writer"
	"github.com/iceflight/iceflight/writer/datafile"
)

// Status maps an error from any layer to the gRPC status a client can
// act on. It is the only place where errors become status codes; the
// message keeps the wrapped context, which names the table or file.
func Status(err error) error {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok && !isWrapped(err) {
		if len(st.Message()) <= MaxStatusMessageBytes {
			return err
		}
		return status.Error(st.Code(), TruncateMessage(st.Message()))
	}
	return status.Error(Code(err), TruncateMessage(err.Error()))
}

// callError is Status for the error a call ends with. Once the call's
// context is done (the client cancelled or went away, its deadline passed,
// or a drain cut the stream), whatever failed on the way out (a Send, a
// read, an IPC write) failed because of that: the call ends Canceled or
// DeadlineExceeded, which is no server fault. A panic stays Internal.
func callError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && err != nil && !errors.Is(err, panics.ErrPanic) {
		return status.Error(status.FromContextError(cerr).Code(), TruncateMessage(err.Error()))
	}
	return Status(err)
}

// MaxStatusMessageBytes bounds a status message and the error of a call's log
// line: an error may echo what the client sent (a filter of megabytes),
// and a client needs only its start to tell what went wrong.
const MaxStatusMessageBytes = 2048

// TruncateMessage cuts msg to at most about MaxStatusMessageBytes, at a rune
// boundary, saying how much was cut.
func TruncateMessage(msg string) string {
	if len(msg) <= MaxStatusMessageBytes {
		return msg
	}
	cut := MaxStatusMessageBytes
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", msg[:cut], len(msg)-cut)
}

// isWrapped reports whether err is not itself a status error (status.FromError
// also unwraps, which would lose our context).
func isWrapped(err error) bool {
	_, ok := err.(interface{ GRPCStatus() *status.Status })
	return !ok
}

// Code is the gRPC code Status gives err.
func Code(err error) codes.Code {
	switch {
	case errors.Is(err, panics.ErrPanic):
		return codes.Internal
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, errOverloaded):
		return codes.ResourceExhausted
	case errors.Is(err, errNoWorkers):
		return codes.Unavailable
	case errors.Is(err, errWrongRole):
		return codes.Unimplemented
	case errors.Is(err, ErrWorkerWrite), errors.Is(err, catalog.ErrReadOnly), errors.Is(err, catalog.ErrNamespaceNotEmpty):
		// A write sent to a process or catalog that cannot take it: the
		// message says where to send it instead.
		return codes.FailedPrecondition
	case errors.Is(err, catalog.ErrTableExists), errors.Is(err, catalog.ErrNamespaceExists):
		return codes.AlreadyExists
	case errors.Is(err, catalog.ErrCommitStateUnknown):
		// The commit may or may not have happened: Unknown, so a client
		// looks at the table before it retries, which Aborted would not
		// make it do.
		return codes.Unknown
	case errors.Is(err, catalog.ErrCommitConflict), errors.Is(err, iceberg.ErrRequirementFailed):
		// Lost every retry to concurrent writers: nothing changed, and the
		// client may retry the whole call.
		return codes.Aborted
	case errors.Is(err, datafile.ErrSchemaMismatch), errors.Is(err, ErrPutTooLarge), errors.Is(err, writer.ErrInvalidArgument):
		return codes.InvalidArgument
	case errors.Is(err, writer.ErrUnsupported), errors.Is(err, catalog.ErrUnsupported):
		return codes.Unimplemented
	case errors.Is(err, catalog.ErrInvalidProperties):
		return codes.InvalidArgument
	case errors.Is(err, catalog.ErrCatalogPermissionDenied):
		// A catalog server that refused its credentials: the message names
		// the catalog, never the token.
		return codes.PermissionDenied
	case errors.Is(err, catalog.ErrCatalogUnavailable):
		return codes.Unavailable
	case errors.Is(err, catalog.ErrCatalogProtocol):
		// A catalog that answers outside its protocol will not do better on
		// retry.
		return codes.FailedPrecondition
	case errors.Is(err, catalog.ErrNamespaceNotFound):
		return codes.NotFound
	case errors.Is(err, ErrTicketExpired), errors.Is(err, errUnauthenticated):
		return codes.Unauthenticated
	case errors.Is(err, ErrTicketInvalid), errors.Is(err, errNotAuthorized),
		errors.Is(err, catalog.ErrOutsideWarehouse), errors.Is(err, catalog.ErrOtherTable),
		errors.Is(err, fileio.ErrOutsideRoot), errors.Is(err, fileio.ErrPermissionDenied):
		// Storage that refused its credentials: the message names the bucket
		// and the credential source, which a back end wraps, never a secret.
		return codes.PermissionDenied
	case errors.Is(err, errNotYet), errors.Is(err, planner.ErrUnsupported), errors.Is(err, reader.ErrUnsupported),
		errors.Is(err, iceberg.ErrUnsupportedVersion), errors.Is(err, fileio.ErrUnsupportedScheme):
		return codes.Unimplemented
	case errors.Is(err, ErrBadCommand), errors.Is(err, errTooLarge), errors.Is(err, catalog.ErrInvalidIdentifier),
		errors.Is(err, planner.ErrInvalidRequest), errors.Is(err, iceberg.ErrFieldNotFound),
		errors.Is(err, expr.ErrInvalidFilter), errors.Is(err, metatable.ErrUnknownKind), errors.Is(err, metatable.ErrNoTimeTravel),
		errors.Is(err, changelog.ErrInvalidRequest):
		return codes.InvalidArgument
	case errors.Is(err, catalog.ErrTableNotFound), errors.Is(err, iceberg.ErrSnapshotNotFound),
		errors.Is(err, fileio.ErrNotFound), errors.Is(err, changelog.ErrSnapshotNotFound), errors.Is(err, changelog.ErrSnapshotExpired):
		return codes.NotFound
	case errors.Is(err, fileio.ErrUnavailable):
		return codes.Unavailable
	case errors.Is(err, iceberg.ErrInvalidMetadata), errors.Is(err, reader.ErrSchemaMismatch), errors.Is(err, reader.ErrInvalidTask),
		errors.Is(err, reader.ErrCorruptFile), errors.Is(err, reader.ErrCorruptDeletionVector),
		errors.Is(err, fileio.ErrTooLarge), errors.Is(err, fileio.ErrNotRegular), errors.Is(err, errNoProfile),
		errors.Is(err, changelog.ErrGroupTooLarge), errors.Is(err, changelog.ErrDuplicateIdentifier):
		// Metadata or data files that break the spec are the table's fault,
		// not a bug here, and retrying will not help.
		return codes.FailedPrecondition
	}
	// A status from below (a Send that failed, wrapped by the IPC writer)
	// keeps its code.
	var st interface{ GRPCStatus() *status.Status }
	if errors.As(err, &st) {
		return st.GRPCStatus().Code()
	}
	return codes.Internal
}

// ErrPutTooLarge is a DoPut stream past the server's byte bound; it maps
// to InvalidArgument.
var ErrPutTooLarge = errors.New("DoPut stream too large")

// ErrWorkerWrite is a write sent to a worker process, which has no
// catalog to commit to; it maps to FailedPrecondition.
var ErrWorkerWrite = errors.New("writes are not served by a worker")

// ErrReadOnly is a write refused by this server's configuration; it maps
// to FailedPrecondition like catalog.ErrReadOnly, which it wraps.
var ErrReadOnly = fmt.Errorf("server is read-only: %w", catalog.ErrReadOnly)
