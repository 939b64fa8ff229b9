package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// tokenSource holds the bearer token of a catalog: a static "token", or
// one obtained with OAuth2 client credentials ("credential") and renewed
// before it expires. Neither the token nor the secret is ever put in a
// message.
type tokenSource struct {
	c *Catalog

	tokenURL     string
	clientID     string
	clientSecret string
	scope        string
	audience     string
	resource     string

	mu      ctxLock
	current string
	expiry  time.Time // zero: no known expiry
	// margin is how long before expiry the token is renewed:
	// refreshMargin or a tenth of its lifetime, whichever is shorter, so a
	// token of a minute is not renewed on every request.
	margin time.Duration
}

// refreshMargin is how long before its expiry a token is renewed at most.
const refreshMargin = time.Minute

func newTokenSource(c *Catalog, props fileio.Properties) (*tokenSource, error) {
	ts := &tokenSource{c: c, mu: newCtxLock(), current: props.Get("token"), scope: props.Get("scope")}
	if ts.scope == "" {
		ts.scope = "catalog"
	}
	ts.audience, ts.resource = props.Get("audience"), props.Get("resource")
	if cred := props.Get("credential"); cred != "" {
		// PyIceberg and Iceberg Java: "client-id:client-secret", or the
		// secret alone.
		if id, secret, ok := strings.Cut(cred, ":"); ok {
			ts.clientID, ts.clientSecret = id, secret
		} else {
			ts.clientSecret = cred
		}
		ts.tokenURL = props.Get("oauth2-server-uri")
		if ts.tokenURL == "" {
			// The spec's deprecated default endpoint, which servers that
			// are their own authorization server still serve.
			ts.tokenURL = c.root + "v1/oauth/tokens"
		}
		if _, err := url.Parse(ts.tokenURL); err != nil {
			return nil, errors.New("oauth2-server-uri is not a URL")
		}
	}
	return ts, nil
}

// canFetch reports whether the source can obtain tokens itself.
func (ts *tokenSource) canFetch() bool { return ts.clientSecret != "" }

// token returns the token to send: the current one, fetched first when
// there is none yet or it expires within the margin.
func (ts *tokenSource) token(ctx context.Context) (string, error) {
	if err := ts.mu.lock(ctx); err != nil {
		return "", ts.c.errorf(call{what: "wait for the OAuth2 token"}, "%w", err)
	}
	defer ts.mu.unlock()
	if !ts.canFetch() || ts.current != "" && !ts.expiring() {
		return ts.current, nil
	}
	if err := ts.fetchLocked(ctx); err != nil {
		return "", err
	}
	return ts.current, nil
}

// refresh fetches a new token after the server refused the current one;
// false when the source cannot (a static token).
func (ts *tokenSource) refresh(ctx context.Context) (bool, error) {
	if !ts.canFetch() {
		return false, nil
	}
	if err := ts.mu.lock(ctx); err != nil {
		return false, ts.c.errorf(call{what: "wait for the OAuth2 token"}, "%w", err)
	}
	defer ts.mu.unlock()
	return true, ts.fetchLocked(ctx)
}

func (ts *tokenSource) expiring() bool {
	if ts.expiry.IsZero() {
		return false
	}
	return !ts.c.now().Before(ts.expiry.Add(-ts.margin))
}

// tokenResponse is the OAuth2 token endpoint's answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   *int64 `json:"expires_in"`
}

// fetchLocked runs the client-credentials grant (RFC 6749 §4.4).
func (ts *tokenSource) fetchLocked(ctx context.Context) error {
	form := url.Values{"grant_type": {"client_credentials"}, "client_secret": {ts.clientSecret}, "scope": {ts.scope}}
	if ts.clientID != "" {
		form.Set("client_id", ts.clientID)
	}
	if ts.audience != "" {
		form.Set("audience", ts.audience)
	}
	if ts.resource != "" {
		form.Set("resource", ts.resource)
	}
	cl := call{method: http.MethodPost, url: ts.tokenURL, form: form, what: "fetch OAuth2 token", noAuth: true}
	resp, err := ts.c.sendOnce(ctx, cl)
	if err != nil {
		return err
	}
	if resp.status != http.StatusOK {
		// RFC 6749 §5.2: 400 invalid_client and the like, 401: the
		// credentials are refused.
		if resp.status == http.StatusBadRequest || resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden {
			return ts.c.errorf(cl, "%w: HTTP %d: %s", catalog.ErrCatalogPermissionDenied, resp.status, oauthError(resp.body))
		}
		return ts.c.statusError(cl, resp)
	}
	var tr tokenResponse
	if err := ts.c.decode(cl, resp, &tr); err != nil {
		return err
	}
	if tr.AccessToken == "" {
		return ts.c.errorf(cl, "%w: no access_token in the answer", errProtocol)
	}
	if tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "bearer") && !strings.EqualFold(tr.TokenType, "N_A") {
		return ts.c.errorf(cl, "%w: token_type %q is not bearer", errProtocol, tr.TokenType)
	}
	ts.current, ts.expiry, ts.margin = tr.AccessToken, time.Time{}, 0
	if tr.ExpiresIn != nil && *tr.ExpiresIn > 0 {
		life := time.Duration(*tr.ExpiresIn) * time.Second
		ts.expiry = ts.c.now().Add(life)
		ts.margin = min(refreshMargin, life/10)
	}
	return nil
}

// oauthError returns the error code and description of an OAuth2 error
// body, cut short; they never hold the secret.
func oauthError(body []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		return "credentials refused"
	}
	if e.Description != "" {
		return e.Error + ": " + truncate(e.Description)
	}
	return e.Error
}
