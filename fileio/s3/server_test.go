package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	"github.com/iceflight/iceflight/testkit/servers/versitygw"
)

// The tests below run against a real versitygw (testkit/servers/versitygw),
// each with a server of its own.

// counter is an http.RoundTripper that counts requests by method and
// remembers the most in flight at once.
type counter struct {
	next http.RoundTripper

	mu       sync.Mutex
	methods  map[string]int
	inFlight int
	maxIn    int
	// afterGET, when set, runs once a GET's response headers arrived.
	afterGET func()
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.methods == nil {
		c.methods = map[string]int{}
	}
	c.methods[req.Method]++
	c.inFlight++
	c.maxIn = max(c.maxIn, c.inFlight)
	hook := c.afterGET
	c.mu.Unlock()
	resp, err := c.next.RoundTrip(req)
	c.mu.Lock()
	c.inFlight--
	c.mu.Unlock()
	if err == nil && req.Method == http.MethodGet && hook != nil {
		hook()
	}
	return resp, err
}

func (c *counter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.methods[method]
}

func (c *counter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.methods, c.maxIn = nil, 0
}

// testIO returns a FileIO of srv's root account (props override), counting
// its requests, with retries short enough for tests.
func testIO(t *testing.T, srv *versitygw.Server, props fileio.Properties, opts ...Option) (*FileIO, *counter) {
	t.Helper()
	p := srv.Props()
	for k, v := range props {
		if v == "" {
			delete(p, k)
		} else {
			p[k] = v
		}
	}
	c := &counter{}
	opts = append([]Option{
		WithRetry(3, 20*time.Millisecond),
		WithTransport(func(rt http.RoundTripper) http.RoundTripper { c.next = rt; return c }),
	}, opts...)
	fs, err := New(context.Background(), p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return fs, c
}

func readAll(t *testing.T, f fileio.File) []byte {
	t.Helper()
	b := make([]byte, f.Size())
	if n, err := f.ReadAt(b, 0); n != len(b) || (err != nil && err != io.EOF) {
		t.Fatalf("ReadAt whole file: %d of %d, %v", n, len(b), err)
	}
	return b
}

func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>8)
	}
	return b
}

func TestOpenSizedSendsNoHead(t *testing.T) {
	t.Parallel()
	// Past the 1 MiB pieces in which Cancelable reads a plain file.
	data := body(3 << 20)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"t/data/f.parquet": data})
	fs, c := testIO(t, srv, nil)
	ctx := context.Background()

	f, err := fs.OpenSized(ctx, "s3://lake/t/data/f.parquet", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 1000)
	if _, err := f.ReadAt(p, 5000); err != nil || !bytes.Equal(p, data[5000:6000]) {
		t.Fatalf("ReadAt: %v", err)
	}
	f.Close()
	if h, g := c.count(http.MethodHead), c.count(http.MethodGet); h != 0 || g != 1 {
		t.Errorf("a read of a file with known size sent %d HEADs and %d GETs, want 0 and 1", h, g)
	}

	c.reset()
	f, err = fs.Open(ctx, "s3a://lake/t/data/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != int64(len(data)) {
		t.Errorf("Open: size %d, want %d", f.Size(), len(data))
	}
	if got := readAll(t, f); !bytes.Equal(got, data) {
		t.Error("s3a:// read other bytes than were put")
	}
	f.Close()
	if h := c.count(http.MethodHead); h != 1 {
		t.Errorf("Open of a file of unknown size sent %d HEADs, want 1", h)
	}

	// Through Cancelable, as the storage registry serves every FileIO: a
	// read of the whole file is still one GET, not one per chunk.
	c.reset()
	f, err = fileio.Cancelable(fs).Open(ctx, "s3://lake/t/data/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, f); !bytes.Equal(got, data) {
		t.Error("read through Cancelable other bytes than were put")
	}
	f.Close()
	if g := c.count(http.MethodGet); g != 1 {
		t.Errorf("a whole-file read through Cancelable sent %d GETs, want 1", g)
	}
}

func TestReadPastTheEndEndsWithEOF(t *testing.T) {
	t.Parallel()
	data := body(1000)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"f": data})
	fs, _ := testIO(t, srv, nil)
	f, err := fs.OpenSized(context.Background(), "s3n://lake/f", 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 100)
	n, err := f.ReadAt(p, 950)
	if n != 50 || err != io.EOF || !bytes.Equal(p[:50], data[950:]) {
		t.Errorf("ReadAt across the end = %d, %v; want 50, EOF", n, err)
	}
	if n, err := f.ReadAt(p, 1000); n != 0 || err != io.EOF {
		t.Errorf("ReadAt at the end = %d, %v; want 0, EOF", n, err)
	}
}

