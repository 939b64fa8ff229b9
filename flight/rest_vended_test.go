package flight

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/catalog/rest"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// vendingProxy stands in front of the REST fixture and adds storage
// credentials to every load-table answer, as a catalog with credential
// vending (Polaris, Unity, Tabular) does; the fixture itself vends none.
func vendingProxy(t *testing.T, target string, creds map[string]string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodGet || !strings.Contains(resp.Request.URL.Path, "/tables/") || resp.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var answer map[string]any
		if err := json.Unmarshal(body, &answer); err != nil {
			return err
		}
		md, _ := answer["metadata"].(map[string]any)
		location, _ := md["location"].(string)
		answer["storage-credentials"] = []map[string]any{{"prefix": location, "config": creds}}
		if body, err = json.Marshal(answer); err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRESTVendedCredentialsReachTheWorkerSealed runs a scan end to end
// through the REST catalog: the table is written by Iceberg Java through
// the REST fixture, loaded with credentials vended for it, planned into
// tickets that carry them sealed, and read by DoGet with a FileIO built
// from them; the rows equal Iceberg Java's.
func TestRESTVendedCredentialsReachTheWorkerSealed(t *testing.T) {
	srv := restfixture.Start(t, restfixture.Options{Samples: true})
	expires := time.Now().Add(time.Hour).UnixMilli()
	creds := map[string]string{
		"s3.access-key-id": "ASIAVENDEDKEYID", "s3.secret-access-key": "vended-secret-value",
		"s3.session-token": "vended-session-token", "s3.session-token-expires-at-ms": strconv.FormatInt(expires, 10),
	}
	ctx := context.Background()
	rec := &storageRecorder{io: &testutil.CountingIO{Base: fileio.NewResolver()}}
	cat, err := rest.New(ctx, "lake", fileio.Properties{"uri": vendingProxy(t, srv.URI, creds), "token": "catalog-token-value"},
		rest.WithFileIO(func(context.Context, fileio.Properties) (fileio.FileIO, error) { return fileio.NewResolver(), nil }))
	if err != nil {
		t.Fatal(err)
	}
	h := serveCatalog(t, cat, 1000, engine.WithStorage(rec.build))

	info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("demo", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	checkSealedTickets(t, info, expires, "vended-secret-value", "vended-session-token", "ASIAVENDEDKEYID", "catalog-token-value")
	tbl, err := cat.LoadTable(ctx, []string{"demo", "trips"})
	if err != nil {
		t.Fatal(err)
	}
	schema := tbl.Metadata.CurrentSchema()
	var rows []string
	h.each(ctx, t, info, func(b arrow.RecordBatch) {
		r, err := testutil.ArrowRows(schema, b)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	})
	oracle, err := testutil.OracleFile(schema, filepath.Join(srv.Samples, "demo.trips.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := testutil.DiffRows(rows, oracle); diff != "" {
		t.Error(diff)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.props) == 0 {
		t.Fatal("the worker built no FileIO from the ticket")
	}
	for _, p := range rec.props {
		got := maps.Clone(p)
		maps.DeleteFunc(got, func(k, _ string) bool { _, vended := creds[k]; return !vended })
		if !maps.Equal(got, creds) || p["token"] != "" || p["uri"] != "" {
			t.Errorf("worker's storage properties %v: want the vended credentials and no catalog setting", slices.Sorted(maps.Keys(p)))
		}
	}
	if rec.io.Opens.Load() == 0 || h.data.Opens.Load() != 0 {
		t.Errorf("data files opened %d times with the vended FileIO and %d with the worker's own", rec.io.Opens.Load(), h.data.Opens.Load())
	}
}
