package rest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// TestLoadTableErrors checks how each answer a server may give maps to the
// catalog's sentinel errors, and that messages name the catalog and the
// table but never the token.
func TestLoadTableErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    []error
	}{
		{"401 after no refresh is permission denied", status(401, "NotAuthorizedException"), []error{catalog.ErrCatalogPermissionDenied}},
		{"403 is permission denied", status(403, "ForbiddenException"), []error{catalog.ErrCatalogPermissionDenied}},
		{"404 of the table is table not found", status(404, "NoSuchTableException"), []error{catalog.ErrTableNotFound}},
		{"404 of the namespace is table and namespace not found", status(404, "NoSuchNamespaceException"),
			[]error{catalog.ErrTableNotFound, catalog.ErrNamespaceNotFound}},
		{"500 is unavailable", status(500, "ServerError"), []error{catalog.ErrCatalogUnavailable}},
		{"503 is unavailable", status(503, "ServiceUnavailableException"), []error{catalog.ErrCatalogUnavailable}},
		{"429 is unavailable", status(429, "TooManyRequests"), []error{catalog.ErrCatalogUnavailable}},
		{"400 is a protocol error", status(400, "BadRequestException"), []error{catalog.ErrCatalogProtocol}},
		{"an error status with a body that is not JSON", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(502)
			_, _ = w.Write([]byte("<html>bad gateway</html>"))
		}, []error{catalog.ErrCatalogUnavailable}},
		{"a malformed body is a protocol error", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"metadata-location": "x", "metadata": {`))
		}, []error{catalog.ErrCatalogProtocol}},
		{"a body of the wrong shape is a protocol error", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"metadata-location": 7}`))
		}, []error{catalog.ErrCatalogProtocol}},
		{"an answer without metadata is a protocol error", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"config": {}}`))
		}, []error{catalog.ErrCatalogProtocol}},
		{"metadata that breaks the spec is invalid metadata", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"metadata-location": "x", "metadata": {"format-version": 2}}`))
		}, nil},
		{"a redirect is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusFound)
		}, []error{catalog.ErrCatalogProtocol}},
		{"a 304 to an unconditional request is a protocol error", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotModified)
		}, []error{catalog.ErrCatalogProtocol}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, map[string]http.HandlerFunc{"GET /v1/config": emptyConfig, tablePattern: tc.handler})
			c := newTestCatalog(t, f.URL, fileio.Properties{"token": "secret-token-value"})
			_, err := c.LoadTable(context.Background(), trips)
			if err == nil {
				t.Fatal("LoadTable succeeded")
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("LoadTable = %v, want %v", err, w)
				}
			}
			msg := err.Error()
			if strings.Contains(msg, "secret-token-value") || !strings.Contains(msg, `"lake"`) || !strings.Contains(msg, "samples.trips") {
				t.Errorf("message %q should name the catalog and the table, and not the token", msg)
			}
		})
	}
}

func status(code int, typ string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, code, errorBody(code, typ, "the server says why\n\tat a.java.Stack(Trace.java:1)"))
	}
}

func TestAHangingServerEndsAtTheCallsDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": emptyConfig,
		tablePattern: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		timeout time.Duration
		want    error
	}{
		{"the caller's deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, time.Hour, context.DeadlineExceeded},
		{"the request timeout when the caller has none", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, 200 * time.Millisecond, catalog.ErrCatalogUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newTestCatalog(t, f.URL, nil, WithRequestTimeout(tc.timeout))
			ctx, cancel := tc.ctx()
			defer cancel()
			if _, err := c.LoadTable(ctx, trips); !errors.Is(err, tc.want) {
				t.Errorf("LoadTable = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestAnOversizedBodyIsRefused(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": emptyConfig,
		tablePattern: func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"metadata-location": "` + strings.Repeat("x", loadSlackBytes+2) + `"}`))
		},
	})
	c := newTestCatalog(t, f.URL, nil, WithMaxMetadataBytes(1))
	if _, err := c.LoadTable(context.Background(), trips); !errors.Is(err, catalog.ErrCatalogProtocol) || !strings.Contains(err.Error(), "response body over") {
		t.Errorf("LoadTable = %v, want a protocol error for the body's size", err)
	}
}

func TestAnUnreachableCatalogIsUnavailable(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, nil)
	uri := f.URL
	f.Close()
	c := newTestCatalog(t, uri, nil)
	if _, err := c.ListTables(context.Background()); !errors.Is(err, catalog.ErrCatalogUnavailable) {
		t.Errorf("ListTables = %v, want ErrCatalogUnavailable", err)
	}
}

// TestACallBehindAHangingConfigEndsAtItsOwnDeadline: the first call's
// config request hangs; a second call waiting for the configuration must
// still end at its own, shorter deadline.
func TestACallBehindAHangingConfigEndsAtItsOwnDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})
	t.Cleanup(func() { close(release) })
	c := newTestCatalog(t, f.URL, nil)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	done := make(chan error, 1)
	go func() { _, err := c.ListTables(first); done <- err }()
	<-entered
	second, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.ListTables(second); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"lake"`) {
		t.Errorf("second call = %v, want its deadline, naming the catalog", err)
	}
	cancelFirst()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("first call = %v, want Canceled", err)
	}
}
