package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

const tablePattern = "GET /v1/namespaces/{ns}/tables/{table}"

// tableServer serves one table, samples.trips, from answer, with an ETag
// that changes when version does.
type tableServer struct {
	*fakeServer
	mu      sync.Mutex
	version int
	answer  map[string]any
	queries []string
}

func newTableServer(t *testing.T, answer map[string]any) *tableServer {
	ts := &tableServer{answer: answer}
	ts.fakeServer = newFakeServer(t, map[string]http.HandlerFunc{
		"GET /v1/config": emptyConfig,
		tablePattern: func(w http.ResponseWriter, r *http.Request) {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.queries = append(ts.queries, r.URL.RawQuery)
			if r.PathValue("ns") != "samples" || r.PathValue("table") != "trips" {
				writeJSON(w, http.StatusNotFound, errorBody(404, "NoSuchTableException", "no such table"))
				return
			}
			if r.Header.Get("X-Iceberg-Access-Delegation") != "vended-credentials" {
				t.Errorf("load table without X-Iceberg-Access-Delegation")
			}
			etag := `"v` + strconv.Itoa(ts.version) + `"`
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			writeJSON(w, http.StatusOK, ts.answer)
		},
	})
	return ts
}

func (ts *tableServer) change(answer map[string]any) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.version++
	if answer != nil {
		ts.answer = answer
	}
}

var trips = catalog.Identifier{"samples", "trips"}

func TestLoadTableRevalidatesWithTheETag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ts := newTableServer(t, map[string]any{"metadata-location": sampleMetadataFile, "metadata": sampleMetadata(t)})
	now := time.Unix(1_800_000_000, 0)
	c := newTestCatalog(t, ts.URL, nil, WithRefreshInterval(10*time.Second), withClock(func() time.Time { return now }))
	first, err := c.LoadTable(ctx, trips)
	if err != nil {
		t.Fatal(err)
	}
	if first.Metadata == nil || first.MetadataLocation != sampleMetadataFile || first.Location == "" {
		t.Fatalf("loaded %+v", first)
	}
	steps := []struct {
		name      string
		advance   time.Duration
		change    bool
		wantLoads int // requests to the table so far
		wantSame  bool
	}{
		{"within the refresh interval no request is sent", 5 * time.Second, false, 1, true},
		{"after it an unchanged table costs one 304", 10 * time.Second, false, 2, true},
		{"a changed table is loaded again", 10 * time.Second, true, 3, false},
	}
	prev := first
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.change {
			ts.change(nil)
		}
		got, err := c.LoadTable(ctx, trips)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if n := ts.count(tablePattern); n != s.wantLoads {
			t.Errorf("%s: %d requests, want %d", s.name, n, s.wantLoads)
		}
		if (got == prev) != s.wantSame {
			t.Errorf("%s: same table = %v, want %v", s.name, got == prev, s.wantSame)
		}
		prev = got
	}
	c.Refresh(trips)
	now = now.Add(time.Second)
	if _, err := c.LoadTable(ctx, trips); err != nil {
		t.Fatal(err)
	}
	if n := ts.count(tablePattern); n != 4 {
		t.Errorf("after Refresh: %d requests, want 4", n)
	}
}

func TestLoadTableReadsMetadataLocationWhenNoMetadataIsSent(t *testing.T) {
	t.Parallel()
	ts := newTableServer(t, map[string]any{"metadata-location": sampleMetadataFile})
	c := newTestCatalog(t, ts.URL, nil)
	tbl, err := c.LoadTable(context.Background(), trips)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Metadata == nil || tbl.Metadata.CurrentSnapshot() == nil {
		t.Errorf("metadata read from %s has no current snapshot", sampleMetadataFile)
	}
}

