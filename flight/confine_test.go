package flight

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// tripsRecorded is where the sample trips table was written (its metadata's
// location); its manifest list, manifest and data files record paths below
// it. It is read from the fixture, which records the generator's folder.
var tripsRecorded = recordedLocation("samples", "trips")

// recordedLocation returns the location a sample table's metadata records.
func recordedLocation(namespace, table string) string {
	cat, err := catalog.NewDirectory(warehouse)
	if err != nil {
		panic(err) // the fixture is part of the repository
	}
	tbl, err := cat.LoadTable(context.Background(), catalog.Identifier{namespace, table})
	if err != nil {
		panic(err)
	}
	return strings.TrimSuffix(tbl.Metadata.Location, "/")
}

// hostileWarehouse builds a warehouse of two copies of samples.trips:
// a.trips, the real one, and b.trips, which claims another location but
// whose manifest list names its own copy of the manifest, and so the data
// files recorded there, below trips' recorded location. It returns the
// warehouse root and the folder of a.trips.
func hostileWarehouse(t *testing.T) (root, aFolder string) {
	t.Helper()
	src := filepath.Join(warehouse, "samples", "trips")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("sample warehouse missing: %v", err)
	}
	root = t.TempDir()
	aFolder = filepath.Join(root, "a", "trips")
	bMeta := filepath.Join(root, "b", "trips", "metadata")
	testutil.CopyTree(t, src, aFolder)
	const bRecorded = "file:/elsewhere/b/trips"
	entries, err := os.ReadDir(filepath.Join(src, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(bMeta, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, "metadata", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(e.Name(), ".metadata.json"):
			// Only the table's own files move; the manifest list is b's.
			b = []byte(strings.ReplaceAll(string(b), tripsRecorded+"/metadata/snap-", bRecorded+"/metadata/snap-"))
			b = []byte(strings.ReplaceAll(string(b), `"location":"`+tripsRecorded+`"`, `"location":"`+bRecorded+`"`))
		case strings.HasPrefix(e.Name(), "snap-"):
			b = testutil.RewriteAvroPrefix(t, b, "manifest_path", tripsRecorded+"/metadata/", bRecorded+"/metadata/")
		}
		if err := os.WriteFile(filepath.Join(bMeta, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, aFolder
}

// A table whose manifests name another table's files hands none of its
// rows to a caller who may read only the first table; a caller who may
// read both gets them. Without a rule leading there, the same files lie
// outside the warehouse and nobody gets them.
func TestPlanRefusesFilesOfAnotherTable(t *testing.T) {
	t.Parallel()
	root, aFolder := hostileWarehouse(t)
	intoA := catalog.WithRules(fileio.Rule{From: tripsRecorded, To: aFolder})
	onlyB := &engine.Principal{Name: "b-reader", Namespaces: []string{"b"}}
	both := &engine.Principal{Name: "ab-reader", Namespaces: []string{"a", "b"}}
	// Mounted as catalog "lake", the tables are lake.a.trips and
	// lake.b.trips, and grants name them so.
	onlyLakeB := &engine.Principal{Name: "lake-b-reader", Namespaces: []string{"lake.b", "a"}}
	lake := &engine.Principal{Name: "lake-reader", Namespaces: []string{"lake"}}
	cases := []struct {
		name      string
		rules     []catalog.Option
		principal *engine.Principal // nil: authentication off
		mounted   bool              // the warehouse mounted as catalog lake
		want      codes.Code
		wantErr   string
	}{
		{"mounted, lake.b's reader may not read lake.a's files", []catalog.Option{intoA}, onlyLakeB, true, codes.PermissionDenied, "may not read"},
		{"mounted, a reader of the whole catalog may", []catalog.Option{intoA}, lake, true, codes.OK, ""},
		{"b's reader may not read a's files", []catalog.Option{intoA}, onlyB, false, codes.PermissionDenied, "may not read"},
		{"a reader of a and b may", []catalog.Option{intoA}, both, false, codes.OK, ""},
		{"without authentication every table may be read", []catalog.Option{intoA}, nil, false, codes.OK, ""},
		{"files outside the warehouse are refused to anyone", nil, both, false, codes.PermissionDenied, "outside the warehouse"},
		{"files outside the warehouse are refused without authentication", nil, nil, false, codes.PermissionDenied, "outside the warehouse"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, err := catalog.NewDirectory(root, tc.rules...)
			if err != nil {
				t.Fatal(err)
			}
			var cat catalog.Catalog = dir
			path := []string{"b", "trips"}
			if tc.mounted {
				if cat, err = catalog.NewRegistry(map[string]catalog.Catalog{"lake": dir}); err != nil {
					t.Fatal(err)
				}
				path = append([]string{"lake"}, path...)
			}
			data := &testutil.CountingIO{Base: fileio.NewResolver()}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			var opts []engine.Option
			ctx := context.Background()
			if tc.principal != nil {
				a, err := engine.NewAuthenticator(newCredentials(t, "confine-token-0123456789 b\n", ""), sessionSecret)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, engine.WithAuthenticator(a))
				ctx = engine.ContextWithPrincipal(ctx, tc.principal)
			}
			svc := newService(cat, reader.New(data, reader.WithAllocator(mem)), testSigner(t, 7), append(opts, engine.WithAllocator(mem))...)
			info, err := svc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: path})
			if status.Code(err) != tc.want {
				t.Fatalf("GetFlightInfo = %v, want %v", err, tc.want)
			}
			if err != nil {
				msg := status.Convert(err).Message()
				if !strings.Contains(msg, tc.wantErr) || strings.Contains(msg, root) {
					t.Errorf("error %q: want %q, and no server path", msg, tc.wantErr)
				}
				if n := data.Opens.Load(); n != 0 {
					t.Errorf("a refused plan opened %d data files", n)
				}
				return
			}
			if info.TotalRecords != 20000 {
				t.Errorf("TotalRecords = %d, want 20000", info.TotalRecords)
			}
			for _, ep := range info.Endpoint {
				var md engine.EndpointMetadata
				if err := json.Unmarshal(ep.AppMetadata, &md); err != nil {
					t.Fatal(err)
				}
				for _, f := range md.Files {
					if !strings.HasPrefix(f, tripsRecorded+"/data/") {
						t.Errorf("app_metadata names %q, not the recorded path", f)
					}
				}
			}
		})
	}
}

func TestConfinementErrorCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want codes.Code
	}{
		{"a file outside the warehouse is PermissionDenied", fmt.Errorf("table b.t: data file /etc/passwd: %w", catalog.ErrOutsideWarehouse), codes.PermissionDenied},
		{"another table's file is PermissionDenied", fmt.Errorf("table b.t: data file x: %w", catalog.ErrOtherTable), codes.PermissionDenied},
		{"a local file outside the roots is PermissionDenied", fmt.Errorf("open x: %w", fileio.ErrOutsideRoot), codes.PermissionDenied},
		{"a FIFO or folder as a file is FailedPrecondition", fmt.Errorf("open x: %w", fileio.ErrNotRegular), codes.FailedPrecondition},
	}
	for _, tc := range cases {
		if got := engine.Code(tc.err); got != tc.want {
			t.Errorf("%s: code %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A read that fails names its file relative to the table, never by the
// server's path.
func TestDoGetErrorsShowNoServerPath(t *testing.T) {
	t.Parallel()
	root, aFolder := hostileWarehouse(t)
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	h := serveCatalog(t, cat, 1000)
	info, err := h.client.GetFlightInfo(context.Background(), testutil.PathDesc("a", "trips"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(aFolder, "data", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("data files: %v %v", files, err)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	stream, err := h.client.DoGet(context.Background(), info.Endpoint[0].Ticket)
	for err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.NotFound {
		t.Fatalf("DoGet of a removed file = %v, want NotFound", err)
	}
	if msg := status.Convert(err).Message(); strings.Contains(msg, root) || !strings.Contains(msg, "data/") {
		t.Errorf("error %q shows the server path or no file", msg)
	}
}

// A FIFO in a manifest list's place would block open(2) for good: the
// plan fails at once with FailedPrecondition naming the file.
func TestPlanRefusesAFIFOManifestList(t *testing.T) {
	t.Parallel()
	root, aFolder := hostileWarehouse(t)
	lists, err := filepath.Glob(filepath.Join(aFolder, "metadata", "snap-*.avro"))
	if err != nil || len(lists) != 1 {
		t.Fatalf("manifest lists: %v %v", lists, err)
	}
	if err := os.Remove(lists[0]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(lists[0], 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cat, err := catalog.NewDirectory(root)
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(cat, nil, testSigner(t, 7))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = svc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"a", "trips"}})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("GetFlightInfo = %v, want FailedPrecondition", err)
	}
	if msg := status.Convert(err).Message(); !strings.Contains(msg, filepath.Base(lists[0])) || strings.Contains(msg, root) {
		t.Errorf("error %q does not name the manifest list as recorded", msg)
	}
}

// outsideTable copies samples.trips to root/c/trips with its data files
// in outside, and has its manifest name them with prefix, or, for an empty
// prefix, keeps the recorded paths and makes the data folder a symlink to
// outside.
func outsideTable(t *testing.T, root, outside, prefix string) {
	t.Helper()
	src := filepath.Join(warehouse, "samples", "trips")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("sample warehouse missing: %v", err)
	}
	folder := filepath.Join(root, "c", "trips")
	testutil.CopyTree(t, filepath.Join(src, "metadata"), filepath.Join(folder, "metadata"))
	testutil.CopyTree(t, filepath.Join(src, "data"), outside)
	if prefix == "" {
		if err := os.Symlink(outside, filepath.Join(folder, "data")); err != nil {
			t.Fatal(err)
		}
		return
	}
	manifests, err := filepath.Glob(filepath.Join(folder, "metadata", "*-m0.avro"))
	if err != nil || len(manifests) != 1 {
		t.Fatalf("manifests: %v %v", manifests, err)
	}
	b, err := os.ReadFile(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	b = testutil.RewriteAvroPrefix(t, b, "data_file.file_path", tripsRecorded+"/data/", prefix)
	if err := os.WriteFile(manifests[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Data files named by absolute paths, by '..' past the table's location,
// by relative paths or through a symlink out of the warehouse are refused
// whoever asks; once their folder is an allowed root, the same table
// serves all its rows, so the refusal is what stands between them.
func TestPlanRefusesDataOutsideTheWarehouse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		prefix func(outside string) string
	}{
		{"absolute paths", func(outside string) string { return "file:" + outside + "/" }},
		{"the recorded location and '..'", func(outside string) string {
			// Enough ".." to climb from the recorded location to "/".
			up := strings.Count(strings.TrimPrefix(tripsRecorded, "file:"), "/")
			return tripsRecorded + strings.Repeat("/..", up) + outside + "/"
		}},
		{"relative paths", func(string) string { return "../../../outside/" }},
		{"a symlinked data folder", func(string) string { return "" }},
	}
	for _, tc := range cases {
		for _, allowed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, allowed %v", tc.name, allowed), func(t *testing.T) {
				t.Parallel()
				base := t.TempDir()
				root, outside := filepath.Join(base, "wh"), filepath.Join(base, "outside")
				outsideTable(t, root, outside, tc.prefix(outside))
				var opts []catalog.Option
				if allowed {
					opts = append(opts, catalog.WithAllowedRoots(outside))
				}
				cat, err := catalog.NewDirectory(root, opts...)
				if err != nil {
					t.Fatal(err)
				}
				h := serveCatalog(t, cat, 1000)
				ctx := context.Background()
				info, err := h.client.GetFlightInfo(ctx, testutil.PathDesc("c", "trips"))
				if !allowed {
					if status.Code(err) != codes.PermissionDenied {
						t.Fatalf("GetFlightInfo = %v, want PermissionDenied", err)
					}
					// The file is named as the manifest records it, and
					// the server's paths only where the record has them.
					recorded := tc.prefix(outside)
					if recorded == "" {
						recorded = tripsRecorded + "/data/"
					}
					msg := status.Convert(err).Message()
					if !strings.Contains(msg, recorded) || !strings.Contains(recorded, base) && strings.Contains(msg, base) {
						t.Errorf("error %q does not name the file as recorded (%s...)", msg, recorded)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if rows := h.readAll(ctx, t, info); rows != 20000 {
					t.Errorf("%d rows, want 20000", rows)
				}
			})
		}
	}
}