func TestCoalescedRangesCostOneGetEach(t *testing.T) {
	t.Parallel()
	data := body(4 << 20)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"f.parquet": data})
	fs, c := testIO(t, srv, nil)
	f, err := fs.OpenSized(context.Background(), "s3://lake/f.parquet", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Three column chunks side by side, one 100 KiB apart, one far away.
	chunks := []fileio.Range{{Offset: 4096, Length: 300000}, {Offset: 304096, Length: 200000}, {Offset: 604096, Length: 50000}, {Offset: 3 << 20, Length: 70000}}
	merged := fileio.Coalesce(chunks, fileio.DefaultCoalesceOptions.MaxGap, fileio.DefaultCoalesceOptions.MaxLength)
	fileio.Prefetch(context.Background(), f, chunks)
	for _, ch := range chunks {
		// In 64 KiB pieces, as pqarrow's buffered column reader asks.
		for off := ch.Offset; off < ch.End(); off += 64 << 10 {
			p := make([]byte, min(64<<10, ch.End()-off))
			if _, err := f.ReadAt(p, off); err != nil || !bytes.Equal(p, data[off:off+int64(len(p))]) {
				t.Fatalf("ReadAt %d: %v", off, err)
			}
		}
	}
	if g, h := c.count(http.MethodGet), c.count(http.MethodHead); g != len(merged) || h != 0 {
		t.Errorf("%d GETs and %d HEADs for %d chunks in %d coalesced ranges; want one GET per range, no HEAD", g, h, len(chunks), len(merged))
	}
}

func TestErrorsSayWhatIsMissing(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"present": body(10)})
	fs, _ := testIO(t, srv, nil)
	ctx := context.Background()

	_, err := fs.Open(ctx, "s3://lake/absent.parquet")
	if !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), "s3://lake/absent.parquet") {
		t.Errorf("missing key: %v, want ErrNotFound naming the file", err)
	}
	_, err = fs.Open(ctx, "s3://no-such-bucket/k")
	if !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("missing bucket: %v, want ErrNotFound", err)
	}
	_, err = fs.ReadDir(ctx, "s3://no-such-bucket/wh")
	if !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), "no-such-bucket") {
		t.Errorf("listing a missing bucket: %v, want ErrNotFound naming it", err)
	}
	f, err := fs.OpenSized(ctx, "s3://lake/absent-too", 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("reading a missing key opened with a size: %v, want ErrNotFound", err)
	}
}

func TestObjectDeletedAfterOpenIsNotFound(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"t/data/gone.parquet": body(5000)})
	fs, _ := testIO(t, srv, nil)
	for _, sized := range []bool{false, true} {
		t.Run(fmt.Sprintf("sized=%v", sized), func(t *testing.T) {
			srv.Put(t, "lake", "t/data/gone.parquet", body(5000))
			loc := "s3://lake/t/data/gone.parquet"
			var f fileio.File
			var err error
			if sized {
				f, err = fs.OpenSized(context.Background(), loc, 5000)
			} else {
				f, err = fs.Open(context.Background(), loc)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := srv.Client().DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: strPtr("lake"), Key: strPtr("t/data/gone.parquet")}); err != nil {
				t.Fatal(err)
			}
			_, err = f.ReadAt(make([]byte, 100), 0)
			if !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), loc) {
				t.Errorf("read after delete: %v, want ErrNotFound naming %s", err, loc)
			}
		})
	}
}

func strPtr(s string) *string { return &s }

