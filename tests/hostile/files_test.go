//go:build linux

package hostile_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/iceflight/iceflight/client"
)

// giant is the apparent size of the sparse files: far more than the
// machine's memory, none of it on disk.
const giant = 64 << 30

// fileCase is a table in namespace a one of whose files is hostile in
// itself: a sparse giant, a FIFO, a corrupt footer, text where JSON
// belongs.
type fileCase struct {
	name string
	// build turns tb, a copy of samples.trips, hostile and returns the
	// names of the hostile files, one of which the error must carry.
	build func(tb *table) []string
	want  codes.Code
}

// Issue 15 items 3 and 9: a file too large to hold, or not what its table
// says it is, fails the call with FailedPrecondition naming the file, and
// the process lives on.
var fileCases = []fileCase{
	{"64 GiB sparse metadata file", func(tb *table) []string {
		return []string{sparse(tb.t, tb.metadataFile())}
	}, codes.FailedPrecondition},
	{"64 GiB sparse manifest list", func(tb *table) []string {
		return []string{sparse(tb.t, tb.manifestList())}
	}, codes.FailedPrecondition},
	{"64 GiB sparse manifest, its length recorded", func(tb *table) []string {
		name := sparse(tb.t, tb.manifests()[0])
		tb.editManifestList(func(rec map[string]any) { rec["manifest_length"] = int64(giant) })
		return []string{name}
	}, codes.FailedPrecondition},
	{"64 GiB sparse data files, their sizes recorded", func(tb *table) []string {
		var names []string
		for _, f := range tb.dataFiles() {
			names = append(names, sparse(tb.t, f))
		}
		tb.editEntries(func(entries []map[string]any) []map[string]any {
			for _, e := range entries {
				dataFile(e)["file_size_in_bytes"] = int64(giant)
			}
			return entries
		})
		return names
	}, codes.FailedPrecondition},
	{"Parquet files without their PAR1 magic", func(tb *table) []string {
		return footers(tb, func(b []byte) { copy(b[len(b)-4:], "XXXX") })
	}, codes.FailedPrecondition},
	{"Parquet footers claiming 2 GiB", func(tb *table) []string {
		return footers(tb, func(b []byte) { binary.LittleEndian.PutUint32(b[len(b)-8:], 1<<31-1) })
	}, codes.FailedPrecondition},
	{"Parquet footers of garbage", func(tb *table) []string {
		return footers(tb, func(b []byte) {
			n := binary.LittleEndian.Uint32(b[len(b)-8:])
			for i := len(b) - 8 - int(n); i < len(b)-8; i++ {
				b[i] = 0xff
			}
		})
	}, codes.FailedPrecondition},
	{"metadata file of /etc/passwd-like text", func(tb *table) []string {
		tb.write(tb.metadataFile(), []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"))
		return []string{filepath.Base(tb.metadataFile())}
	}, codes.FailedPrecondition},
	{"metadata file symlinked to /etc/passwd", func(tb *table) []string {
		symlink(tb.t, "/etc/passwd", tb.metadataFile())
		return []string{filepath.Base(tb.metadataFile())}
	}, codes.PermissionDenied},
}

// sparse makes path a sparse file of giant bytes that starts with its old
// content, and returns its name.
func sparse(t *testing.T, path string) string {
	t.Helper()
	if err := os.Truncate(path, giant); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(path)
}

// footers damages the end of every data file of tb with damage and
// returns their names.
func footers(tb *table, damage func([]byte)) []string {
	var names []string
	for _, f := range tb.dataFiles() {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.t.Fatal(err)
		}
		damage(b)
		tb.write(f, b)
		names = append(names, filepath.Base(f))
	}
	return names
}

func TestHostileFilesFailTheirCallOnly(t *testing.T) {
	wh := newWarehouse(t)
	names := map[string][]string{}
	idents := map[string]string{}
	for i, tc := range fileCases {
		ident := "a.file_" + string(rune('a'+i))
		idents[tc.name] = ident
		names[tc.name] = tc.build(copySample(t, wh, "trips", ident))
	}
	ss := &servers{t: t, warehouse: wh}
	for _, tc := range fileCases {
		s := ss.get()
		t.Run(tc.name, func(t *testing.T) {
			rows, err := scan(s.dial(t, tokenA), client.Command{Table: idents[tc.name]})
			s.expectRefused(t, rows, err, tc.want, names[tc.name]...)
			s.checkHealthy(t)
		})
	}
}

// fifoCases make files of a table FIFOs, which block whoever opens them
// until a writer comes (a hung NFS or FUSE mount in life).
var fifoCases = []struct {
	name  string
	paths func(tb *table) []string
}{
	{"metadata file", func(tb *table) []string { return []string{tb.metadataFile()} }},
	{"manifest list", func(tb *table) []string { return []string{tb.manifestList()} }},
	{"manifest", (*table).manifests},
	{"data files", (*table).dataFiles},
}

// fifoWait is how long a client waits on a table with a FIFO before it
// gives up; a server that refuses FIFOs answers long before.
const fifoWait = 15 * time.Second

// Issue 15 items 4 and 6: a FIFO where a table's file belongs is refused
// (FailedPrecondition naming it) rather than opened, and even a call that
// blocked gives its plan or stream slot back when its client leaves: a
// server of one plan and two stream slots still serves a normal read of
// two streams at once afterwards.
func TestFIFOsAreRefusedAndHoldNoSlot(t *testing.T) {
	for i, tc := range fifoCases {
		t.Run(tc.name, func(t *testing.T) {
			wh := newWarehouse(t)
			ident := "a.fifo_" + string(rune('a'+i))
			paths := tc.paths(copySample(t, wh, "trips", ident))
			var names []string
			for _, p := range paths {
				fifo(t, p)
				names = append(names, filepath.Base(p))
			}
			s := startServer(t, wh, "--max-plans", "1", "--max-streams", "2", "--drain-timeout", "1s")
			// Runs before the server's stop: a writer that comes and goes
			// lets a blocked open return, so the stop need not wait on it.
			t.Cleanup(func() {
				for _, p := range paths {
					unblock(p)
				}
			})
			rows, err := scanWithin(s.dial(t, tokenA), client.Command{Table: ident}, fifoWait)
			s.expectRefused(t, rows, err, codes.FailedPrecondition, names...)
			s.checkHealthy(t)
		})
	}
}

// fifo replaces path with a FIFO.
func fifo(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unblock opens the FIFO at path for writing and closes it, which ends
// the open (and then the read, at EOF) of a reader blocked on it. Without
// a reader there is nothing to do: the non-blocking open fails.
func unblock(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
