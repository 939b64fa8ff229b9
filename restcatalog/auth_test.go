package restcatalog

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const (
	readerToken = "reader-token-0123456789"
	writerToken = "writer-token-0123456789"
	otherToken  = "other-token-01234567890"
)

func authServer(t *testing.T) *harness {
	return serve(t, serverConfig{
		tokens: readerToken + " samples\n" + writerToken + " rw:samples,rw:db\n" + otherToken + " elsewhere\n",
		users:  "ana secret-password rw:samples\nbob other-password samples\n",
	})
}

// TestGrantsApplyAsOnFlight checks that a REST caller sees and changes
// exactly what its grants allow, as a Flight caller with the same token.
func TestGrantsApplyAsOnFlight(t *testing.T) {
	t.Parallel()
	h := authServer(t)
	r := h.do(http.MethodGet, "/v1/namespaces", nil)
	expect(t, "no credentials", r, http.StatusUnauthorized, "NotAuthorizedException")
	h.token = "not-a-token-at-all-000"
	expect(t, "unknown token", h.do(http.MethodGet, "/v1/config", nil), http.StatusUnauthorized, "NotAuthorizedException")

	h.token = readerToken
	expect(t, "reader loads", h.do(http.MethodGet, "/v1/namespaces/samples/tables/trips", nil), http.StatusOK, "")
	expect(t, "reader commits", h.do(http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`), http.StatusForbidden, "ForbiddenException")
	expect(t, "reader creates", h.do(http.MethodPost, "/v1/namespaces/samples/tables", `{"name":"x","schema":`+tableSchema+`}`), http.StatusForbidden, "ForbiddenException")
	expect(t, "reader drops", h.do(http.MethodDelete, "/v1/namespaces/samples/tables/trips", nil), http.StatusForbidden, "ForbiddenException")

	h.token = otherToken
	var list listNamespacesResponse
	h.do(http.MethodGet, "/v1/namespaces", nil).decode(t, &list)
	if len(list.Namespaces) != 0 {
		t.Errorf("a token of another namespace lists %v", list.Namespaces)
	}
	// Refused alike whether the table exists or not.
	expect(t, "other loads", h.do(http.MethodGet, "/v1/namespaces/samples/tables/trips", nil), http.StatusForbidden, "ForbiddenException")
	expect(t, "other loads a missing table", h.do(http.MethodGet, "/v1/namespaces/samples/tables/nope", nil), http.StatusForbidden, "ForbiddenException")
	expect(t, "other lists tables", h.do(http.MethodGet, "/v1/namespaces/samples/tables", nil), http.StatusForbidden, "ForbiddenException")
	expect(t, "other plans", h.do(http.MethodPost, "/v1/namespaces/samples/tables/trips/plan", `{}`), http.StatusForbidden, "ForbiddenException")

	h.token = writerToken
	expect(t, "writer commits", h.do(http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`), http.StatusOK, "")
	expect(t, "writer creates a namespace", h.do(http.MethodPost, "/v1/namespaces", `{"namespace":["db"]}`), http.StatusOK, "")
	expect(t, "writer creates elsewhere", h.do(http.MethodPost, "/v1/namespaces", `{"namespace":["elsewhere"]}`), http.StatusForbidden, "ForbiddenException")
}

// token asks the OAuth2 endpoint for a token.
func (h *harness) oauthToken(form url.Values) (response, string) {
	h.t.Helper()
	r := h.do(http.MethodPost, "/v1/oauth/tokens", form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	var tok tokenResponse
	_ = json.Unmarshal(r.body, &tok)
	return r, tok.AccessToken
}

func TestClientCredentialsIssueSessionTokens(t *testing.T) {
	t.Parallel()
	h := authServer(t)
	r, tok := h.oauthToken(url.Values{"grant_type": {"client_credentials"}, "client_id": {"bob"}, "client_secret": {"other-password"}, "scope": {"catalog"}})
	if r.code != http.StatusOK || tok == "" {
		t.Fatalf("token: %d %s", r.code, r.body)
	}
	var body tokenResponse
	r.decode(t, &body)
	if !strings.EqualFold(body.TokenType, "bearer") || body.ExpiresIn <= 0 {
		t.Errorf("token answer %s", r.body)
	}
	h.token = tok
	expect(t, "bob loads", h.do(http.MethodGet, "/v1/namespaces/samples/tables/trips", nil), http.StatusOK, "")
	expect(t, "bob commits", h.do(http.MethodPost, "/v1/namespaces/samples/tables/trips", `{"requirements":[],"updates":[]}`), http.StatusForbidden, "ForbiddenException")
	h.token = ""

	for _, c := range []struct {
		name  string
		form  url.Values
		code  int
		error string
	}{
		{"wrong password", url.Values{"grant_type": {"client_credentials"}, "client_id": {"bob"}, "client_secret": {"nope"}}, 401, "invalid_client"},
		{"unknown user", url.Values{"grant_type": {"client_credentials"}, "client_id": {"eve"}, "client_secret": {"nope"}}, 401, "invalid_client"},
		{"no client", url.Values{"grant_type": {"client_credentials"}}, 400, "invalid_request"},
		{"other grant", url.Values{"grant_type": {"password"}, "username": {"bob"}, "password": {"other-password"}}, 400, "unsupported_grant_type"},
	} {
		r, tok := h.oauthToken(c.form)
		var e oauthError
		_ = json.Unmarshal(r.body, &e)
		if r.code != c.code || e.Error != c.error || tok != "" || e.Description == "" {
			t.Errorf("%s: %d %s, want %d %s", c.name, r.code, r.body, c.code, c.error)
		}
		if strings.Contains(string(r.body), "other-password") {
			t.Errorf("%s: the answer repeats the password", c.name)
		}
	}
}

func TestGrantsFilterListings(t *testing.T) {
	t.Parallel()
	h := authServer(t)
	h.token = writerToken
	for _, ns := range []string{"db", "db\x1fsub"} {
		expect(t, "create "+ns, h.do(http.MethodPost, "/v1/namespaces", map[string]any{"namespace": strings.Split(ns, "\x1f")}), http.StatusOK, "")
	}
	h.token = readerToken
	var list listNamespacesResponse
	h.do(http.MethodGet, "/v1/namespaces", nil).decode(t, &list)
	if !slices.EqualFunc(list.Namespaces, [][]string{{"samples"}}, slices.Equal) {
		t.Errorf("reader lists %v", list.Namespaces)
	}
	expect(t, "reader loads db", h.do(http.MethodGet, "/v1/namespaces/db", nil), http.StatusForbidden, "ForbiddenException")
	expect(t, "reader lists db", h.do(http.MethodGet, "/v1/namespaces?parent=db", nil), http.StatusForbidden, "ForbiddenException")
}