func TestRefusedCredentialsNameBucketAndSource(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"k": body(10)})
	const wrongSecret = "not-the-secret-0123456789abcdef"
	tests := []struct {
		name   string
		props  fileio.Properties
		source string
		secret string
		// headRefused: a HEAD's bodiless answer is a 403 too.
		headRefused bool
	}{
		{"a wrong secret", fileio.Properties{PropSecretAccessKey: wrongSecret}, "static keys (s3.access-key-id)", wrongSecret, true},
		{"an unknown key id", fileio.Properties{PropAccessKeyID: "AKIDUNKNOWN", PropSecretAccessKey: wrongSecret}, "static keys", wrongSecret, false},
		{"no credentials at all", fileio.Properties{PropAnonymous: "true", PropAccessKeyID: "", PropSecretAccessKey: ""}, "anonymous", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, _ := testIO(t, srv, tc.props)
			// A GET, whose answer has a body: versitygw refuses an
			// unknown key id with a 404 and the code XAdminUserNotFound,
			// which a HEAD's bodiless answer cannot tell from a missing key.
			f, err := fs.OpenSized(context.Background(), "s3://lake/k", 10)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = f.ReadAt(make([]byte, 10), 0)
			if !errors.Is(err, fileio.ErrPermissionDenied) {
				t.Fatalf("ReadAt: %v, want ErrPermissionDenied", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, `bucket "lake"`) || !strings.Contains(msg, tc.source) {
				t.Errorf("message %q names not the bucket and %q", msg, tc.source)
			}
			if tc.secret != "" && strings.Contains(msg, tc.secret) {
				t.Errorf("message shows the secret: %q", msg)
			}
			if strings.Contains(msg, srv.SecretKey) {
				t.Errorf("message shows the server's secret: %q", msg)
			}
			if _, err := fs.Open(context.Background(), "s3://lake/k"); tc.headRefused && !errors.Is(err, fileio.ErrPermissionDenied) {
				t.Errorf("Open (a HEAD): %v, want ErrPermissionDenied", err)
			}
		})
	}
}

// TestServerKilledMidReadIsUnavailable kills the server once a GET's
// headers have arrived, so the body is cut off mid-transfer: the read is
// retried, finds nobody listening and fails Unavailable; once the server
// is back, the same file reads again.
func TestServerKilledMidReadIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", nil)
	// Larger than loopback socket buffers, so that killing the server
	// really cuts the body short.
	data := body(32 << 20)
	srv.Put(t, "lake", "big.parquet", data)
	fs, c := testIO(t, srv, nil)
	f, err := fs.OpenSized(context.Background(), "s3://lake/big.parquet", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var once sync.Once
	c.mu.Lock()
	c.afterGET = func() { once.Do(srv.Kill) }
	c.mu.Unlock()
	_, err = f.ReadAt(make([]byte, len(data)), 0)
	if !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), "s3://lake/big.parquet") {
		t.Fatalf("read with the server killed: %v, want ErrUnavailable naming the file", err)
	}
	t.Logf("read with the server killed mid-body: %v", err)
	c.mu.Lock()
	c.afterGET = nil
	c.mu.Unlock()

	srv.Restart(t)
	p := make([]byte, 1<<20)
	if _, err := f.ReadAt(p, 7<<20); err != nil || !bytes.Equal(p, data[7<<20:8<<20]) {
		t.Fatalf("read after restart: %v", err)
	}
}

