package azure

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/iceflight/iceflight/fileio"
)

// wrap names op and the location in err and marks it with the fileio
// sentinel callers branch on: a missing blob or container is ErrNotFound,
// refused credentials ErrPermissionDenied (naming the container, the
// account and the credential source), and throttling, 5xx answers and
// broken connections, which the SDK has already retried, ErrUnavailable.
// The caller's own context ending is returned as it is. No URL in the
// message keeps its query, where a SAS token's signature is.
func wrap(op, loc string, l location, a *account, err error) error {
	err = fileio.RedactQuery(err)
	switch kind := classify(err); kind {
	case nil:
		return fmt.Errorf("%s %s: %w", op, loc, err)
	case fileio.ErrPermissionDenied:
		return fmt.Errorf("%s %s: %w: container %q of account %s refused %s: %w", op, loc, kind, l.container, l.account, a.source, err)
	default:
		return fmt.Errorf("%s %s: %w: %w", op, loc, kind, err)
	}
}

// classify returns the fileio sentinel err belongs under, or nil.
func classify(err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return fileio.HTTPStatus(re.StatusCode)
	}
	if fileio.Transient(err) {
		return fileio.ErrUnavailable
	}
	// Azure AD refused to sign in, or no credential could be found.
	var af *azidentity.AuthenticationFailedError
	var te *tokenError
	if errors.As(err, &af) || errors.As(err, &te) {
		return fileio.ErrPermissionDenied
	}
	return nil
}

// tokenError marks an error of getting an Azure AD token, whatever
// credential type failed: DefaultAzureCredential's chain ends in errors of
// several types, some unexported.
type tokenError struct{ err error }

func (e *tokenError) Error() string { return e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }

// markTokens is a TokenCredential whose errors are tokenErrors.
type markTokens struct{ azcore.TokenCredential }

// GetToken gets a token from the wrapped credential.
func (m markTokens) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	t, err := m.TokenCredential.GetToken(ctx, o)
	if err != nil && ctx.Err() == nil {
		err = &tokenError{err}
	}
	return t, err
}
