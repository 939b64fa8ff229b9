package hdfs_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	hdfsclient "github.com/colinmarc/hdfs/v2"
	"go.uber.org/goleak"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/fileiotest"
	"github.com/iceflight/iceflight/fileio/hdfs"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/servers/minidfs"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// The sample table the tests upload: written by Iceberg Java (fixturegen),
// its rows in testdata/expected by the Java oracle.
const (
	tableDir = "../../testdata/warehouse/samples/trips"
	expected = "../../testdata/expected/samples.trips/current.jsonl"
	tableAt  = "/wh/samples/trips"
)

// newFileIO returns a FileIO on srv as the test process's user (the
// cluster's superuser), retrying briefly so outage tests stay short.
func newFileIO(t *testing.T, cfg hdfs.Config) *hdfs.FileIO {
	t.Helper()
	cfg.Backoff = 50 * time.Millisecond
	cfg.Timeout = 10 * time.Second
	fio := hdfs.New(cfg)
	t.Cleanup(func() { fio.Close() })
	return fio
}

// TestMiniDFS runs every rule that needs a live cluster against one.
func TestMiniDFS(t *testing.T) {
	t.Parallel()
	srv := minidfs.Start(t)
	t.Logf("MiniDFSCluster served after %v", srv.StartUp)
	ctx := context.Background()
	fio := newFileIO(t, hdfs.Config{})
	if err := srv.Upload(ctx, fio, tableDir, tableAt); err != nil {
		t.Fatal(err)
	}
	// The rules run in parallel inside one group; the outage, which kills
	// the cluster, after the group has ended.
	t.Run("live", func(t *testing.T) { liveRules(t, srv, fio) })
	t.Run("a cluster killed mid-read fails the read with Unavailable, reads again once restarted, and leaks nothing", func(t *testing.T) {
		killedMidRead(t, srv)
	})
}

