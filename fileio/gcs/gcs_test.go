package gcs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	"github.com/iceflight/iceflight/testkit/servers/fakegcs"
)

// newFileIO returns a FileIO on s with props added to the server's own.
func newFileIO(t *testing.T, s *fakegcs.Server, extra fileio.Properties) *FileIO {
	t.Helper()
	props := s.Props()
	for k, v := range extra {
		props[k] = v
	}
	fio, err := New(context.Background(), props)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return fio
}

func TestReadsAreRangedAndClippedToTheSize(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	s.Put(t, "lake", "dir/f.bin", []byte(fileiotest.RangeData))
	fio := newFileIO(t, s, nil)
	ctx := context.Background()

	f, err := fio.Open(ctx, "gs://lake/dir/f.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fileiotest.CheckRanges(t, f)
}

func TestMissingObjectsAndBucketsAreNotFound(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	fio := newFileIO(t, s, nil)
	ctx := context.Background()
	for _, loc := range []string{"gs://lake/missing.parquet", "gs://nobucket/x.parquet"} {
		if _, err := fio.Open(ctx, loc); !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), loc) {
			t.Errorf("Open(%s) = %v, want ErrNotFound naming it", loc, err)
		}
		if err := fio.Remove(ctx, loc); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("Remove(%s) = %v, want ErrNotFound", loc, err)
		}
	}
}

func TestOpenSizedAsksNothingAndAMissingObjectFailsItsRead(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	s.Put(t, "lake", "t/data/a.parquet", []byte("PAR1....PAR1"))
	fio := newFileIO(t, s, nil)
	ctx := context.Background()

	// Planned with its size, deleted before the read: the open cannot
	// know (it sends nothing), the read says NotFound naming the file.
	f, err := fio.OpenSized(ctx, "gs://lake/t/data/a.parquet", 12)
	if err != nil {
		t.Fatal(err)
	}
	s.Delete(t, "lake", "t/data/a.parquet")
	_, err = f.ReadAt(make([]byte, 4), 0)
	if !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), "gs://lake/t/data/a.parquet") {
		t.Fatalf("read of a deleted object = %v, want ErrNotFound naming it", err)
	}
}

func TestAnObjectsInfoIsItsMetadata(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	s.Put(t, "lake", "t/data/f.parquet", []byte("iceberg"))
	fileiotest.CheckInfo(t, newFileIO(t, s, nil), "gs://lake/t/data/f.parquet", s.Stat(t, "lake", "t/data/f.parquet"))
}

func TestAWrongRecordedSizeIsASizeMismatch(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	data := bytes.Repeat([]byte("iceberg!"), 125)
	s.Put(t, "lake", "t/data/f.parquet", data)
	fileiotest.CheckRecordedSizes(t, newFileIO(t, s, nil), "gs://lake/t/data/f.parquet", data)
}

func TestReadDirListsOneLevel(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	for _, k := range fileiotest.ListingKeys {
		s.Put(t, "lake", k, []byte(k))
	}
	fio := newFileIO(t, s, nil)
	// Two entries a page: a folder of three takes two list calls.
	fio.listPage = 2
	fileiotest.CheckReadDir(t, fio, "gs://lake/")
	if _, err := fio.ReadDir(context.Background(), "gs://nobucket/x"); !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("ReadDir of a missing bucket = %v, want ErrNotFound", err)
	}
}

func TestCreateCommitsOnCloseAndRemoveDeletes(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	fileiotest.CheckCreateRemove(t, newFileIO(t, s, nil), "gs://lake/out/f.txt", "gs://lake/out/cut.txt")
}

func TestCreateExclusiveHasOneWinner(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	fileiotest.CheckCreateExclusive(t, newFileIO(t, s, nil), "gs://lake/t/metadata/v2.metadata.json")
}

func TestAStoppedServerIsUnavailableAndARestartedOneServes(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	s.Put(t, "lake", "t/f.bin", []byte("0123456789"))
	fio := newFileIO(t, s, nil)
	ctx := context.Background()
	f, err := fio.Open(ctx, "gs://lake/t/f.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	s.Kill()
	// The client retries (maxAttempts, with backoff) before giving up.
	if _, err := f.ReadAt(make([]byte, 4), 2); !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), "gs://lake/t/f.bin") {
		t.Fatalf("read from a stopped server = %v, want ErrUnavailable naming the file", err)
	}
	if _, err := fio.Open(ctx, "gs://lake/t/f.bin"); !errors.Is(err, fileio.ErrUnavailable) {
		t.Fatalf("open on a stopped server = %v, want ErrUnavailable", err)
	}
	s.Restart(t)
	p := make([]byte, 4)
	if _, err := f.ReadAt(p, 2); err != nil || string(p) != "2345" {
		t.Fatalf("read after restart = %q, %v", p, err)
	}
}

func TestRefusedCredentialsArePermissionDeniedWithoutTheSecret(t *testing.T) {
	t.Parallel()
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	s.Put(t, "lake", "t/f.bin", []byte("x"))
	// fake-gcs-server checks no credentials; what refuses them here is the
	// token endpoint a service-account key names (token_uri), which is the
	// emulator itself: it has no such endpoint, as a real one refuses a
	// revoked key.
	key := serviceAccountKey(t, s.Endpoint+"/token")
	for name, cred := range map[string]string{
		"inline JSON":    key,
		"base64 of JSON": base64.StdEncoding.EncodeToString([]byte(key)),
		"key file":       writeFile(t, key),
	} {
		t.Run(name, func(t *testing.T) {
			fio, err := New(context.Background(), fileio.Properties{
				"gcs.service.host": s.Endpoint, "gcs.credentials-json": cred,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer fio.Close()
			_, err = fio.Open(context.Background(), "gs://lake/t/f.bin")
			if !errors.Is(err, fileio.ErrPermissionDenied) {
				t.Fatalf("Open = %v, want ErrPermissionDenied", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, `bucket "lake"`) || !strings.Contains(msg, "gcs.credentials-json") {
				t.Errorf("message %q does not name the bucket and the credential source", msg)
			}
			if strings.Contains(msg, "PRIVATE KEY") || strings.Contains(msg, cred) {
				t.Errorf("message %q holds the secret", msg)
			}
		})
	}
}

// serviceAccountKey returns a service-account key JSON with a fresh RSA key
// whose token endpoint is tokenURI.
func serviceAccountKey(t *testing.T, tokenURI string) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     fakegcs.Project,
		"private_key_id": "k1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "reader@" + fakegcs.Project + ".iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      tokenURI,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

func writeFile(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRefusedApplicationDefaultCredentialsArePermissionDenied runs with no
// key file and no gcloud login, and GCE_METADATA_HOST pointing at the
// emulator, so that application default credentials come from a
// "metadata server" on loopback that has no token to give. (It sets the
// environment, so it cannot run in parallel.)
func TestRefusedApplicationDefaultCredentialsArePermissionDenied(t *testing.T) {
	s := fakegcs.Start(t)
	s.CreateBucket(t, "lake")
	s.Put(t, "lake", "t/f.bin", []byte("x"))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("GCE_METADATA_HOST", strings.TrimPrefix(s.Endpoint, "http://"))
	fio, err := New(context.Background(), fileio.Properties{"gcs.service.host": s.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	_, err = fio.Open(context.Background(), "gs://lake/t/f.bin")
	if !errors.Is(err, fileio.ErrPermissionDenied) || !strings.Contains(err.Error(), "application default credentials") {
		t.Fatalf("Open = %v, want ErrPermissionDenied naming application default credentials", err)
	}
}
