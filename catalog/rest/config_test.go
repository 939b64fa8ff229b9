package rest

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

func TestConfigDefaultsThenClientThenOverrides(t *testing.T) {
	t.Parallel()
	var warehouse string
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": func(w http.ResponseWriter, r *http.Request) {
			warehouse = r.URL.Query().Get("warehouse")
			writeJSON(w, http.StatusOK, map[string]any{
				"defaults":  map[string]string{"s3.region": "default-region", "s3.endpoint": "http://default", "extra": "d"},
				"overrides": map[string]string{"s3.endpoint": "http://override", "prefix": "wh1"},
			})
		},
		"GET /v1/wh1/namespaces": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{}})
		},
	})
	io := &recordingIO{}
	c := newTestCatalog(t, f.URL, fileio.Properties{"warehouse": "analytics", "s3.region": "client-region", "s3.endpoint": "http://client"},
		WithFileIO(io.build))
	if _, err := c.ListTables(context.Background()); err != nil {
		t.Fatal(err)
	}
	if warehouse != "analytics" {
		t.Errorf("config asked with warehouse %q, want analytics", warehouse)
	}
	got := io.last()
	for k, want := range map[string]string{"s3.region": "client-region", "s3.endpoint": "http://override", "extra": "d"} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if n := f.count("GET /v1/wh1/namespaces"); n != 1 {
		t.Errorf("namespaces under the overridden prefix asked %d times, want 1", n)
	}
}

func TestConfigFailureIsRetriedByTheNextCall(t *testing.T) {
	t.Parallel()
	fail := true
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": func(w http.ResponseWriter, r *http.Request) {
			if fail {
				writeJSON(w, http.StatusServiceUnavailable, errorBody(503, "ServiceUnavailableException", "starting"))
				return
			}
			emptyConfig(w, r)
		},
		"GET /v1/namespaces": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{}})
		},
	})
	c := newTestCatalog(t, f.URL, nil)
	if _, err := c.ListTables(context.Background()); !isErr(err, catalog.ErrCatalogUnavailable) {
		t.Fatalf("first call = %v, want ErrCatalogUnavailable", err)
	}
	fail = false
	if _, err := c.ListTables(context.Background()); err != nil {
		t.Fatalf("second call = %v, want the catalog configured", err)
	}
}

func TestNestedNamespacesArePagedAndEncodedWithTheSeparator(t *testing.T) {
	t.Parallel()
	f := newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": emptyConfig,
		"GET /v1/namespaces": func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if !q.Has("pageToken") {
				t.Errorf("namespaces asked without pageToken: %s", r.URL.RawQuery)
			}
			switch parent, tok := q.Get("parent"), q.Get("pageToken"); {
			case parent == "" && tok == "":
				writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{{"a"}}, "next-page-token": "p2"})
			case parent == "" && tok == "p2":
				writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{{"b"}}, "next-page-token": nil})
			case parent == "a":
				writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{{"a", "x.y"}}})
			default:
				writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{}})
			}
		},
		"GET /v1/namespaces/{ns}/tables": func(w http.ResponseWriter, r *http.Request) {
			ns := r.PathValue("ns")
			var ids []map[string]any
			switch ns {
			case "a\x1fx.y":
				ids = []map[string]any{{"namespace": []string{"a", "x.y"}, "name": "deep"}}
			case "b":
				if r.URL.Query().Get("pageToken") == "" {
					writeJSON(w, http.StatusOK, map[string]any{"identifiers": []map[string]any{{"namespace": []string{"b"}, "name": "t2"}}, "next-page-token": "n"})
					return
				}
				ids = []map[string]any{{"namespace": []string{"b"}, "name": "t1"}}
			}
			writeJSON(w, http.StatusOK, map[string]any{"identifiers": ids})
		},
	})
	c := newTestCatalog(t, f.URL, nil, WithPageSize(1))
	ids, err := c.ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.Identifier{{"a", "x.y", "deep"}, {"b", "t1"}, {"b", "t2"}}
	if !slices.EqualFunc(ids, want, slices.Equal) {
		t.Errorf("ListTables = %v, want %v", ids, want)
	}
}

func TestListingsThatDoNotEndAreRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body map[string]any
	}{
		{"a page token that repeats", map[string]any{"namespaces": [][]string{}, "next-page-token": "same"}},
		{"a child that is not below its parent", map[string]any{"namespaces": [][]string{{"a", "b"}}}},
		{"a namespace part that climbs", map[string]any{"namespaces": [][]string{{".."}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeServer(t, map[string]http.HandlerFunc{
				"GET /v1/config":     emptyConfig,
				"GET /v1/namespaces": func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, tc.body) },
			})
			c := newTestCatalog(t, f.URL, nil)
			if _, err := c.ListTables(context.Background()); !isErr(err, catalog.ErrCatalogProtocol) {
				t.Errorf("ListTables = %v, want ErrCatalogProtocol", err)
			}
		})
	}
}
