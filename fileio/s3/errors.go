package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/iceflight/iceflight/fileio"
)

// Error codes of S3's REST API (Amazon S3 API Reference, "Error
// responses"), grouped by what a caller can do about them.
var (
	notFoundCodes = map[string]bool{
		"NoSuchKey": true, "NoSuchBucket": true, "NotFound": true, "NoSuchUpload": true,
	}
	deniedCodes = map[string]bool{
		"AccessDenied": true, "InvalidAccessKeyId": true, "SignatureDoesNotMatch": true,
		"ExpiredToken": true, "InvalidToken": true, "TokenRefreshRequired": true,
		"AllAccessDisabled": true, "AccountProblem": true, "Forbidden": true,
		// versitygw answers an unknown key id with this code and a 404.
		"XAdminUserNotFound": true,
	}
	// Codes S3 answers with a 4xx status that still mean "try again later".
	busyCodes = map[string]bool{
		"SlowDown": true, "RequestTimeout": true, "Throttling": true, "ThrottlingException": true, "TooManyRequests": true,
	}
)

// wrapErr maps err, from op on o, to the fileio sentinels: a missing object
// or bucket is fileio.ErrNotFound, refused credentials
// fileio.ErrPermissionDenied (naming the bucket and the credential source),
// and a store that is down, throttling or failing (after the retryer gave
// up) fileio.ErrUnavailable. A context that ended stays its own error.
func (fs *FileIO) wrapErr(ctx context.Context, op string, o object, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", op, o.location, ctx.Err())
		}
	}
	code, status := "", 0
	var api smithy.APIError
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	var resp *smithyhttp.ResponseError
	if errors.As(err, &resp) {
		status = resp.HTTPStatusCode()
	}
	// The code, where the answer has a body, says more than the status:
	// some S3-compatible stores send refusals with a 404.
	switch {
	case code == "NoSuchBucket":
		return fmt.Errorf("%s %s: %w: bucket %q does not exist: %w", op, o.location, fileio.ErrNotFound, o.bucket, err)
	case notFoundCodes[code]:
		return fmt.Errorf("%s %s: %w: %w", op, o.location, fileio.ErrNotFound, err)
	case deniedCodes[code] || status == http.StatusForbidden || status == http.StatusUnauthorized:
		return fmt.Errorf("%s %s: %w: bucket %q refused the credentials from %s: %w",
			op, o.location, fileio.ErrPermissionDenied, o.bucket, fs.credentialSource(ctx), err)
	case status == http.StatusNotFound:
		return fmt.Errorf("%s %s: %w: %w", op, o.location, fileio.ErrNotFound, err)
	case busyCodes[code] || status == http.StatusTooManyRequests || status >= 500:
		return fmt.Errorf("%s %s: %w: %w", op, o.location, fileio.ErrUnavailable, err)
	case status != 0:
		// Any other answer of the server (a bad range, a bad bucket name)
		// will not change on retry.
		return fmt.Errorf("%s %s: %w", op, o.location, err)
	}
	// No answer at all: refused or reset connections, timeouts, a name that
	// does not resolve, all after the retryer's tries.
	return fmt.Errorf("%s %s: %w: %w", op, o.location, fileio.ErrUnavailable, err)
}

// credentialSource names where the FileIO's credentials came from. For the
// default chain it adds the provider that answered (environment, shared
// files, web identity, instance metadata), which the SDK records with the
// cached credentials; it names providers, never keys.
func (fs *FileIO) credentialSource(ctx context.Context) string {
	if fs.source != "default chain" || fs.creds == nil {
		return fs.source
	}
	c, err := fs.creds.Retrieve(ctx)
	if err != nil || c.Source == "" {
		return fs.source
	}
	return fs.source + " (" + c.Source + ")"
}
