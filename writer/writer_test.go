package writer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
)

// rowsSchema is the Arrow schema of the test tables' rows.
var rowsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "p", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

// row is one test row; p is id % 3.
type row struct {
	id   int64
	name string
}

// fixture is one table of a catalog with one writer over it.
type fixture struct {
	t   *testing.T
	mem *memory.CheckedAllocator
	w   *Writer
	id  catalog.Identifier
	// load reads the table's current metadata afresh.
	load func() *catalog.Table
	// files lists every file under the table's location, as locations
	// comparable with those the metadata records (see norm).
	files func() []string
	// newWriter returns another writer of the same catalog, wrapped by wrap
	// when it is not nil.
	newWriter func(wrap func(Catalog) Catalog) *Writer
}

// backend makes a fixture: a new table of format version v.
type backend struct {
	name string
	make func(t *testing.T, v int, partitioned bool, props map[string]string, opts ...Option) *fixture
}

// backends are the catalogs the tests run on; dircat_test.go adds the
// directory catalog.
var backends = []backend{{"mem", func(t *testing.T, v int, partitioned bool, props map[string]string, opts ...Option) *fixture {
	f, _ := newMemFixture(t, v, partitioned, props, opts...)
	return f
}}}

// each runs a test on every backend.
func each(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// create creates the fixture's table: rowsSchema, partitioned by p.
func (f *fixture) create(v int, partitioned bool, props map[string]string) {
	f.t.Helper()
	req := CreateTable{Schema: rowsSchema, FormatVersion: v, Properties: props}
	if partitioned {
		req.PartitionBy = []PartitionField{{Source: "p", Transform: "identity"}}
	}
	if _, err := f.w.CreateTable(context.Background(), f.id, req); err != nil {
		f.t.Fatalf("create table: %v", err)
	}
}

// batch builds a record of rows (p = id % 3).
func (f *fixture) batch(rows ...row) arrow.RecordBatch {
	b := array.NewRecordBuilder(f.mem, rowsSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.name)
		b.Field(2).(*array.Int32Builder).Append(int32(r.id % 3))
	}
	return b.NewRecordBatch()
}

func rowsOf(ids ...int64) []row {
	out := make([]row, len(ids))
	for i, id := range ids {
		out[i] = row{id, fmt.Sprintf("name-%d", id)}
	}
	return out
}

