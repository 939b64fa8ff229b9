// Package fakegcs starts fake-gcs-server, an implementation of the Google
// Cloud Storage JSON API, on a free loopback port for one test, and
// uploads fixtures to it. mk/gcs.mk installs the program and names it in
// FAKEGCS_BIN.
package fakegcs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path"
	"strconv"
	"testing"
	"time"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers"
)

// Env names the environment variable that holds the program's path.
const Env = "FAKEGCS_BIN"

// Project is the project buckets are created in.
const Project = "iceflight-test"

// Server is a running fake-gcs-server. It keeps its objects in a folder
// of the test's own, so they outlive Kill and come back with Restart. It
// checks no credentials: any request is served.
type Server struct {
	// Endpoint is the server's URL, http://127.0.0.1:PORT.
	Endpoint string

	proc *servers.Process
}

// Start starts a server on a free loopback port and stops it when the test
// ends. Without FAKEGCS_BIN the test is skipped (or fails under
// ICEFLIGHT_REQUIRE_SERVERS).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := servers.Program(t, Env, "servers-fakegcs")
	root := t.TempDir()
	port := strconv.Itoa(servers.FreePort(t))
	s := &Server{Endpoint: "http://127.0.0.1:" + port}
	s.proc = servers.NewProcess(t, "fake-gcs-server", "127.0.0.1:"+port, func() *exec.Cmd {
		cmd := exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", port,
			"-backend", "filesystem", "-filesystem-root", root,
			"-public-host", "127.0.0.1:"+port, "-external-url", s.Endpoint, "-log-level", "error")
		cmd.Env = servers.ProgramEnv(root)
		return cmd
	})
	s.proc.Start(t)
	return s
}

// Props returns the storage properties, by PyIceberg's names, that reach
// the server without credentials.
func (s *Server) Props() fileio.Properties {
	return fileio.Properties{"gcs.service.host": s.Endpoint, "gcs.no-auth": "true", "gcs.project-id": Project}
}

// Kill stops the server at once (SIGKILL, as a crash would); its objects
// stay for Restart.
func (s *Server) Kill() { s.proc.Kill() }

// Restart starts the server again on the same port over the same objects.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.proc.Restart(t)
}

// CreateBucket creates bucket.
func (s *Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": bucket})
	s.do(t, http.MethodPost, s.Endpoint+"/storage/v1/b?project="+Project, bytes.NewReader(body), "application/json")
}

// Put stores data as the object key of bucket.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	u := s.Endpoint + "/upload/storage/v1/b/" + url.PathEscape(bucket) + "/o?uploadType=media&name=" + url.QueryEscape(key)
	s.do(t, http.MethodPost, u, bytes.NewReader(data), "application/octet-stream")
}

// Stat returns the update time and entity tag of the object key of
// bucket, from the server's JSON metadata answer.
func (s *Server) Stat(t testing.TB, bucket, key string) fileio.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := s.Endpoint + "/storage/v1/b/" + url.PathEscape(bucket) + "/o/" + url.PathEscape(key)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	var md struct {
		Updated time.Time `json:"updated"`
		ETag    string    `json:"etag"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %v", u, resp.Status, err)
	}
	return fileio.Info{ModTime: md.Updated, ETag: md.ETag}
}

// Delete removes the object key of bucket.
func (s *Server) Delete(t testing.TB, bucket, key string) {
	t.Helper()
	s.do(t, http.MethodDelete, s.Endpoint+"/storage/v1/b/"+url.PathEscape(bucket)+"/o/"+url.PathEscape(key), nil, "")
}

// Upload copies every file below dir to bucket under prefix (no leading
// or trailing "/"; "" for the bucket's root), keeping relative paths, and
// returns the gs:// location of the copy of dir.
func (s *Server) Upload(t testing.TB, dir, bucket, prefix string) string {
	t.Helper()
	servers.UploadTree(t, dir, prefix, func(key string, data []byte) { s.Put(t, bucket, key, data) })
	return "gs://" + path.Join(bucket, prefix)
}

// do sends one request to the server and fails t unless it succeeds.
func (s *Server) do(t testing.TB, method, u string, body io.Reader, contentType string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s: %s\n%s", method, u, resp.Status, msg, s.proc.Output())
	}
}

// String names the server in messages.
func (s *Server) String() string { return fmt.Sprintf("fake-gcs-server at %s", s.Endpoint) }
