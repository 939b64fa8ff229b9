package azure

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	"github.com/iceflight/iceflight/testkit/servers/azurite"
)

// newFileIO returns a FileIO on s configured by props.
func newFileIO(t *testing.T, props fileio.Properties) *FileIO {
	t.Helper()
	fio, err := New(context.Background(), props)
	if err != nil {
		t.Fatal(err)
	}
	return fio
}

// TestAgainstAzurite runs the rules that need no fault on one server: a
// server per test would start Node.js once for each.
func TestAgainstAzurite(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	for name, test := range map[string]func(*testing.T, *azurite.Server){
		"every credential and endpoint spelling reads":         testEveryCredentialAndEndpointSpellingReads,
		"reads are ranged and clipped to the size":             testReadsAreRangedAndClippedToTheSize,
		"missing blobs and containers are not found":           testMissingBlobsAndContainersAreNotFound,
		"a wrong recorded size is a size mismatch":             testAWrongRecordedSizeIsASizeMismatch,
		"a blob's Info is its properties":                      testABlobsInfoIsItsProperties,
		"ReadDir lists one level":                              testReadDirListsOneLevel,
		"Create commits on Close and Remove deletes":           testCreateCommitsOnCloseAndRemoveDeletes,
		"refused credentials are permission denied, no secret": testRefusedCredentialsArePermissionDeniedWithoutTheSecret,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, s)
		})
	}
}

func testEveryCredentialAndEndpointSpellingReads(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake0")
	data := []byte(fileiotest.RangeData)
	s.Put(t, "lake0", "dir/f.bin", data)
	authority := strings.TrimPrefix(strings.TrimSuffix(s.Endpoint, "/"+azurite.Account), "http://")
	cases := map[string]fileio.Properties{
		"account key and account host": s.Props(),
		"connection string":            {"adls.connection-string": s.ConnectionString()},
		"SAS token":                    {"adls.sas-token": s.SAS(t), "adls.account-host": s.Endpoint},
		"SAS token for the host":       {"adls.sas-token." + azurite.Account + ".dfs.core.windows.net": s.SAS(t), "adls.account-host": s.Endpoint},
		"pyarrow's blob authority":     {"adls.account-key": s.Key, "adls.blob-storage-authority": authority, "adls.blob-storage-scheme": "http"},
	}
	for name, props := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fio := newFileIO(t, props)
			for _, loc := range []string{
				azurite.Location("lake0", "dir/f.bin"),
				"abfs://lake0@" + azurite.Account + ".dfs.core.windows.net/dir/f.bin",
				"wasbs://lake0@" + azurite.Account + ".blob.core.windows.net/dir/f.bin",
				"wasb://lake0@" + azurite.Account + ".blob.core.windows.net/dir/f.bin",
			} {
				got, err := fileio.ReadAll(context.Background(), fio, loc, 0)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("read %s = %q, %v", loc, got, err)
				}
			}
		})
	}
}

func testReadsAreRangedAndClippedToTheSize(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake1")
	s.Put(t, "lake1", "f.bin", []byte(fileiotest.RangeData))
	fio := newFileIO(t, s.Props())
	f, err := fio.Open(context.Background(), azurite.Location("lake1", "f.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fileiotest.CheckRanges(t, f)
}

func testMissingBlobsAndContainersAreNotFound(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake2")
	s.Put(t, "lake2", "t/data/a.parquet", []byte("PAR1....PAR1"))
	fio := newFileIO(t, s.Props())
	ctx := context.Background()
	for _, loc := range []string{azurite.Location("lake2", "missing.parquet"), azurite.Location("nocontainer", "x.parquet")} {
		if _, err := fio.Open(ctx, loc); !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), loc) {
			t.Errorf("Open(%s) = %v, want ErrNotFound naming it", loc, err)
		}
		if err := fio.Remove(ctx, loc); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("Remove(%s) = %v, want ErrNotFound", loc, err)
		}
	}
	if _, err := fio.ReadDir(ctx, azurite.Location("nocontainer", "x")); !errors.Is(err, fileio.ErrNotFound) {
		t.Errorf("ReadDir of a missing container = %v, want ErrNotFound", err)
	}

	// Planned with its size, deleted before the read: the open sends
	// nothing, the read says NotFound naming the file.
	loc := azurite.Location("lake2", "t/data/a.parquet")
	f, err := fio.OpenSized(ctx, loc, 12)
	if err != nil {
		t.Fatal(err)
	}
	s.Delete(t, "lake2", "t/data/a.parquet")
	if _, err := f.ReadAt(make([]byte, 4), 0); !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), loc) {
		t.Fatalf("read of a deleted blob = %v, want ErrNotFound naming it", err)
	}
}