// liveRules are the rules that need the cluster up.
func liveRules(t *testing.T, srv *minidfs.Server, fio *hdfs.FileIO) {
	ctx := context.Background()
	t.Run("an exclusive create has one winner", func(t *testing.T) {
		t.Parallel()
		fileiotest.CheckCreateExclusive(t, fio, srv.URL("/wh/exclusive/metadata/v2.metadata.json"))
	})
	t.Run("a table's data files read equal to the Java oracle", func(t *testing.T) {
		t.Parallel()
		schema, rows := readTable(t, fio, srv.URL(tableAt), nil)
		want, err := testutil.OracleFile(schema, expected)
		if err != nil {
			t.Fatal(err)
		}
		if d := testutil.DiffRows(rows, want); d != "" {
			t.Error(d)
		}
	})

	t.Run("a nameservice location reads through the configured host", func(t *testing.T) {
		t.Parallel()
		host, port, _ := strings.Cut(srv.Addr, ":")
		props := fileio.Properties{"hdfs.host": host, "hdfs.port": port}
		f, err := hdfs.Backend.New(ctx, props)
		if err != nil {
			t.Fatal(err)
		}
		defer f.(*hdfs.FileIO).Close()
		got, err := fileio.ReadAll(ctx, f, "hdfs://prod"+tableAt+"/metadata/version-hint.text", 0)
		if err != nil {
			t.Fatal(err)
		}
		local, _ := os.ReadFile(filepath.Join(tableDir, "metadata/version-hint.text"))
		if !bytes.Equal(got, local) {
			t.Errorf("version hint = %q, want %q", got, local)
		}
	})

	t.Run("a wrong recorded size is a size mismatch, and OpenRecorded reads the file", func(t *testing.T) {
		t.Parallel()
		loc := srv.URL("/sizes/f.bin")
		data := bytes.Repeat([]byte("iceberg!"), 125)
		w, err := fio.Create(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fileiotest.CheckRecordedSizes(t, fio, loc, data)
	})

	t.Run("a file's Info is its modification time, as the NameNode says", func(t *testing.T) {
		t.Parallel()
		loc := srv.URL("/info/f.bin")
		w, err := fio.Create(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("iceberg")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c, err := hdfsclient.NewClient(hdfsclient.ClientOptions{Addresses: []string{srv.Addr}, User: superuser(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		st, err := c.Stat("/info/f.bin")
		if err != nil {
			t.Fatal(err)
		}
		fileiotest.CheckInfo(t, fio, loc, fileio.Info{ModTime: st.ModTime()})
	})

	t.Run("a missing file is NotFound", func(t *testing.T) {
		t.Parallel()
		missing := srv.URL(tableAt + "/data/none.parquet")
		if _, err := fio.Open(ctx, missing); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("Open = %v, want ErrNotFound", err)
		}
		f, err := fio.OpenSized(ctx, missing, 10)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.ReadAt(make([]byte, 4), 0); !errors.Is(err, fileio.ErrNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("ReadAt after OpenSized = %v, want ErrNotFound naming %s", err, missing)
		}
		if err := fio.Remove(ctx, missing); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("Remove = %v, want ErrNotFound", err)
		}
		if _, err := fio.ReadDir(ctx, srv.URL("/no/such/folder")); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("ReadDir = %v, want ErrNotFound", err)
		}
	})

	t.Run("a folder lists sorted with sizes", func(t *testing.T) {
		t.Parallel()
		got, err := fio.ReadDir(ctx, srv.URL(tableAt+"/data/"))
		if err != nil {
			t.Fatal(err)
		}
		local, err := os.ReadDir(filepath.Join(tableDir, "data"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(local) {
			t.Fatalf("listed %d entries, want %d", len(got), len(local))
		}
		for i, e := range local {
			info, _ := e.Info()
			if got[i].Name != e.Name() || got[i].Size != info.Size() || got[i].IsDir {
				t.Errorf("entry %d = %+v, want %s of %d bytes", i, got[i], e.Name(), info.Size())
			}
		}
	})

	t.Run("concurrent reads of one file each get their own bytes", func(t *testing.T) {
		t.Parallel()
		name := "data/trips-00000.parquet"
		local, err := os.ReadFile(filepath.Join(tableDir, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := fio.Open(ctx, srv.URL(tableAt+"/"+name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Size() != int64(len(local)) {
			t.Fatalf("size = %d, want %d", f.Size(), len(local))
		}
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				off := int64(i * len(local) / 8)
				got := make([]byte, min(int64(300), int64(len(local))-off))
				if _, err := f.ReadAt(got, off); err != nil {
					t.Errorf("ReadAt %d: %v", off, err)
					return
				}
				if !bytes.Equal(got, local[off:off+int64(len(got))]) {
					t.Errorf("ReadAt %d: other bytes than the local file's", off)
				}
			})
		}
		wg.Wait()
	})

	t.Run("a created file appears only on Close, a cancelled one never", func(t *testing.T) {
		t.Parallel()
		dir := srv.URL("/scratch/create")
		w, err := fio.Create(ctx, dir+"/a.bin")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		if _, err := fio.Open(ctx, dir+"/a.bin"); !errors.Is(err, fileio.ErrNotFound) {
			t.Errorf("open before Close = %v, want ErrNotFound", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got, err := fileio.ReadAll(ctx, fio, dir+"/a.bin", 0); err != nil || string(got) != "hello" {
			t.Errorf("after Close: %q, %v; want hello", got, err)
		}

		cctx, cancel := context.WithCancel(ctx)
		w, err = fio.Create(cctx, dir+"/b.bin")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("partial")); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := w.Close(); !errors.Is(err, context.Canceled) {
			t.Errorf("Close after cancel = %v, want context.Canceled", err)
		}
		entries, err := fio.ReadDir(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name != "a.bin" {
			t.Errorf("folder holds %+v, want a.bin alone", entries)
		}
		if err := fio.Remove(ctx, dir+"/a.bin"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a refusal is PermissionDenied naming the NameNode and the user", func(t *testing.T) {
		t.Parallel()
		secret := srv.URL("/private/t.txt")
		w, err := fio.Create(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		chmod(t, srv.Addr, "/private", 0o700)
		other := newFileIO(t, hdfs.Config{User: "mallory"})
		_, err = other.Open(ctx, secret)
		if !errors.Is(err, fileio.ErrPermissionDenied) {
			t.Fatalf("Open as another user = %v, want ErrPermissionDenied", err)
		}
		if msg := err.Error(); !strings.Contains(msg, srv.Addr) || !strings.Contains(msg, "mallory") {
			t.Errorf("refusal %q does not name the NameNode and the user", msg)
		}
	})
}

// killedMidRead kills srv while a table is read on a FileIO of its own:
// the read ends with Unavailable; once the cluster is back, the same
// FileIO reads the table again; and it leaves no goroutine behind once
// closed.
func killedMidRead(t *testing.T, srv *minidfs.Server) {
	// What runs now (the test binary, the server's pipes, the other
	// FileIO) is not this FileIO's: compare against it.
	ignore := goleak.IgnoreCurrent()
	fio := hdfs.New(hdfs.Config{Backoff: 20 * time.Millisecond, Timeout: 5 * time.Second})
	// A file open and read from before the kill: its next read needs the
	// DataNode (and the NameNode, for a fresh reader) that are gone.
	open, err := fio.Open(context.Background(), srv.URL(tableAt+"/data/trips-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := open.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	files := 0
	_, _, err = readTableErr(t, fio, srv.URL(tableAt), func() {
		if files++; files == 1 {
			srv.Kill()
		}
	})
	if !errors.Is(err, fileio.ErrUnavailable) {
		t.Errorf("read after the cluster died = %v, want ErrUnavailable", err)
	} else {
		t.Logf("read after the cluster died: %v", err)
	}
	if files != 1 {
		t.Errorf("%d files read, want the one before the kill", files)
	}
	if _, err := open.ReadAt(buf, open.Size()/2); !errors.Is(err, fileio.ErrUnavailable) {
		t.Errorf("ReadAt of a file open across the kill = %v, want ErrUnavailable", err)
	}
	open.Close()

	srv.Restart(t)
	t.Logf("MiniDFSCluster restarted after %v", srv.StartUp)
	schema, rows := readTable(t, fio, srv.URL(tableAt), nil)
	want, err := testutil.OracleFile(schema, expected)
	if err != nil {
		t.Fatal(err)
	}
	if d := testutil.DiffRows(rows, want); d != "" {
		t.Errorf("after the restart: %s", d)
	}
	// The restarted cluster's pipes are watched by goroutines born after
	// the snapshot: end it before counting.
	srv.Kill()
	if err := fio.Close(); err != nil {
		t.Error(err)
	}
	goleak.VerifyNone(t, ignore)
}

// readTable reads every data file of the table at loc with its current
// schema, through a reader on fio, and returns the rows in canonical form.
func readTable(t *testing.T, fio fileio.FileIO, loc string, afterFile func()) (*iceberg.Schema, []string) {
	t.Helper()
	schema, rows, err := readTableErr(t, fio, loc, afterFile)
	if err != nil {
		t.Fatal(err)
	}
	return schema, rows
}

// readTableErr is readTable returning the read's error. The table's
// metadata and file list come through fio too; afterFile, if set, runs
// after each data file.
func readTableErr(t *testing.T, fio fileio.FileIO, loc string, afterFile func()) (*iceberg.Schema, []string, error) {
	t.Helper()
	ctx := context.Background()
	raw, err := fileio.ReadAll(ctx, fio, loc+"/metadata/v2.metadata.json", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.ParseMetadata(raw)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fileio.ReadDir(ctx, fio, loc+"/data")
	if err != nil {
		t.Fatal(err)
	}
	schema := md.CurrentSchema()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := reader.New(fio, reader.WithAllocator(mem))
	var rows []string
	for _, e := range entries {
		task := &scantask.Task{Path: loc + "/data/" + e.Name, Format: scantask.Parquet, FileSize: e.Size}
		err := r.Read(ctx, reader.Scan{Schema: schema}, task, func(b arrow.RecordBatch) error {
			got, err := testutil.ArrowRows(schema, b)
			rows = append(rows, got...)
			return err
		})
		if err != nil {
			return schema, rows, err
		}
		if afterFile != nil {
			afterFile()
		}
	}
	return schema, rows, nil
}

// chmod sets the mode of p on the cluster at addr, as its superuser.
func chmod(t *testing.T, addr, p string, mode os.FileMode) {
	t.Helper()
	c, err := hdfsclient.NewClient(hdfsclient.ClientOptions{Addresses: []string{addr}, User: superuser(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// superuser is the HDFS superuser of a MiniDFSCluster: whoever started it.
func superuser(t *testing.T) string {
	t.Helper()
	if u := os.Getenv("HADOOP_USER_NAME"); u != "" {
		return u
	}
	u := os.Getenv("USER")
	if u == "" {
		u = "root"
	}
	return u
}
