package restcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/iceberg"
)

// Errors of requests this package refuses itself.
var (
	// errBadRequest is a request that breaks the API: malformed JSON, a
	// missing member, a bad path or parameter.
	errBadRequest = errors.New("bad request")
	// errNotImplemented is a route of the API this server does not serve.
	errNotImplemented = errors.New("not implemented")
	// errNoSuchPlan is a plan id or plan task that is unknown or gone.
	errNoSuchPlan = errors.New("no such plan")
	// errUnsupported is an operation the catalog behind a prefix cannot
	// do, answered 406 as Iceberg Java's server answers
	// UnsupportedOperationException.
	errUnsupported = errors.New("unsupported operation")
	// errTooLarge is a request body past the server's bound.
	errTooLarge = errors.New("request body too large")
	// errMethod is a known path asked with a method it does not serve.
	errMethod = errors.New("method not allowed")
	// errBusy is a request refused for want of room (too many plans).
	errBusy = errors.New("server busy")
	// errForbidden is a caller whose grants do not cover what it asked.
	errForbidden = errors.New("not authorized")
)

// subject says what a route is about, so that a NotFound names the right
// kind of object: a missing namespace is NoSuchNamespaceException, a
// missing table NoSuchTableException, as clients tell them apart by type.
type subject int

const (
	aboutNamespace subject = iota
	aboutTable
	aboutPlan
	aboutView
)

// errorModel is the REST API's IcebergErrorResponse.
type errorModel struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
}

// classify maps err to the HTTP status and exception type of the REST
// error model. The catalog's own errors come first, as they are finer than
// the gRPC code the engine gives them (a conflict and an existing table
// are both 409 with different types); the rest follows the engine's Code,
// so that an error means the same on every front end.
func classify(err error, about subject) (int, string) {
	switch {
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, "BadRequestException"
	case errors.Is(err, errBadRequest):
		return http.StatusBadRequest, "BadRequestException"
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable, "ServiceUnavailableException"
	case errors.Is(err, errForbidden):
		return http.StatusForbidden, "ForbiddenException"
	case errors.Is(err, errMethod):
		return http.StatusMethodNotAllowed, "BadRequestException"
	case errors.Is(err, errNotImplemented):
		return http.StatusNotImplemented, "UnsupportedOperationException"
	case errors.Is(err, errUnsupported), errors.Is(err, catalog.ErrUnsupported):
		return http.StatusNotAcceptable, "UnsupportedOperationException"
	case errors.Is(err, catalog.ErrInvalidProperties):
		return http.StatusUnprocessableEntity, "UnprocessableEntityException"
	case errors.Is(err, errNoRoute):
		return http.StatusNotFound, "NotFoundException"
	case errors.Is(err, errNoSuchPlan):
		return http.StatusNotFound, "NoSuchPlanIdException"
	case errors.Is(err, catalog.ErrCommitStateUnknown):
		// Iceberg Java's and PyIceberg's clients take 502 on a commit as
		// CommitStateUnknownException: they must not clean up.
		return http.StatusBadGateway, "CommitStateUnknownException"
	case errors.Is(err, iceberg.ErrRequirementFailed), errors.Is(err, catalog.ErrCommitConflict):
		return http.StatusConflict, "CommitFailedException"
	case errors.Is(err, catalog.ErrTableExists), errors.Is(err, catalog.ErrNamespaceExists):
		return http.StatusConflict, "AlreadyExistsException"
	case errors.Is(err, catalog.ErrNamespaceNotEmpty):
		return http.StatusConflict, "NamespaceNotEmptyException"
	case errors.Is(err, catalog.ErrTableNotFound):
		// A table looked up in a missing namespace wraps both; it is the
		// table the client asked for, as in Iceberg Java's server.
		if about == aboutView {
			return http.StatusNotFound, "NoSuchViewException"
		}
		return http.StatusNotFound, "NoSuchTableException"
	case errors.Is(err, catalog.ErrNamespaceNotFound):
		return http.StatusNotFound, "NoSuchNamespaceException"
	case errors.Is(err, iceberg.ErrInvalidMetadata) && about != aboutPlan:
		// A create or commit whose updates do not apply: the client's
		// request is at fault (a plan's is the table's).
		return http.StatusBadRequest, "BadRequestException"
	}
	switch engine.Code(err) {
	case codes.InvalidArgument:
		return http.StatusBadRequest, "BadRequestException"
	case codes.Unauthenticated:
		return http.StatusUnauthorized, "NotAuthorizedException"
	case codes.PermissionDenied:
		return http.StatusForbidden, "ForbiddenException"
	case codes.NotFound:
		return http.StatusNotFound, "NotFoundException"
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict, "CommitFailedException"
	case codes.FailedPrecondition:
		// A read-only server or catalog, or a table whose files break
		// the spec: nothing the client can fix by asking again.
		if errors.Is(err, catalog.ErrReadOnly) {
			return http.StatusForbidden, "ForbiddenException"
		}
		return http.StatusUnprocessableEntity, "UnprocessableEntityException"
	case codes.Unimplemented:
		return http.StatusNotAcceptable, "UnsupportedOperationException"
	case codes.ResourceExhausted, codes.Unavailable:
		return http.StatusServiceUnavailable, "ServiceUnavailableException"
	case codes.Canceled, codes.DeadlineExceeded:
		return http.StatusServiceUnavailable, "ServiceUnavailableException"
	case codes.Unknown:
		return http.StatusBadGateway, "CommitStateUnknownException"
	}
	return http.StatusInternalServerError, "InternalServerError"
}

