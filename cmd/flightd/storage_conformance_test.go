package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/iceflight/iceflight/testkit/servers"
	"github.com/iceflight/iceflight/testkit/servers/restfixture"
	"github.com/iceflight/iceflight/testkit/servers/versitygw"
)

// s3Bucket and s3Root are where the corpus is uploaded: a root none of
// its tables was written at, so every table is read relocated.
const (
	s3Bucket = "lake"
	s3Root   = "elsewhere"
)

// s3ConformanceEnv turns the test on; `make test-s3conf` sets it. The test
// takes about two minutes on the shared 2-core machine, too long for make
// test.
const s3ConformanceEnv = "ICEFLIGHT_S3_CONFORMANCE"

// misrecorded are the corpus's data and delete files whose manifests
// record a size other than their length (the corpus's README lists them):
// the one HEAD each costs is the reader asking the store for the real
// length after the first GET showed the mismatch.
var misrecorded = map[string]bool{
	"00191-4-6e780302-527b-4911-8c6e-88d416adac57-00001.parquet":      true,
	"delete-494fbbd4b792bdd2-aabb8e2000000000_1239775374_data.0.parq": true,
}

// restNamespace holds the corpus's tables in the REST catalog, which keeps
// no table outside a namespace.
const restNamespace = "conformance"

// TestConformanceCorpusFromS3MatchesJavaOracle uploads the conformance
// corpus to an S3 server under a root that is not its recorded location,
// and reads every table and snapshot back through flightd equal to the
// Java oracle: once through a directory warehouse on the S3 prefix, once
// through the Iceberg REST catalog (Iceberg Java's fixture, on the same
// server) where Iceberg Java registered each table.
func TestConformanceCorpusFromS3MatchesJavaOracle(t *testing.T) {
	if os.Getenv(s3ConformanceEnv) == "" {
		fmt.Printf("conformance s3: SKIPPED: run make test-s3conf (it sets %s=1)\n", s3ConformanceEnv)
		t.Skipf("%s is not set: run make test-s3conf", s3ConformanceEnv)
	}
	needCorpus(t, "conformance s3")
	start := time.Now()
	s3srv := versitygw.Start(t)
	s3srv.CreateBucket(t, s3Bucket)
	uploadConcurrently(t, s3srv.Client(), conformanceDir, s3Bucket, s3Root)
	t.Logf("uploaded the corpus in %s", time.Since(start).Round(time.Millisecond))
	expected := filepath.Join("..", "..", "testdata", "conformance")

	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		proxy := startCountingProxy(t, s3srv.Endpoint)
		config := writeFile(t, "iceflight.yaml", "catalogs:\n  s3:\n    type: directory\n    warehouse: s3://"+
			path.Join(s3Bucket, s3Root)+"\n"+s3Properties(proxy.URL, s3srv))
		began := time.Now()
		tl := compareServedWithOracle(t, dial(t, startServe(t, "--config", config, "--listen", "127.0.0.1:0").addr), "s3.", expected)
		printTally("conformance s3 directory", tl)
		t.Logf("directory mode read the corpus in %s", time.Since(began).Round(time.Millisecond))
		proxy.report(t, "conformance s3 directory requests")
		for _, key := range proxy.headed() {
			if !misrecorded[path.Base(key)] {
				t.Errorf("HEAD of data file %s: a task knows its file's size, so a read needs none", key)
			}
		}
	})
	t.Run("rest", func(t *testing.T) {
		t.Parallel()
		props := map[string]string{
			"io-impl":              "org.apache.iceberg.aws.s3.S3FileIO",
			"s3.endpoint":          s3srv.Endpoint,
			"s3.path-style-access": "true",
			"s3.access-key-id":     s3srv.AccessKey,
			"s3.secret-access-key": s3srv.SecretKey,
			"client.region":        versitygw.Region,
		}
		rest := restfixture.Start(t, restfixture.Options{Warehouse: "s3://" + s3Bucket + "/javawh", Props: props})
		registerCorpus(t, rest.URI, expected)
		proxy := startCountingProxy(t, s3srv.Endpoint)
		config := writeFile(t, "iceflight.yaml", "catalogs:\n  rest:\n    type: rest\n    uri: "+rest.URI+"\n"+
			s3Properties(proxy.URL, s3srv))
		began := time.Now()
		tl := compareServedWithOracle(t, dial(t, startServe(t, "--config", config, "--listen", "127.0.0.1:0").addr),
			"rest."+restNamespace+".", expected)
		printTally("conformance s3 rest", tl)
		t.Logf("REST mode read the corpus in %s", time.Since(began).Round(time.Millisecond))
		proxy.report(t, "conformance s3 rest requests")
	})
	t.Cleanup(func() { t.Logf("the S3 conformance test took %s", time.Since(start).Round(time.Millisecond)) })
}

