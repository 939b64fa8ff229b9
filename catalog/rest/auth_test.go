package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// tokenServer is a catalog that is its own OAuth2 server: it hands out
// numbered tokens that live for lifetime seconds and accepts only the
// newest one.
type tokenServer struct {
	*fakeServer
	mu       sync.Mutex
	issued   int
	forms    []string
	lifetime int
}

func newTokenServer(t *testing.T, lifetime int) *tokenServer {
	ts := &tokenServer{lifetime: lifetime}
	ts.fakeServer = newFakeServer(t, map[string]http.HandlerFunc{
		"POST /v1/oauth/tokens": func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				t.Error(err)
			}
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.forms = append(ts.forms, r.Form.Encode())
			if r.Form.Get("client_secret") != "s3cr3t-value" {
				writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "unknown client"})
				return
			}
			ts.issued++
			writeJSON(w, http.StatusOK, map[string]any{"access_token": fmt.Sprintf("tok-%d", ts.issued), "token_type": "bearer", "expires_in": ts.lifetime})
		},
		"GET /v1/config": func(w http.ResponseWriter, r *http.Request) {
			if !ts.accepts(r) {
				writeJSON(w, http.StatusUnauthorized, errorBody(401, "NotAuthorizedException", "token expired"))
				return
			}
			emptyConfig(w, r)
		},
		"GET /v1/namespaces": func(w http.ResponseWriter, r *http.Request) {
			if !ts.accepts(r) {
				writeJSON(w, http.StatusUnauthorized, errorBody(401, "NotAuthorizedException", "token expired"))
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{}})
		},
	})
	return ts
}

func (ts *tokenServer) accepts(r *http.Request) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return r.Header.Get("Authorization") == fmt.Sprintf("Bearer tok-%d", ts.issued)
}

// revoke makes the server refuse every token issued so far.
func (ts *tokenServer) revoke() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.issued += 100
}

func TestOAuth2ClientCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ts := newTokenServer(t, 3600)
	now := time.Unix(1_800_000_000, 0)
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	advance := func(d time.Duration) { clockMu.Lock(); now = now.Add(d); clockMu.Unlock() }
	c := newTestCatalog(t, ts.URL, fileio.Properties{"credential": "client-1:s3cr3t-value", "scope": "catalog:read"}, withClock(clock))

	if _, err := c.ListTables(ctx); err != nil {
		t.Fatal(err)
	}
	if n := ts.count("POST /v1/oauth/tokens"); n != 1 {
		t.Fatalf("%d token requests, want 1", n)
	}
	if form := ts.forms[0]; !strings.Contains(form, "grant_type=client_credentials") || !strings.Contains(form, "client_id=client-1") ||
		!strings.Contains(form, "scope=catalog%3Aread") {
		t.Errorf("token request form %q", form)
	}

	t.Run("a token is reused while it lives", func(t *testing.T) {
		advance(30 * time.Minute)
		if _, err := c.ListTables(ctx); err != nil {
			t.Fatal(err)
		}
		if n := ts.count("POST /v1/oauth/tokens"); n != 1 {
			t.Errorf("%d token requests, want 1", n)
		}
	})
	t.Run("a token is renewed before it expires", func(t *testing.T) {
		advance(29*time.Minute + 30*time.Second) // 30 s left, under the 1 min margin
		if _, err := c.ListTables(ctx); err != nil {
			t.Fatal(err)
		}
		if n := ts.count("POST /v1/oauth/tokens"); n != 2 {
			t.Errorf("%d token requests, want 2", n)
		}
	})
	t.Run("a refused token is renewed once and the call retried", func(t *testing.T) {
		ts.revoke()
		before := ts.count("GET /v1/namespaces")
		if _, err := c.ListTables(ctx); err != nil {
			t.Fatal(err)
		}
		if n := ts.count("POST /v1/oauth/tokens"); n != 3 {
			t.Errorf("%d token requests, want 3", n)
		}
		if n := ts.count("GET /v1/namespaces") - before; n != 2 {
			t.Errorf("namespaces asked %d times, want 2 (refused, then retried)", n)
		}
	})
}

func TestRefusedCredentialsArePermissionDeniedWithoutTheSecret(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, 3600)
	c := newTestCatalog(t, ts.URL, fileio.Properties{"credential": "client-1:wrong-secret-value"})
	_, err := c.ListTables(context.Background())
	if !isErr(err, catalog.ErrCatalogPermissionDenied) {
		t.Fatalf("ListTables = %v, want ErrCatalogPermissionDenied", err)
	}
	if msg := err.Error(); strings.Contains(msg, "wrong-secret-value") || !strings.Contains(msg, `"lake"`) || !strings.Contains(msg, "invalid_client") {
		t.Errorf("message %q should name the catalog and the OAuth2 error, not the secret", msg)
	}
}

func TestStaticTokenIsSentAndARefusalIsNotRetried(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusUnauthorized, errorBody(401, "NotAuthorizedException", "bad token"))
		},
	})
	c := newTestCatalog(t, f.URL, fileio.Properties{"token": "static-token-value"})
	_, err := c.ListTables(context.Background())
	if !isErr(err, catalog.ErrCatalogPermissionDenied) {
		t.Fatalf("ListTables = %v, want ErrCatalogPermissionDenied", err)
	}
	if strings.Contains(err.Error(), "static-token-value") {
		t.Errorf("message %q holds the token", err)
	}
	if got := f.authHeaders(); len(got) != 1 || got[0] != "Bearer static-token-value" {
		t.Errorf("Authorization headers %q, want one bearer token", got)
	}
}
