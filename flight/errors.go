package flight

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// statusError maps an error from any layer to the gRPC status a client can
// act on. It is the only place where errors become status codes; the
// message keeps the wrapped context, which names the table or file.
func statusError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok && !isWrapped(err) {
		return err
	}
	return status.Error(codeOf(err), err.Error())
}

// isWrapped reports whether err is not itself a status error (status.FromError
// also unwraps, which would lose our context).
func isWrapped(err error) bool {
	_, ok := err.(interface{ GRPCStatus() *status.Status })
	return !ok
}

func codeOf(err error) codes.Code {
	switch {
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
	case errors.Is(err, errTicketExpired), errors.Is(err, errUnauthenticated):
		return codes.Unauthenticated
	case errors.Is(err, errTicketInvalid), errors.Is(err, errNotAuthorized),
		errors.Is(err, catalog.ErrOutsideWarehouse), errors.Is(err, catalog.ErrOtherTable),
		errors.Is(err, fileio.ErrOutsideRoot):
		return codes.PermissionDenied
	case errors.Is(err, errNotYet), errors.Is(err, planner.ErrUnsupported), errors.Is(err, reader.ErrUnsupported),
		errors.Is(err, iceberg.ErrUnsupportedVersion), errors.Is(err, fileio.ErrUnsupportedScheme):
		return codes.Unimplemented
	case errors.Is(err, errBadCommand), errors.Is(err, catalog.ErrInvalidIdentifier),
		errors.Is(err, planner.ErrInvalidRequest), errors.Is(err, iceberg.ErrFieldNotFound),
		errors.Is(err, expr.ErrInvalidFilter):
		return codes.InvalidArgument
	case errors.Is(err, catalog.ErrTableNotFound), errors.Is(err, iceberg.ErrSnapshotNotFound),
		errors.Is(err, fileio.ErrNotFound):
		return codes.NotFound
	case errors.Is(err, fileio.ErrUnavailable):
		return codes.Unavailable
	case errors.Is(err, iceberg.ErrInvalidMetadata), errors.Is(err, reader.ErrSchemaMismatch), errors.Is(err, reader.ErrInvalidTask),
		errors.Is(err, fileio.ErrNotRegular):
		// Metadata or data files that break the spec are the table's fault,
		// not a bug here, and retrying will not help.
		return codes.FailedPrecondition
	}
	return codes.Internal
}