// writeError answers err in the REST error model and returns the status
// it answered. The message keeps the wrapped context, which names the
// table or namespace, cut to the engine's bound as a gRPC status would be.
func writeError(w http.ResponseWriter, err error, about subject, names subjectNames) int {
	var a *answered
	if errors.As(err, &a) {
		return a.code
	}
	code, typ := classify(err, about)
	msg := engine.TruncateMessage(err.Error())
	if lead := leadSentence(err, typ, names); lead != "" {
		msg = lead + " (" + msg + ")"
	}
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, code, errorModel{Error: errorBody{Message: msg, Type: typ, Code: code}})
	return code
}

// grpcCodes are the gRPC codes the call log records for the statuses
// this server answers, so that REST calls are counted with the same codes
// as the Flight front ends' (a 404 is NotFound on every front end).
var grpcCodes = map[int]codes.Code{
	http.StatusBadRequest:            codes.InvalidArgument,
	http.StatusUnauthorized:          codes.Unauthenticated,
	http.StatusForbidden:             codes.PermissionDenied,
	http.StatusNotFound:              codes.NotFound,
	http.StatusMethodNotAllowed:      codes.Unimplemented,
	http.StatusNotAcceptable:         codes.Unimplemented,
	http.StatusConflict:              codes.Aborted,
	http.StatusRequestEntityTooLarge: codes.ResourceExhausted,
	http.StatusUnprocessableEntity:   codes.FailedPrecondition,
	http.StatusNotImplemented:        codes.Unimplemented,
	http.StatusBadGateway:            codes.Unknown,
	http.StatusServiceUnavailable:    codes.Unavailable,
}

// logStatus is the status the call log records for a call that failed
// with err, answered code.
func logStatus(err error, code int) error {
	c, ok := grpcCodes[code]
	if !ok {
		c = codes.Internal
	}
	return status.Error(c, err.Error())
}

// writeJSON answers v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		body, _ = json.Marshal(errorModel{Error: errorBody{Message: "encode response: " + err.Error(), Type: "InternalServerError", Code: code}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// badRequest returns an error wrapping errBadRequest.
func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}

// leadSentence is the start Iceberg Java's server gives the message of an
// error type ("Table does not exist: db.t"), which clients and their users
// know; the wrapped detail follows it.
func leadSentence(err error, typ string, names subjectNames) string {
	switch typ {
	case "CommitFailedException":
		var req *iceberg.RequirementError
		if errors.As(err, &req) {
			return "Requirement failed: " + req.Detail
		}
	case "NoSuchTableException":
		if names.table != "" {
			return "Table does not exist: " + names.table
		}
	case "NoSuchViewException":
		if names.table != "" {
			return "View does not exist: " + names.table
		}
	case "NoSuchNamespaceException":
		if names.namespace != "" {
			return "Namespace does not exist: " + names.namespace
		}
	case "AlreadyExistsException":
		if names.table == "" {
			return "Namespace already exists: " + names.namespace
		}
		return "Table already exists: " + names.table
	case "NamespaceNotEmptyException":
		return "Namespace " + names.namespace + " is not empty"
	}
	return ""
}