func TestCreateShowsNothingUntilClose(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", nil)
	fs, c := testIO(t, srv, nil, WithPartSize(minPartSize))
	ctx := context.Background()
	tests := []struct {
		name      string
		size      int
		multipart bool
	}{
		{"a small file is one PUT", 1000, false},
		{"an empty file is one PUT", 0, false},
		{"a file past a part's size is a multipart upload", 2*minPartSize + 12345, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc := fmt.Sprintf("s3://lake/out/%d.bin", tc.size)
			data := body(tc.size)
			c.reset()
			w, err := fs.Create(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			for b := data; len(b) > 0; b = b[min(len(b), 1<<20):] {
				if _, err := w.Write(b[:min(len(b), 1<<20)]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := fs.Open(ctx, loc); !errors.Is(err, fileio.ErrNotFound) {
				t.Fatalf("before Close: Open = %v, want ErrNotFound", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := fs.Open(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, f); !bytes.Equal(got, data) {
				t.Errorf("read back %d bytes, not the %d written", len(got), len(data))
			}
			f.Close()
			if multi := c.count(http.MethodPost) > 0; multi != tc.multipart {
				t.Errorf("multipart upload: %v, want %v (requests %v)", multi, tc.multipart, c.methods)
			}
		})
	}
}

func TestCreateCutShortLeavesNothing(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", nil)
	fs, _ := testIO(t, srv, nil, WithPartSize(minPartSize))
	for _, size := range []int{1000, minPartSize + 1} {
		loc := fmt.Sprintf("s3://lake/cut/%d", size)
		ctx, cancel := context.WithCancel(context.Background())
		w, err := fs.Create(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body(size)); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := w.Close(); !errors.Is(err, context.Canceled) {
			t.Errorf("%d bytes: Close after cancel = %v, want context.Canceled", size, err)
		}
		if _, err := fs.Open(context.Background(), loc); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("%d bytes: after a cut-short write Open = %v, want ErrNotFound", size, err)
		}
	}
}

func TestReadDirListsOneLevelAcrossPages(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", nil)
	for _, k := range []string{"wh/db/t1/metadata/v1.metadata.json", "wh/db/t2/x", "wh/db/version-hint.text", "wh/db/a.txt", "wh/dbx/other", "wh/db/z.txt"} {
		srv.Put(t, "lake", k, body(len(k)))
	}
	fs, c := testIO(t, srv, nil)
	fs.opts.listPage = 2
	for _, dir := range []string{"s3://lake/wh/db", "s3://lake/wh/db/"} {
		c.reset()
		got, err := fs.ReadDir(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			names = append(names, fmt.Sprintf("%s:%v:%d", e.Name, e.IsDir, e.Size))
		}
		want := "a.txt:false:11 t1:true:0 t2:true:0 version-hint.text:false:23 z.txt:false:11"
		if strings.Join(names, " ") != want {
			t.Errorf("ReadDir(%s) = %v, want %s", dir, names, want)
		}
		if g := c.count(http.MethodGet); g < 3 {
			t.Errorf("ReadDir(%s) with pages of 2 sent %d requests, want at least 3", dir, g)
		}
	}
	empty, err := fs.ReadDir(context.Background(), "s3://lake/nothing/here")
	if err != nil || len(empty) != 0 {
		t.Errorf("ReadDir of an empty prefix = %v, %v; want nothing", empty, err)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"old/f": body(10)})
	fs, _ := testIO(t, srv, nil)
	ctx := context.Background()
	if err := fs.Remove(ctx, "s3://lake/old/f"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Open(ctx, "s3://lake/old/f"); !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("after Remove: Open = %v, want ErrNotFound", err)
	}
	if err := fs.Remove(ctx, "s3://lake/old/f"); !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("removing a missing file: %v, want ErrNotFound", err)
	}
}

// The credential tests change the process environment, so they do not run
// in parallel. Each points the SDK at files of its own and turns instance
// metadata off, so nothing outside the test is read or asked.
func isolateAWSEnv(t *testing.T) string {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return dir
}

func TestDefaultChainReadsTheEnvironment(t *testing.T) {
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"k": body(10)})
	isolateAWSEnv(t)
	noKeys := fileio.Properties{PropAccessKeyID: "", PropSecretAccessKey: ""}

	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	fs, _ := testIO(t, srv, noKeys)
	if _, err := fs.Open(context.Background(), "s3://lake/k"); err != nil {
		t.Fatalf("keys from the environment: %v", err)
	}

	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-env-secret-000")
	fs, _ = testIO(t, srv, noKeys)
	_, err := fs.Open(context.Background(), "s3://lake/k")
	if !errors.Is(err, fileio.ErrPermissionDenied) || !strings.Contains(err.Error(), "default chain (EnvConfigCredentials)") {
		t.Errorf("wrong keys in the environment: %v, want ErrPermissionDenied naming the default chain's environment provider", err)
	}
	if err != nil && strings.Contains(err.Error(), "wrong-env-secret-000") {
		t.Errorf("message shows the secret: %v", err)
	}
}

