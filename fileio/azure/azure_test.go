package azure

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/internal/servers/azurite"
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
	data := []byte("0123456789abcdefghij")
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
	s.Put(t, "lake1", "f.bin", []byte("0123456789abcdefghij"))
	fio := newFileIO(t, s.Props())
	f, err := fio.Open(context.Background(), azurite.Location("lake1", "f.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != 20 {
		t.Fatalf("Size = %d, want 20", f.Size())
	}
	cases := []struct {
		name    string
		off     int64
		n       int
		want    string
		wantEOF bool
	}{
		{"a range inside the file", 3, 5, "34567", false},
		{"a range ending at the end", 15, 5, "fghij", false},
		{"a range past the end is clipped with io.EOF", 17, 10, "hij", true},
		{"a range starting at the end is io.EOF", 20, 4, "", true},
		{"an empty range reads nothing", 4, 0, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]byte, tc.n)
			n, err := f.ReadAt(p, tc.off)
			if got := string(p[:n]); got != tc.want {
				t.Errorf("ReadAt(%d, %d) = %q, want %q", tc.n, tc.off, got, tc.want)
			}
			if gotEOF := errors.Is(err, io.EOF); gotEOF != tc.wantEOF || (err != nil && !gotEOF) {
				t.Errorf("ReadAt(%d, %d) error %v, want EOF %v", tc.n, tc.off, err, tc.wantEOF)
			}
		})
	}
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

func testReadDirListsOneLevel(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake3")
	for _, k := range []string{"wh/t/metadata/v1.metadata.json", "wh/t/metadata/v2.metadata.json", "wh/t/metadata/snap/x.avro", "wh/t/data/a.parquet", "wh/t2/other"} {
		s.Put(t, "lake3", k, []byte(k))
	}
	fio := newFileIO(t, s.Props())
	cases := []struct {
		dir  string
		want []string
	}{
		{azurite.Location("lake3", "wh/t/metadata"), []string{"snap/", "v1.metadata.json", "v2.metadata.json"}},
		{azurite.Location("lake3", "wh/t/metadata/"), []string{"snap/", "v1.metadata.json", "v2.metadata.json"}},
		{azurite.Location("lake3", "wh"), []string{"t/", "t2/"}},
		{azurite.Location("lake3", ""), []string{"wh/"}},
		{azurite.Location("lake3", "wh/missing"), nil},
	}
	for _, tc := range cases {
		entries, err := fio.ReadDir(context.Background(), tc.dir)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", tc.dir, err)
		}
		var got []string
		for _, e := range entries {
			n := e.Name
			if e.IsDir {
				n += "/"
			} else if e.Size == 0 || e.ModTime.IsZero() {
				t.Errorf("%s: size %d, time %v", e.Name, e.Size, e.ModTime)
			}
			got = append(got, n)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("ReadDir(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

func testCreateCommitsOnCloseAndRemoveDeletes(t *testing.T, s *azurite.Server) {
	s.CreateContainer(t, "lake4")
	fio := newFileIO(t, s.Props())
	ctx := context.Background()
	loc := azurite.Location("lake4", "out/f.txt")

	w, err := fio.Create(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "hello, azure"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := fileio.ReadAll(ctx, fio, loc, 0)
	if err != nil || string(got) != "hello, azure" {
		t.Fatalf("read back %q, %v", got, err)
	}
	if err := fio.Remove(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if _, err := fio.Open(ctx, loc); !errors.Is(err, fileio.ErrNotFound) {
		t.Fatalf("Open after Remove = %v, want ErrNotFound", err)
	}

	// A write whose context ends before Close leaves nothing behind.
	cctx, cancel := context.WithCancel(ctx)
	cut := azurite.Location("lake4", "out/cut.txt")
	w, err = fio.Create(cctx, cut)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(bytes.Repeat([]byte("x"), 1000))
	cancel()
	if err := w.Close(); err == nil {
		t.Fatal("Close after the context ended succeeded")
	}
	if _, err := fio.Open(ctx, cut); !errors.Is(err, fileio.ErrNotFound) {
		t.Fatalf("Open of a cut write = %v, want ErrNotFound", err)
	}
}

func TestAStoppedServerIsUnavailableAndARestartedOneServes(t *testing.T) {
	t.Parallel()
	s := azurite.Start(t)
	s.CreateContainer(t, "lake")
	s.Put(t, "lake", "t/f.bin", []byte("0123456789"))
	fio := newFileIO(t, s.Props())
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
