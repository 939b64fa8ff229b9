package restcatalog

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
	"github.com/iceflight/iceflight/writer"
)

var warehouse = filepath.Join("..", "testdata", "warehouse")

// harness is a REST catalog server over a copy of the sample warehouse.
type harness struct {
	t   *testing.T
	url string
	cat catalog.Catalog
	// token is sent as the bearer token when not empty.
	token string
}

type serverConfig struct {
	tokens, users string
	opts          []Option
	// registry mounts the copy as catalogs "a" and "b" of a Registry.
	registry bool
}

// serve starts a server over a fresh copy of the sample warehouse.
func serve(t *testing.T, cfg serverConfig) *harness {
	t.Helper()
	root := t.TempDir()
	testutil.CopyTree(t, warehouse, root)
	var cat catalog.Catalog
	var mounts []string
	dir, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	cat = dir
	if cfg.registry {
		other := t.TempDir()
		dir2, err := catalog.NewDirectory(other)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := catalog.NewRegistry(map[string]catalog.Catalog{"a": dir, "b": dir2})
		if err != nil {
			t.Fatal(err)
		}
		cat, mounts = reg, reg.Names()
	}
	signer, err := engine.NewRandomSigner(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	engOpts := []engine.Option{engine.WithLogger(slog.New(slog.DiscardHandler))}
	if cfg.tokens != "" || cfg.users != "" {
		creds, err := engine.ParseCredentials(cfg.tokens, cfg.users)
		if err != nil {
			t.Fatal(err)
		}
		auth, err := engine.NewAuthenticator(creds, bytes.Repeat([]byte{7}, 32))
		if err != nil {
			t.Fatal(err)
		}
		engOpts = append(engOpts, engine.WithAuthenticator(auth))
	}
	eng := engine.New(cat, reader.New(fileio.NewResolver()), signer, engOpts...)
	opts := []Option{WithWriter(writer.New(cat.(writer.Catalog)))}
	if mounts != nil {
		opts = append(opts, WithCatalogs(mounts))
	}
	srv, err := New(eng, append(opts, cfg.opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &harness{t: t, url: ts.URL, cat: cat}
}

// response is an answer of the server.
type response struct {
	code int
	body []byte
}

// errorType is the type of an error-model answer, "" for another body.
func (r response) errorType() string {
	var m errorModel
	if json.Unmarshal(r.body, &m) != nil {
		return ""
	}
	return m.Error.Type
}

// decode decodes the answer into v.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// do sends a request with body (a string, bytes or a value to encode).
func (h *harness) do(method, path string, body any, header ...string) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(h.t.Context(), method, h.url+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{code: resp.StatusCode, body: raw}
}

// expect fails the test unless r has the status code (and, for an
// error, the error model's type).
func expect(t *testing.T, what string, r response, code int, typ string) {
	t.Helper()
	if r.code != code || (typ != "" && r.errorType() != typ) {
		t.Fatalf("%s: got %d %s, want %d %s", what, r.code, r.body, code, typ)
	}
}

// tableSchema is a two-column schema in the API's JSON.
const tableSchema = `{"type":"struct","schema-id":0,"fields":[` +
	`{"id":1,"name":"id","required":true,"type":"long"},` +
	`{"id":2,"name":"name","required":false,"type":"string"}]}`
