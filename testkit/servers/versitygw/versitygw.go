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
	"os/exec"
	"path"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/testkit/servers"
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

	root string
	proc *servers.Process
}

// Start starts a server on a free loopback port over a folder of the
// test's own, and stops it when the test ends. Without VERSITYGW_BIN the
// test is skipped (or fails under ICEFLIGHT_REQUIRE_SERVERS).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := servers.Program(t, Env, "servers-versitygw")
	addr := "127.0.0.1:" + strconv.Itoa(servers.FreePort(t))
	s := &Server{
		Endpoint:  "http://" + addr,
		AccessKey: "iceflight" + randomHex(t, 4),
		SecretKey: randomHex(t, 20),
		root:      t.TempDir(),
	}
	s.proc = servers.NewProcess(t, "versitygw", addr, func() *exec.Cmd {
		cmd := exec.Command(bin,
			"--access", s.AccessKey, "--secret", s.SecretKey, "--region", Region,
			"--port", addr, "--quiet", "posix", s.root)
		// Keys come from flags only: the test's own AWS environment must not
		// reach the server.
		cmd.Env = servers.ProgramEnv(s.root)
		return cmd
	})
	s.proc.Start(t)
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

// Kill stops the server at once (SIGKILL, as a crash would) and waits for
// it; the folder and its objects stay for Restart.
func (s *Server) Kill() { s.proc.Kill() }

// Restart starts the server again, on the same port over the same folder,
// after Kill.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.proc.Restart(t)
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

// Stat returns what the server answers to a HEAD of bucket/key.
func (s *Server) Stat(t testing.TB, bucket, key string) fileio.Info {
	t.Helper()
	out, err := s.Client().HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("head s3://%s/%s: %v", bucket, key, err)
	}
	return fileio.Info{ModTime: aws.ToTime(out.LastModified), ETag: aws.ToString(out.ETag)}
}

// Upload copies every file below dir to bucket, each under prefix joined
// with its path relative to dir, and returns the location of dir's copy
// (s3://bucket/prefix).
func (s *Server) Upload(t testing.TB, dir, bucket, prefix string) string {
	t.Helper()
	servers.UploadTree(t, dir, prefix, func(key string, body []byte) { s.Put(t, bucket, key, body) })
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

// String names the server in messages.
func (s *Server) String() string { return fmt.Sprintf("versitygw at %s over %s", s.Endpoint, s.root) }