// s3Properties are a catalog's storage properties, as a .pyiceberg.yaml
// spells them, reaching srv through endpoint.
func s3Properties(endpoint string, srv *versitygw.Server) string {
	var b strings.Builder
	for _, kv := range [][2]string{
		{"s3.endpoint", endpoint},
		{"s3.access-key-id", srv.AccessKey},
		{"s3.secret-access-key", srv.SecretKey},
		{"s3.region", versitygw.Region},
		{"s3.path-style-access", "true"},
	} {
		fmt.Fprintf(&b, "    %s: %s\n", kv[0], kv[1])
	}
	return b.String()
}

// uploadConcurrently copies the files below dir to bucket under prefix
// with the SDK alone, several at a time: one by one, the corpus's 1,500
// files would take most of the test's time.
func uploadConcurrently(t *testing.T, client *s3.Client, dir, bucket, prefix string) {
	t.Helper()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, 16)
	)
	servers.UploadTree(t, dir, prefix, func(key string, data []byte) {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, err := client.PutObject(context.Background(), &s3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String(key),
				Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
			})
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("put s3://%s/%s: %w", bucket, key, err))
				mu.Unlock()
			}
		})
	})
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
}

// registerCorpus has the REST catalog at uri register every table of the
// oracle's output under restNamespace, by the metadata file the oracle
// read, as uploaded: Iceberg Java reads each file and records the table.
func registerCorpus(t *testing.T, uri, expectedDir string) {
	t.Helper()
	post(t, uri+"/v1/namespaces", map[string]any{"namespace": []string{restNamespace}})
	for _, idx := range oracleTables(t, expectedDir) {
		post(t, uri+"/v1/namespaces/"+restNamespace+"/register", map[string]any{
			"name":              idx.Table,
			"metadata-location": "s3://" + path.Join(s3Bucket, s3Root, idx.Table, idx.MetadataFile),
		})
	}
}

// post sends body as JSON to u and fails t unless the answer is a success.
func post(t *testing.T, u string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(u, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Errorf("POST %s %s: %s %s", u, b, resp.Status, answer)
	}
}

// countingProxy forwards to an S3 server and counts what is asked of it,
// by method, for data files (objects outside a table's metadata/ folder)
// and for metadata.
type countingProxy struct {
	*httptest.Server
	mu       sync.Mutex
	data     map[string]map[string]int // method → object → requests
	metadata map[string]int            // method → requests
	listings int
}

// startCountingProxy starts a proxy in front of the server at endpoint.
// The Host header is passed on as the client sent it: it is part of what
// an AWS signature signs.
func startCountingProxy(t *testing.T, endpoint string) *countingProxy {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{data: map[string]map[string]int{}, metadata: map[string]int{}}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
	}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.count(r)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *countingProxy) count(r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Path-style: /bucket/key.
	_, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case key == "" || r.URL.Query().Has("list-type"):
		p.listings++
	case strings.Contains("/"+key, "/metadata/"):
		p.metadata[r.Method]++
	default:
		if p.data[r.Method] == nil {
			p.data[r.Method] = map[string]int{}
		}
		p.data[r.Method][key]++
	}
}

// headed returns the data files a HEAD request asked for.
func (p *countingProxy) headed() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.data[http.MethodHead]))
}

// report prints the counts on a line make's tally filter keeps.
func (p *countingProxy) report(t *testing.T, label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	files := map[string]bool{}
	total := map[string]int{}
	for method, objects := range p.data {
		for key, n := range objects {
			files[key] = true
			total[method] += n
		}
	}
	perFile := func(n int) string {
		if len(files) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", float64(n)/float64(len(files)))
	}
	line := fmt.Sprintf("%s: %d data files read with %d GETs (%s per file) and %d HEADs (%s per file); metadata: %d GETs, %d HEADs; %d listings",
		label, len(files), total[http.MethodGet], perFile(total[http.MethodGet]), total[http.MethodHead], perFile(total[http.MethodHead]),
		p.metadata[http.MethodGet], p.metadata[http.MethodHead], p.listings)
	fmt.Println(line)
	t.Log(line)
}
