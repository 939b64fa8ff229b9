package gcs

import (
	"errors"
	"fmt"
	"net/http"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/compute/metadata"
	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/iceflight/iceflight/fileio"
)

// wrap names op and the location in err and marks it with the fileio
// sentinel callers branch on: a missing object or bucket is ErrNotFound,
// refused credentials ErrPermissionDenied (naming the bucket and the
// credential source), and throttling, 5xx answers and broken connections,
// which the client has already retried, ErrUnavailable. The caller's own
// context ending is returned as it is.
func (f *FileIO) wrap(op, loc string, l location, err error) error {
	err = fileio.RedactQuery(err)
	switch kind := classify(err); kind {
	case nil:
		return fmt.Errorf("%s %s: %w", op, loc, err)
	case fileio.ErrPermissionDenied:
		return fmt.Errorf("%s %s: %w: bucket %q refused %s: %w", op, loc, kind, l.bucket, f.source, err)
	default:
		return fmt.Errorf("%s %s: %w: %w", op, loc, kind, err)
	}
}

// classify returns the fileio sentinel err belongs under, or nil.
func classify(err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) || errors.Is(err, storage.ErrBucketNotExist) {
		return fileio.ErrNotFound
	}
	// The token endpoint answered, and not with a token: the credentials
	// were refused, unless it was busy or failing itself.
	var ae *auth.Error
	if errors.As(err, &ae) {
		if r := ae.Response; r != nil && (r.StatusCode == http.StatusTooManyRequests || r.StatusCode >= 500) {
			return fileio.ErrUnavailable
		}
		return fileio.ErrPermissionDenied
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return fileio.ErrPermissionDenied
	}
	// The metadata server (application default credentials on Google
	// Cloud) has no token for this machine, or failed to give one.
	var nd metadata.NotDefinedError
	if errors.As(err, &nd) {
		return fileio.ErrPermissionDenied
	}
	var me *metadata.Error
	if errors.As(err, &me) {
		if me.Code == http.StatusTooManyRequests || me.Code >= 500 {
			return fileio.ErrUnavailable
		}
		return fileio.ErrPermissionDenied
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return fileio.HTTPStatus(ge.Code)
	}
	if fileio.Transient(err) {
		return fileio.ErrUnavailable
	}
	return nil
}