func TestProfileReadsSharedCredentials(t *testing.T) {
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"k": body(10)})
	dir := isolateAWSEnv(t)
	creds := fmt.Sprintf("[analytics]\naws_access_key_id = %s\naws_secret_access_key = %s\n[stale]\naws_access_key_id = %s\naws_secret_access_key = stale-secret-000\n",
		srv.AccessKey, srv.SecretKey, srv.AccessKey)
	if err := os.WriteFile(filepath.Join(dir, "credentials"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	fs, _ := testIO(t, srv, fileio.Properties{PropAccessKeyID: "", PropSecretAccessKey: "", PropProfileName: "analytics"})
	if _, err := fs.Open(context.Background(), "s3://lake/k"); err != nil {
		t.Fatalf("profile analytics: %v", err)
	}
	fs, _ = testIO(t, srv, fileio.Properties{PropAccessKeyID: "", PropSecretAccessKey: "", PropProfileName: "stale"})
	_, err := fs.Open(context.Background(), "s3://lake/k")
	if !errors.Is(err, fileio.ErrPermissionDenied) || !strings.Contains(err.Error(), `profile "stale"`) {
		t.Errorf("profile with a wrong secret: %v, want ErrPermissionDenied naming the profile", err)
	}
}

func TestConcurrentRequestsAreLimited(t *testing.T) {
	data := body(256 << 10)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"k": data})
	fs, c := testIO(t, srv, nil)
	SetMaxConcurrentRequests(2)
	defer SetMaxConcurrentRequests(DefaultMaxConcurrentRequests)
	f, err := fs.OpenSized(context.Background(), "s3://lake/k", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			p := make([]byte, 16<<10)
			if _, err := f.ReadAt(p, int64(i)*(16<<10)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if c.count(http.MethodGet) != 12 || c.maxIn > 2 {
		t.Errorf("%d GETs with up to %d in flight; want 12 with at most 2", c.count(http.MethodGet), c.maxIn)
	}
}

// busyFirst answers the first n requests itself with 503 SlowDown, as S3
// does when it throttles, and passes the rest to the server.
type busyFirst struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    int
	sent int
}

func (b *busyFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	b.mu.Lock()
	b.sent++
	busy := b.sent <= b.n
	b.mu.Unlock()
	if !busy {
		return b.next.RoundTrip(req)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	const msg = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`
	return &http.Response{
		StatusCode: http.StatusServiceUnavailable, Status: "503 Slow Down", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/xml"}},
		Body:    io.NopCloser(strings.NewReader(msg)),
		Request: req, ContentLength: int64(len(msg)),
	}, nil
}

func TestThrottlingIsRetriedThenUnavailable(t *testing.T) {
	t.Parallel()
	data := body(5000)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"k": data})
	tests := []struct {
		name     string
		busy     int
		wantErr  bool
		wantSent int
	}{
		{"throttled twice, the third try reads", 2, false, 3},
		{"throttled on every try, Unavailable after the last", 100, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &busyFirst{n: tc.busy}
			fs, err := New(context.Background(), srv.Props(), WithRetry(3, 10*time.Millisecond),
				WithTransport(func(rt http.RoundTripper) http.RoundTripper { b.next = rt; return b }))
			if err != nil {
				t.Fatal(err)
			}
			f, err := fs.OpenSized(context.Background(), "s3://lake/k", int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := make([]byte, 100)
			_, err = f.ReadAt(p, 10)
			switch {
			case tc.wantErr && !errors.Is(err, fileio.ErrUnavailable):
				t.Errorf("ReadAt: %v, want ErrUnavailable", err)
			case !tc.wantErr && (err != nil || !bytes.Equal(p, data[10:110])):
				t.Errorf("ReadAt: %v, want the bytes after retries", err)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.sent != tc.wantSent {
				t.Errorf("%d requests sent, want %d (bounded tries)", b.sent, tc.wantSent)
			}
		})
	}
}

// TestAServerThatNeverAnswersIsUnavailable points the FileIO at a port
// that accepts connections and never answers: each try times out after
// s3.request-timeout, and after the last the read is Unavailable.
func TestAServerThatNeverAnswersIsUnavailable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	hold, accepting := make(chan struct{}), make(chan struct{})
	defer func() {
		close(hold)
		l.Close()
		<-accepting
		conns.Wait()
	}()
	go func() {
		defer close(accepting)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				<-hold
				c.Close()
			})
		}
	}()
	fs, err := New(context.Background(), fileio.Properties{
		PropEndpoint: "http://" + l.Addr().String(), PropAccessKeyID: "k", PropSecretAccessKey: "s",
		PropRequestTimeout: "0.2",
	}, WithRetry(2, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = fs.Open(context.Background(), "s3://lake/k")
	if !errors.Is(err, fileio.ErrUnavailable) {
		t.Errorf("Open against a silent server: %v, want ErrUnavailable", err)
	}
}

func TestAnObjectsInfoIsWhatHeadSays(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"f": body(1000)})
	fs, _ := testIO(t, srv, nil)
	fileiotest.CheckInfo(t, fs, "s3://lake/f", srv.Stat(t, "lake", "f"))
}

func TestAWrongRecordedSizeIsASizeMismatch(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"f": body(1000)})
	fs, _ := testIO(t, srv, nil)
	fileiotest.CheckRecordedSizes(t, fs, "s3://lake/f", body(1000))
}
