package restcatalog

import (
	"fmt"
	"net/http"
	"strings"
)

// configResponse is the API's CatalogConfig.
type configResponse struct {
	Defaults  map[string]string `json:"defaults"`
	Overrides map[string]string `json:"overrides"`
	Endpoints []string          `json:"endpoints"`
}

// getConfig tells a client its prefix (the catalog its warehouse names)
// and the endpoints this server serves.
func (s *Server) getConfig(req *request, w http.ResponseWriter) error {
	resp := configResponse{Defaults: map[string]string{}, Overrides: map[string]string{}, Endpoints: endpoints()}
	if wh := req.query.Get("warehouse"); wh != "" && len(s.mounts) > 0 {
		if err := s.checkPrefix(wh); err != nil {
			return fmt.Errorf("%w: warehouse %q names no catalog of this server (catalogs: %s)", errBadRequest, wh, strings.Join(s.mounts, ", "))
		}
		resp.Overrides["prefix"] = wh
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// endpoints lists the advertised routes as the API's config names them
// ("GET /v1/{prefix}/namespaces").
func endpoints() []string {
	var out []string
	for _, rt := range routes {
		if !rt.advertise {
			continue
		}
		path := strings.ReplaceAll(rt.pattern, "{plan}", "{plan-id}")
		out = append(out, rt.method+" /v1/{prefix}/"+path)
	}
	return out
}

// tokenResponse is the OAuth2 token endpoint's answer (RFC 6749 5.1).
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in,omitempty"`
	IssuedTokenType string `json:"issued_token_type"`
}

// oauthError is the token endpoint's error (RFC 6749 5.2), which REST
// clients read instead of the error model.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// getToken serves the OAuth2 client-credentials flow for clients that
// know no other (PyIceberg's and Iceberg Java's `credential`): the client
// id and secret are a --users login, and the token is the session token
// a Flight Handshake issues for it, with the same grants and lifetime.
// Its errors are answered in RFC 6749's form, not the error model.
func (s *Server) getToken(req *request, w http.ResponseWriter) error {
	fail := func(code int, kind, format string, args ...any) error {
		writeJSON(w, code, oauthError{Error: kind, Description: fmt.Sprintf(format, args...)})
		return &answered{code: code, err: fmt.Errorf("oauth token: %s: %s", kind, fmt.Sprintf(format, args...))}
	}
	if s.auth == nil {
		return fail(http.StatusBadRequest, "invalid_request", "authentication is not configured on this server (no --users); connect without a credential")
	}
	req.r.Body = http.MaxBytesReader(w, req.r.Body, 64<<10)
	if err := req.r.ParseForm(); err != nil {
		return fail(http.StatusBadRequest, "invalid_request", "the body is not a form: %v", err)
	}
	form := req.r.PostForm
	if grant := form.Get("grant_type"); grant != "client_credentials" {
		return fail(http.StatusBadRequest, "unsupported_grant_type", "grant_type %q: this server issues tokens for client_credentials only", abbreviate(grant))
	}
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if u, p, ok := req.r.BasicAuth(); ok && id == "" {
		id, secret = u, p
	}
	if id == "" {
		return fail(http.StatusBadRequest, "invalid_request", "no client_id: send the --users login as client_id and its password as client_secret")
	}
	token, ttl, err := s.auth.Login(id, secret)
	if err != nil {
		return fail(http.StatusUnauthorized, "invalid_client", "invalid client_id or client_secret")
	}
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: token, TokenType: "bearer", ExpiresIn: int64(ttl.Seconds()),
		IssuedTokenType: "urn:ietf:params:oauth:token-type:access_token"})
	return nil
}

// abbreviate cuts a value a client sent to a length fit for a message.
func abbreviate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// answered is an error whose answer the route wrote itself (the token
// endpoint's RFC 6749 errors): it is logged with its status, not
// answered again.
type answered struct {
	code int
	err  error
}

func (a *answered) Error() string { return a.err.Error() }
func (a *answered) Unwrap() error { return a.err }