func span(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// stream is a RecordReader over batches; failAfter > 0 makes it fail
// after that many batches.
func (f *fixture) stream(failAfter int, batches ...[]row) array.RecordReader {
	recs := make([]arrow.RecordBatch, len(batches))
	for i, b := range batches {
		recs[i] = f.batch(b...)
	}
	r := &failingReader{recs: recs, failAfter: failAfter}
	f.t.Cleanup(r.release)
	return r
}

type failingReader struct {
	recs      []arrow.RecordBatch
	i         int
	failAfter int
	cur       arrow.RecordBatch
	err       error
}

func (r *failingReader) Retain() {}

func (r *failingReader) Release() {}

func (r *failingReader) Schema() *arrow.Schema { return rowsSchema }

func (r *failingReader) Next() bool {
	if r.failAfter > 0 && r.i == r.failAfter {
		r.err = errors.New("the client went away")
		return false
	}
	if r.i >= len(r.recs) {
		return false
	}
	r.cur = r.recs[r.i]
	r.i++
	return true
}

func (r *failingReader) RecordBatch() arrow.RecordBatch { return r.cur }

func (r *failingReader) Record() arrow.RecordBatch { return r.cur }

func (r *failingReader) Err() error { return r.err }

func (r *failingReader) release() {
	for _, rec := range r.recs {
		rec.Release()
	}
}

func (f *fixture) write(mode Mode, filter string, ids ...int64) *Result {
	f.t.Helper()
	res, err := f.w.Write(context.Background(), f.id, WriteRequest{Mode: mode, Filter: filter}, f.stream(0, rowsOf(ids...)))
	if err != nil {
		f.t.Fatalf("write: %v", err)
	}
	return res
}

func (f *fixture) delete(req DeleteRequest) *Result {
	f.t.Helper()
	res, err := f.w.Delete(context.Background(), f.id, req)
	if err != nil {
		f.t.Fatalf("delete %q: %v", req.Filter, err)
	}
	return res
}

// ids reads the table back through the planner and the reader (deletes
// applied) and returns the sorted ids, checking each row's name and p.
func (f *fixture) ids() []int64 { return f.idsOf("") }

// idsOf reads a branch (or tag) of the table; "" is the current snapshot.
func (f *fixture) idsOf(ref string) []int64 {
	f.t.Helper()
	t := f.load()
	ctx := context.Background()
	req := planner.Request{}
	req.Ref = ref
	plan, err := planner.New().Plan(ctx, planner.Table{Name: "t", MetadataLocation: t.MetadataLocation, Metadata: t.Metadata, IO: t.IO}, req)
	if err != nil {
		f.t.Fatal(err)
	}
	rd := reader.New(t.IO, reader.WithAllocator(f.mem))
	scan := reader.Scan{Schema: plan.Schema, EqualitySchema: plan.EqualitySchema, FilterSchema: plan.FilterSchema}
	var out []int64
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			err := rd.Read(ctx, scan, task, func(b arrow.RecordBatch) error {
				ids := b.Column(0).(*array.Int64)
				names := b.Column(1).(*array.String)
				ps := b.Column(2).(*array.Int32)
				for i := 0; i < ids.Len(); i++ {
					id := ids.Value(i)
					if names.Value(i) != fmt.Sprintf("name-%d", id) || ps.Value(i) != int32(id%3) {
						return fmt.Errorf("row %d reads name %q p %d", id, names.Value(i), ps.Value(i))
					}
					out = append(out, id)
				}
				return nil
			})
			if err != nil {
				f.t.Fatal(err)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (f *fixture) wantIDs(want []int64) {
	f.t.Helper()
	if got := f.ids(); !slices.Equal(got, want) {
		f.t.Fatalf("table holds ids %v, want %v", got, want)
	}
}

// referenced returns every file the table's metadata reaches: metadata
// files, manifest lists, manifests, data and delete files.
func (f *fixture) referenced() map[string]bool {
	f.t.Helper()
	t := f.load()
	ctx := context.Background()
	refs := map[string]bool{norm(t.MetadataLocation): true}
	for _, l := range t.Metadata.MetadataLog {
		refs[norm(l.MetadataFile)] = true
	}
	p := &producer{t: t, md: t.Metadata}
	for i := range t.Metadata.Snapshots {
		s := &t.Metadata.Snapshots[i]
		refs[norm(s.ManifestList)] = true
		mfs, err := p.readList(ctx, s)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, mf := range mfs {
			refs[norm(mf.Path)] = true
			entries, err := readManifest(ctx, t, mf)
			if err != nil {
				f.t.Fatal(err)
			}
			for _, e := range entries {
				refs[norm(e.DataFile.Path)] = true
			}
		}
	}
	return refs
}

// norm makes a local location and a path comparable.
func norm(loc string) string {
	if strings.HasPrefix(loc, "mem:") {
		return loc
	}
	return filepath.Clean(strings.TrimPrefix(loc, "file://"))
}

// orphans lists the files under the table's location that its metadata
// does not reach (the version hint aside).
func (f *fixture) orphans() []string {
	f.t.Helper()
	refs := f.referenced()
	var out []string
	for _, p := range f.files() {
		if !refs[norm(p)] && !strings.HasSuffix(p, "version-hint.text") {
			out = append(out, p)
		}
	}
	return out
}

func (f *fixture) wantNoOrphans() {
	f.t.Helper()
	if o := f.orphans(); len(o) > 0 {
		f.t.Fatalf("files the table does not reference: %v", o)
	}
}

func (f *fixture) current() *iceberg.Snapshot {
	f.t.Helper()
	return f.load().Metadata.CurrentSnapshot()
}
