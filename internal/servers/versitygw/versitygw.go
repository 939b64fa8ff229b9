// Package versitygw starts versitygw, an S3 gateway over a local folder
// (its posix back end), on a free loopback port for one test, and uploads
// fixtures to it. mk/s3.mk installs the program and names it in
// VERSITYGW_BIN.
package versitygw

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/servers"
)

// Env names the environment variable that holds the program's path.
const Env = "VERSITYGW_BIN"

// Region is the region the server answers for.
const Region = "us-east-1"

// Server is a running versitygw with one root account.
type Server struct {
	// Endpoint is the server's URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are the root account's keys, fresh per server.
	AccessKey, SecretKey string

	bin, root, addr string
	log             *output

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a server on a free loopback port over a folder of the
// test's own, and stops it when the test ends. Without VERSITYGW_BIN the
// test is skipped (or fails under ICEFLIGHT_REQUIRE_SERVERS).
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		bin:       servers.Program(t, Env, "servers-versitygw"),
		root:      t.TempDir(),
		addr:      "127.0.0.1:" + strconv.Itoa(servers.FreePort(t)),
		AccessKey: "iceflight" + randomHex(t, 4),
		SecretKey: randomHex(t, 20),
		log:       &output{},
	}
	s.Endpoint = "http://" + s.addr
	t.Cleanup(s.Kill)
	s.start(t)
	return s
}

// StartBucket starts a server (Start) with one bucket holding objects, key
// by key.
func StartBucket(t testing.TB, bucket string, objects map[string][]byte) *Server {
	t.Helper()
	s := Start(t)
	s.CreateBucket(t, bucket)
	for key, body := range objects {
		s.Put(t, bucket, key, body)
	}
	return s
}

func (s *Server) start(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin,
		"--access", s.AccessKey, "--secret", s.SecretKey, "--region", Region,
		"--port", s.addr, "--quiet", "posix", s.root)
	// Keys come from flags only: the test's own AWS environment must not
	// reach the server.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.root}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.cmd, s.exited = cmd, exited
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := servers.WaitDial(ctx, s.addr, exited, 30*time.Second); err != nil {
		t.Fatalf("versitygw on %s: %v; its output:\n%s", s.addr, err, s.log)
	}
}

// Kill stops the server at once (SIGKILL, as a crash would) and waits for
// it; the folder and its objects stay for Restart.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// Restart starts the server again, on the same port over the same folder,
// after Kill.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	s.start(t)
}

// Props returns the storage properties, by PyIceberg's names, that reach
// the server with its root account.
func (s *Server) Props() fileio.Properties {
	return fileio.Properties{
		"s3.endpoint":          s.Endpoint,
		"s3.access-key-id":     s.AccessKey,
		"s3.secret-access-key": s.SecretKey,
		"s3.region":            Region,
		"s3.path-style-access": "true",
	}
}

// Client returns an S3 client of the server's root account, made with the
// SDK alone, so that fixtures are put in place independently of the
// FileIO under test.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}

// CreateBucket makes a bucket.
func (s *Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
}

// Put stores body as the object bucket/key.
func (s *Server) Put(t testing.TB, bucket, key string, body []byte) {
	t.Helper()
	_, err := s.Client().PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: &bucket, Key: &key, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
	})
	if err != nil {
		t.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// Upload copies every file below dir to bucket, each under prefix joined
// with its path relative to dir, and returns the location of dir's copy
// (s3://bucket/prefix).
func (s *Server) Upload(t testing.TB, dir, bucket, prefix string) string {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.Put(t, bucket, path.Join(prefix, filepath.ToSlash(rel)), body)
		return nil
	})
	if err != nil {
		t.Fatalf("upload %s to s3://%s/%s: %v", dir, bucket, prefix, err)
	}
	return "s3://" + path.Join(bucket, prefix)
}

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// output collects what the server prints, for the message of a failed
// start; the process writes while a test may read.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// String names the server in messages.
func (s *Server) String() string { return fmt.Sprintf("versitygw at %s over %s", s.Endpoint, s.root) }
