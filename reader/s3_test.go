package reader

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/s3"
	"github.com/iceflight/iceflight/testkit/servers/versitygw"
	"github.com/iceflight/iceflight/testkit/testutil"
)

// These tests read data files from a real S3 server (versitygw) through
// fileio/s3, as a worker reads a table that lives on an object store.

// methodCounter counts the HTTP requests of a FileIO by method.
type methodCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

func (c *methodCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[req.Method]++
	c.mu.Unlock()
	return c.next.RoundTrip(req)
}

func (c *methodCounter) take() (gets, heads int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gets, heads = c.n[http.MethodGet], c.n[http.MethodHead]
	c.n = nil
	return gets, heads
}

// s3IO returns a FileIO of srv, made Cancelable as the storage registry
// makes every FileIO, and the counter of its requests.
func s3IO(t *testing.T, srv *versitygw.Server) (fileio.FileIO, *methodCounter) {
	t.Helper()
	c := &methodCounter{}
	fio, err := s3.New(context.Background(), srv.Props(), s3.WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		c.next = rt
		return c
	}))
	if err != nil {
		t.Fatal(err)
	}
	return fileio.Cancelable(fio), c
}

// TestS3WarehouseTablesReadEqualTheOracle uploads tables of the sample
// warehouse to S3 and reads each data file of the current snapshot, with
// the delete files that apply, from there: the rows must be Iceberg Java's
// (testdata/expected).
func TestS3WarehouseTablesReadEqualTheOracle(t *testing.T) {
	t.Parallel()
	srv := versitygw.StartBucket(t, "lake", nil)
	fio, _ := s3IO(t, srv)
	wh, err := catalog.NewDirectory("../testdata/warehouse")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"trips", "all_types", "pos_deletes_rowgroups", "eq_deletes_evolved", "dv_many_files"} {
		t.Run(name, func(t *testing.T) {
			local, err := filepath.Abs(filepath.Join("../testdata/warehouse/samples", name))
			if err != nil {
				t.Fatal(err)
			}
			root := srv.Upload(t, local, "lake", "wh/samples/"+name)
			tbl, err := wh.LoadTable(context.Background(), catalog.Identifier{"samples", name})
			if err != nil {
				t.Fatal(err)
			}
			schema, want := oracleScanIn(t, "../testdata/expected", "samples."+name)
			mapping, err := tbl.Metadata.NameMapping()
			if err != nil {
				t.Fatal(err)
			}
			tasks, eq := corpusTasks(t, tbl, schema)
			toS3 := func(p string) string {
				abs, err := filepath.Abs(p)
				if err != nil {
					t.Fatal(err)
				}
				rel, err := filepath.Rel(local, abs)
				if err != nil || strings.HasPrefix(rel, "..") {
					t.Fatalf("%s lies outside %s", p, local)
				}
				return root + "/" + filepath.ToSlash(rel)
			}
			mem := checkedAlloc(t)
			r := New(fio, WithAllocator(mem), WithBatchSize(500), WithValidation(true))
			scan := Scan{Schema: schema, NameMapping: mapping, EqualitySchema: eq}
			var got []string
			for _, task := range tasks {
				task.Path = toS3(task.Path)
				for _, d := range task.Deletes {
					d.Path = toS3(d.Path)
				}
				err := r.Read(context.Background(), scan, task, func(rec arrow.RecordBatch) error {
					rows, err := testutil.ArrowRows(schema, rec)
					got = append(got, rows...)
					return err
				})
				if err != nil {
					t.Fatalf("read %s: %v", task.Path, err)
				}
			}
			if d := testutil.DiffRows(got, want); d != "" {
				t.Errorf("samples.%s from S3: %s", name, d)
			}
			t.Logf("samples.%s: %d rows from %d data files on S3 equal the oracle's", name, len(got), len(tasks))
		})
	}
}