func testAWrongRecordedSizeIsASizeMismatch(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake6")
	data := bytes.Repeat([]byte("iceberg!"), 125)
	s.Put(t, "lake6", "t/data/f.parquet", data)
	fileiotest.CheckRecordedSizes(t, newFileIO(t, s.Props()), azurite.Location("lake6", "t/data/f.parquet"), data)
}

func testABlobsInfoIsItsProperties(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake8")
	s.Put(t, "lake8", "t/data/f.parquet", []byte("iceberg"))
	fileiotest.CheckInfo(t, newFileIO(t, s.Props()), azurite.Location("lake8", "t/data/f.parquet"), s.Stat(t, "lake8", "t/data/f.parquet"))
}

func testReadDirListsOneLevel(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake3")
	for _, k := range fileiotest.ListingKeys {
		s.Put(t, "lake3", k, []byte(k))
	}
	fio := newFileIO(t, s.Props())
	// Two entries a page: a folder of three takes two list calls.
	fio.listPage = 2
	fileiotest.CheckReadDir(t, fio, azurite.Location("lake3", ""))
}

func testCreateCommitsOnCloseAndRemoveDeletes(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake4")
	fileiotest.CheckCreateRemove(t, newFileIO(t, s.Props()), azurite.Location("lake4", "out/f.txt"), azurite.Location("lake4", "out/cut.txt"))
	fileiotest.CheckCreateExclusive(t, newFileIO(t, s.Props()), azurite.Location("lake4", "t/metadata/v2.metadata.json"))
}

func TestAStoppedServerIsUnavailableAndARestartedOneServes(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "lake")
	s.Put(t, "lake", "t/f.bin", []byte("0123456789"))
	fio := newFileIO(t, s.Props())
	sasFIO := newFileIO(t, fileio.Properties{"adls.sas-token": s.SAS(t), "adls.account-host": s.Endpoint})
	ctx := context.Background()
	loc := azurite.Location("lake", "t/f.bin")
	f, err := fio.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	s.Kill()
	// The SDK retries (maxRetries, with backoff) before giving up.
	if _, err := f.ReadAt(make([]byte, 4), 2); !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), loc) {
		t.Fatalf("read from a stopped server = %v, want ErrUnavailable naming the file", err)
	}
	if _, err := fio.Open(ctx, loc); !errors.Is(err, fileio.ErrUnavailable) {
		t.Fatalf("open on a stopped server = %v, want ErrUnavailable", err)
	}
	// A SAS token rides in every URL, which transport errors quote: the
	// message keeps the URL and drops its query.
	_, err = sasFIO.Open(ctx, loc)
	if !errors.Is(err, fileio.ErrUnavailable) || strings.Contains(err.Error(), "sig=") || !strings.Contains(err.Error(), "?REDACTED") {
		t.Fatalf("open with a SAS on a stopped server = %v, want ErrUnavailable without the signature", err)
	}
	s.Restart(t)
	p := make([]byte, 4)
	if _, err := f.ReadAt(p, 2); err != nil || string(p) != "2345" {
		t.Fatalf("read after restart = %q, %v", p, err)
	}
}

func testRefusedCredentialsArePermissionDeniedWithoutTheSecret(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake5")
	s.Put(t, "lake5", "t/f.bin", []byte("x"))
	wrong := make([]byte, 64)
	if _, err := rand.Read(wrong); err != nil {
		t.Fatal(err)
	}
	wrongKey := base64.StdEncoding.EncodeToString(wrong)
	cases := []struct {
		name   string
		props  fileio.Properties
		secret string
		source string
	}{
		{"a wrong account key", fileio.Properties{"adls.account-key": wrongKey, "adls.account-host": s.Endpoint}, wrongKey, "adls.account-key"},
		{"a wrong key in a connection string", fileio.Properties{"adls.connection-string": strings.Replace(s.ConnectionString(), s.Key, wrongKey, 1)}, wrongKey, "adls.connection-string"},
		{"no credentials", fileio.Properties{"adls.anon": "true", "adls.account-host": s.Endpoint}, "", "adls.anon"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fio := newFileIO(t, tc.props)
			_, err := fio.Open(context.Background(), azurite.Location("lake5", "t/f.bin"))
			if !errors.Is(err, fileio.ErrPermissionDenied) {
				t.Fatalf("Open = %v, want ErrPermissionDenied", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, `container "lake5"`) || !strings.Contains(msg, tc.source) {
				t.Errorf("message %q does not name the container and %s", msg, tc.source)
			}
			if tc.secret != "" && strings.Contains(msg, tc.secret) {
				t.Errorf("message %q holds the key", msg)
			}
		})
	}
}
