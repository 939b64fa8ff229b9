package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/fileio"
)

// sampleMetadataFile is a metadata file Iceberg Java wrote
// (tools/javaref fixturegen).
var sampleMetadataFile = filepath.Join("..", "..", "testdata", "warehouse", "samples", "trips", "metadata", "v2.metadata.json")

func sampleMetadata(t testing.TB) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(sampleMetadataFile)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeServer is an httptest server with routes in http.ServeMux patterns
// ("GET /v1/config") that counts the requests of each pattern. It is for
// the oddities a real server does not show on demand; the real one is in
// fixture_test.go.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
	auth   []string // the Authorization header of each request
}

func newFakeServer(t *testing.T, routes map[string]http.HandlerFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{counts: make(map[string]int)}
	mux := http.NewServeMux()
	for pattern, h := range routes {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.counts[pattern]++
			f.auth = append(f.auth, r.Header.Get("Authorization"))
			f.mu.Unlock()
			h(w, r)
		})
	}
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) count(pattern string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[pattern]
}

func (f *fakeServer) authHeaders() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...)
}

// writeJSON answers v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// emptyConfig answers GET /v1/config with no defaults or overrides.
func emptyConfig(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"defaults": map[string]string{}, "overrides": map[string]string{}})
}

// errorBody is the spec's error model.
func errorBody(code int, typ, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "type": typ, "message": msg}}
}

// recordingIO records the properties every FileIO was built from.
type recordingIO struct {
	mu    sync.Mutex
	props []fileio.Properties
}

func (r *recordingIO) build(_ context.Context, p fileio.Properties) (fileio.FileIO, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.props = append(r.props, p)
	return fileio.NewResolver(), nil
}

func (r *recordingIO) last() fileio.Properties {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.props) == 0 {
		return nil
	}
	return r.props[len(r.props)-1]
}

func newTestCatalog(t *testing.T, uri string, props fileio.Properties, opts ...Option) *Catalog {
	t.Helper()
	p := fileio.Properties{"uri": uri}
	for k, v := range props {
		p[k] = v
	}
	c, err := New(context.Background(), "lake", p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