// bigColumnsFile writes, with arrow-go's Parquet writer, a file of four
// int64 columns a, b, c, d of random values (so that no dictionary or
// compression shrinks a column chunk below the coalescing gap) in two row
// groups, each column chunk about 1.6 MB: too large to be read whole.
func bigColumnsFile(t *testing.T) []byte {
	t.Helper()
	const rows = 400000
	fields := make([]arrow.Field, 4)
	cols := make([]arrow.Array, 4)
	rng := rand.New(rand.NewPCG(1, 2))
	for i, name := range []string{"a", "b", "c", "d"} {
		fields[i] = arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: false, Metadata: fid(i + 1)}
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for range rows {
			b.Append(rng.Int64())
		}
		cols[i] = b.NewArray()
		b.Release()
		defer cols[i].Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rows)
	defer rec.Release()
	return writeRecord(t, rec, rows/2)
}

// TestS3RowGroupChunksCostOneGetPerCoalescedRange reads projections of a
// Parquet file on S3 and counts the requests: the footer's one GET, then
// per row group one GET per run of neighbouring projected column chunks,
// where pqarrow alone would send one per 64 KiB it buffers.
func TestS3RowGroupChunksCostOneGetPerCoalescedRange(t *testing.T) {
	t.Parallel()
	data := bigColumnsFile(t)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"wide/data/f.parquet": data})
	fio, c := s3IO(t, srv)
	const loc = "s3://lake/wide/data/f.parquet"
	tests := []struct {
		name    string
		columns string
		// ranges is the number of coalesced ranges per row group.
		ranges int
	}{
		{"neighbouring chunks are one GET", `[{"id":1,"name":"a","required":true,"type":"long"},{"id":2,"name":"b","required":true,"type":"long"}]`, 1},
		{"a chunk between projected chunks keeps them apart", `[{"id":1,"name":"a","required":true,"type":"long"},{"id":3,"name":"c","required":true,"type":"long"}]`, 2},
		{"one column is one GET", `[{"id":4,"name":"d","required":true,"type":"long"}]`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := checkedAlloc(t)
			r := New(fio, WithAllocator(mem), WithBatchSize(8192))
			task := parquetTask(loc)
			task.FileSize = int64(len(data))
			c.take()
			rows := 0
			err := r.Read(context.Background(), Scan{Schema: schemaOf(t, tc.columns)}, task, func(rec arrow.RecordBatch) error {
				rows += int(rec.NumRows())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rows != 400000 {
				t.Fatalf("read %d rows, want 400000", rows)
			}
			gets, heads := c.take()
			if want := 1 + 2*tc.ranges; gets != want {
				t.Errorf("%d GETs, want %d: the footer and %d per row group", gets, want, tc.ranges)
			}
			// The task carries the file's size: opening costs no HEAD.
			if heads != 0 {
				t.Errorf("%d HEADs for one data file", heads)
			}
			t.Logf("%s: %d GETs, %d HEADs for %d bytes", tc.name, gets, heads, len(data))
		})
	}
}

// TestS3ReaderFailsUnavailableWhenTheServerIsGone reads a data file from a
// server that was killed after the file was opened: the read ends
// Unavailable, naming the file, with no Arrow memory left; restarted, the
// next read works.
func TestS3ReaderFailsUnavailableWhenTheServerIsGone(t *testing.T) {
	t.Parallel()
	data := bigColumnsFile(t)
	srv := versitygw.StartBucket(t, "lake", map[string][]byte{"f.parquet": data})
	fio, err := s3.New(context.Background(), srv.Props(), s3.WithRetry(3, 1))
	if err != nil {
		t.Fatal(err)
	}
	schema := schemaOf(t, `[{"id":1,"name":"a","required":true,"type":"long"}]`)
	task := parquetTask("s3://lake/f.parquet")
	task.FileSize = int64(len(data))
	read := func(kill bool) error {
		mem := checkedAlloc(t)
		r := New(fileio.Cancelable(fio), WithAllocator(mem))
		return r.Read(context.Background(), Scan{Schema: schema}, task, func(arrow.RecordBatch) error {
			if kill {
				srv.Kill()
			}
			return nil
		})
	}
	err = read(true)
	if !errors.Is(err, fileio.ErrUnavailable) || !strings.Contains(err.Error(), "s3://lake/f.parquet") {
		t.Fatalf("read with the server killed mid-stream: %v, want Unavailable naming the file", err)
	}
	srv.Restart(t)
	if err := read(false); err != nil {
		t.Fatalf("read after restart: %v", err)
	}
}
