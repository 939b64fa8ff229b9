package glue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/iceflight/iceflight/catalog"
)

// Error codes of Glue's API (AWS Glue API reference, "Common errors" and
// each action's errors), grouped by what a caller can do about them.
const (
	codeNotFound       = "EntityNotFoundException"
	codeExists         = "AlreadyExistsException"
	codeConcurrent     = "ConcurrentModificationException"
	codeInvalidInput   = "InvalidInputException"
	codeAccessDenied   = "AccessDeniedException"
	codeInternal       = "InternalServiceException"
	codeTimeout        = "OperationTimeoutException"
	codeThrottling     = "ThrottlingException"
	codeUnrecognized   = "UnrecognizedClientException"
	codeInvalidToken   = "InvalidClientTokenId"
	codeBadSignature   = "InvalidSignatureException"
	codeExpiredToken   = "ExpiredTokenException"
	codeIncompleteSign = "IncompleteSignature"
)

var (
	deniedCodes = map[string]bool{
		codeAccessDenied: true, codeUnrecognized: true, codeInvalidToken: true,
		codeBadSignature: true, codeExpiredToken: true, codeIncompleteSign: true,
	}
	busyCodes = map[string]bool{
		codeInternal: true, codeTimeout: true, codeThrottling: true,
		"ServiceUnavailableException": true, "TooManyRequestsException": true,
	}
)

// errorCode returns the Glue error code of err, "" when Glue did not
// answer with one.
func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// wrapErr maps err, from the call op, to the catalog package's sentinels:
// refused credentials are catalog.ErrCatalogPermissionDenied (naming the
// credential source, never a key), a Glue that is down, throttling or
// failing (after the retryer gave up) catalog.ErrCatalogUnavailable, a
// request Glue calls invalid catalog.ErrCatalogProtocol. A context that
// ended stays its own error. Codes the caller gives a meaning of its own
// (EntityNotFoundException, AlreadyExistsException) it checks first.
func (s *Store) wrapErr(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Errorf("glue: %s: %w", op, ctx.Err())
	}
	code, status := errorCode(err), 0
	var resp *smithyhttp.ResponseError
	if errors.As(err, &resp) {
		status = resp.HTTPStatusCode()
	}
	switch {
	case deniedCodes[code] || status == http.StatusForbidden || status == http.StatusUnauthorized:
		return fmt.Errorf("glue: %s: %w: Glue refused the credentials from %s: %w", op, catalog.ErrCatalogPermissionDenied, s.source, err)
	case busyCodes[code] || status == http.StatusTooManyRequests || status >= 500:
		return fmt.Errorf("glue: %s: %w: %w", op, catalog.ErrCatalogUnavailable, err)
	case code == codeInvalidInput:
		return fmt.Errorf("glue: %s: %w: %w", op, catalog.ErrCatalogProtocol, err)
	case status != 0:
		return fmt.Errorf("glue: %s: %w", op, err)
	}
	// No answer at all: a refused or reset connection, a timeout, a name
	// that does not resolve, all after the retryer's tries.
	return fmt.Errorf("glue: %s: %w: %w", op, catalog.ErrCatalogUnavailable, err)
}

// dialFailed reports whether err is a connection that could not be made,
// so that no byte of the request reached Glue.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