func TestSnapshotLoadingModeRefsAsksForRefs(t *testing.T) {
	t.Parallel()
	ts := newTableServer(t, map[string]any{"metadata-location": sampleMetadataFile, "metadata": sampleMetadata(t)})
	c := newTestCatalog(t, ts.URL, fileio.Properties{"snapshot-loading-mode": "refs"})
	if _, err := c.LoadTable(context.Background(), trips); err != nil {
		t.Fatal(err)
	}
	if len(ts.queries) != 1 || ts.queries[0] != "snapshots=refs" {
		t.Errorf("queries %q, want snapshots=refs", ts.queries)
	}
}

func TestVendedCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	md := sampleMetadata(t)
	var loc struct {
		Location string `json:"location"`
	}
	if err := json.Unmarshal(md, &loc); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	expires := now.Add(time.Hour)
	answer := func(key string, expiry time.Time) map[string]any {
		return map[string]any{
			"metadata-location": sampleMetadataFile, "metadata": md,
			"config": map[string]string{"s3.region": "table-region"},
			"storage-credentials": []map[string]any{
				{"prefix": "file:", "config": map[string]string{"s3.access-key-id": "broad"}},
				{"prefix": loc.Location, "config": map[string]string{"s3.access-key-id": key, "s3.secret-access-key": "vended-secret",
					"s3.session-token-expires-at-ms": strconv.FormatInt(expiry.UnixMilli(), 10)}},
				{"prefix": "s3://elsewhere/", "config": map[string]string{"s3.access-key-id": "other"}},
			},
			"unexpected-field": []int{1, 2},
		}
	}
	ts := newTableServer(t, answer("key-1", expires))
	io := &recordingIO{}
	c := newTestCatalog(t, ts.URL, fileio.Properties{"credential": "", "token": "catalog-token", "s3.endpoint": "http://s3"},
		WithFileIO(io.build), WithRefreshInterval(time.Hour), withClock(func() time.Time { return now }))
	tbl, err := c.LoadTable(ctx, trips)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"s3.access-key-id": "key-1", "s3.region": "table-region", "s3.endpoint": "http://s3", "s3.secret-access-key": "vended-secret"}
	for k, v := range want {
		if tbl.StorageProperties[k] != v || io.last()[k] != v {
			t.Errorf("%s = %q (FileIO built with %q), want %q: the longest matching prefix wins", k, tbl.StorageProperties[k], io.last()[k], v)
		}
	}
	if _, ok := tbl.StorageProperties["token"]; ok {
		t.Error("the catalog's token is among the table's storage properties")
	}
	if !tbl.CredentialsExpire.Equal(time.UnixMilli(expires.UnixMilli())) {
		t.Errorf("CredentialsExpire = %v, want %v", tbl.CredentialsExpire, expires)
	}

	// Within the refresh interval but five minutes from expiry: the table is
	// loaded again, unconditionally, for new credentials.
	now = expires.Add(-4 * time.Minute)
	ts.change(answer("key-2", now.Add(time.Hour)))
	tbl2, err := c.LoadTable(ctx, trips)
	if err != nil {
		t.Fatal(err)
	}
	if tbl2.StorageProperties["s3.access-key-id"] != "key-2" || ts.count(tablePattern) != 2 {
		t.Errorf("near expiry: key %q after %d loads, want key-2 after 2", tbl2.StorageProperties["s3.access-key-id"], ts.count(tablePattern))
	}
}

func TestLoadTableWithoutCredentialsUsesTheCatalogFileIO(t *testing.T) {
	t.Parallel()
	ts := newTableServer(t, map[string]any{"metadata-location": sampleMetadataFile, "metadata": sampleMetadata(t), "config": map[string]string{}})
	io := &recordingIO{}
	c := newTestCatalog(t, ts.URL, nil, WithFileIO(io.build))
	tbl, err := c.LoadTable(context.Background(), trips)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.StorageProperties != nil || !tbl.CredentialsExpire.IsZero() || len(io.props) != 1 {
		t.Errorf("no vended credentials: StorageProperties %v, %d FileIOs built, want nil and 1", tbl.StorageProperties, len(io.props))
	}
}

func isErr(err, target error) bool { return err != nil && errors.Is(err, target) }
