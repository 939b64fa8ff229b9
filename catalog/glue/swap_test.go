package glue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/catalog/committest"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/moto"
)

// updateTable is the X-Amz-Target of Glue's UpdateTable.
const updateTable = "AWSGlue.UpdateTable"

// glueProxy forwards Glue calls to moto and lets a test record the
// UpdateTable requests and decide what becomes of each.
type glueProxy struct {
	*httptest.Server
	mu       sync.Mutex
	versions []string // the VersionId of each UpdateTable, in order
	// fault, when set, handles the next UpdateTable instead of the
	// forwarding, with the request's body already read.
	fault func(w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder)
}

func startProxy(t *testing.T, srv *moto.Server) *glueProxy {
	t.Helper()
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
	}}
	p := &glueProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") != updateTable {
			rp.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in struct{ VersionId string }
		_ = json.Unmarshal(body, &in)
		p.mu.Lock()
		p.versions = append(p.versions, in.VersionId)
		fault := p.fault
		p.fault = nil
		p.mu.Unlock()
		forward := func() *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			r.Body = io.NopCloser(bytes.NewReader(body))
			rp.ServeHTTP(rec, r)
			return rec
		}
		if fault == nil {
			rec := forward()
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		fault(w, r, forward)
	}))
	t.Cleanup(p.Close)
	return p
}

// cut drops the client's connection without an answer.
func cut(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	conn.Close()
}

// TestSwapSendsTheVersionItRead: each commit's UpdateTable carries the
// VersionId Glue gave the table when the commit read it, which is what
// makes Glue refuse an update that lost a race. moto does not check it
// (its update_table stores any input); this test checks iceflight's side.
func TestSwapSendsTheVersionItRead(t *testing.T) {
	t.Parallel()
	srv := moto.Start(t)
	proxy := startProxy(t, srv)
	props := srv.Props()
	props["glue.endpoint"] = proxy.URL
	cat := open(t, props)
	ctx := context.Background()
	id := catalog.Identifier{"db", "t"}
	must(t, cat.CreateNamespace(ctx, id.Namespace(), nil))
	tbl, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
	must(t, err)
	var read []string
	for i := range 3 {
		read = append(read, glueTable(t, srv, id).version)
		reqs, updates := committest.AppendUpdates(tbl.Metadata, int64(i+1))
		tbl, err = cat.CommitTable(ctx, id, reqs, updates)
		must(t, err)
	}
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	if len(proxy.versions) != 3 || proxy.versions[0] == "" {
		t.Fatalf("UpdateTable sent with versions %q, want 3", proxy.versions)
	}
	for i := range read {
		if proxy.versions[i] != read[i] {
			t.Errorf("commit %d sent VersionId %q; the table was at version %q", i, proxy.versions[i], read[i])
		}
	}
}

// TestSwapFaults: what a commit reports when Glue refuses its update as
// concurrent, and when the connection breaks after the update was sent,
// before and after Glue applied it.
func TestSwapFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault func(t *testing.T) func(w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder)
		want  error // nil: the commit won
		// won: the table points at the commit's file; kept: the file stays.
		won, kept bool
	}{
		{"Glue refuses the update as concurrent", func(t *testing.T) func(http.ResponseWriter, *http.Request, func() *httptest.ResponseRecorder) {
			return func(w http.ResponseWriter, _ *http.Request, _ func() *httptest.ResponseRecorder) {
				// Glue's answer (awsJson1_1 error: the type in the body).
				w.Header().Set("Content-Type", "application/x-amz-json-1.1")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"__type":"ConcurrentModificationException","Message":"Update table failed due to concurrent modifications."}`)
			}
		}, catalog.ErrCommitConflict, false, false},
		{"the connection breaks before Glue applies the update", func(t *testing.T) func(http.ResponseWriter, *http.Request, func() *httptest.ResponseRecorder) {
			return func(w http.ResponseWriter, _ *http.Request, _ func() *httptest.ResponseRecorder) { cut(t, w) }
		}, catalog.ErrCommitStateUnknown, false, true},
		{"the connection breaks after Glue applied the update", func(t *testing.T) func(http.ResponseWriter, *http.Request, func() *httptest.ResponseRecorder) {
			return func(w http.ResponseWriter, _ *http.Request, forward func() *httptest.ResponseRecorder) {
				if rec := forward(); rec.Code != http.StatusOK {
					t.Errorf("moto answered the update %d: %s", rec.Code, rec.Body)
				}
				cut(t, w)
			}
		}, nil, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := moto.Start(t)
			proxy := startProxy(t, srv)
			props := srv.Props()
			props["glue.endpoint"] = proxy.URL
			cat := open(t, props)
			ctx := context.Background()
			id := catalog.Identifier{"db", "t"}
			must(t, cat.CreateNamespace(ctx, id.Namespace(), nil))
			base, err := cat.CreateTable(ctx, id, committest.NewMetadata(t, "", nil))
			must(t, err)
			proxy.mu.Lock()
			proxy.fault = tc.fault(t)
			proxy.mu.Unlock()
			reqs, updates := committest.AppendUpdates(base.Metadata, 9)
			got, err := cat.CommitTable(ctx, id, reqs, updates)
			if tc.want != nil {
				wantErr(t, "commit", err, tc.want)
			} else {
				must(t, err)
			}
			now := glueTable(t, srv, id).metadataLocation
			written := writtenFile(t, base.Metadata.Location, base.MetadataLocation)
			switch {
			case tc.won && (got == nil || now != got.MetadataLocation):
				t.Fatalf("the table points at %s, want the commit's file", now)
			case !tc.won && now != base.MetadataLocation:
				t.Fatalf("the table points at %s, want %s as before", now, base.MetadataLocation)
			case tc.kept != (written != ""):
				t.Fatalf("the commit's metadata file left: %q, want kept %v", written, tc.kept)
			}
		})
	}
}

// writtenFile returns the metadata file of the table at location other
// than base, or "".
func writtenFile(t *testing.T, location, base string) string {
	t.Helper()
	dir, err := fileio.LocalPath(location + "/metadata")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if p := location + "/metadata/" + e.Name(); p != base {
			return p
		}
	}
	return ""
}
