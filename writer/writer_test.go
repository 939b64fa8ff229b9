package writer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/planner"
	"github.com/iceflight/iceflight/reader"
	"github.com/iceflight/iceflight/writer/datafile"
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

func (r *failingReader) Retain()               {}
func (r *failingReader) Release()              {}
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
func (r *failingReader) Record() arrow.RecordBatch      { return r.cur }
func (r *failingReader) Err() error                     { return r.err }
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

func versions() []struct {
	v           int
	partitioned bool
} {
	return []struct {
		v           int
		partitioned bool
	}{{1, false}, {2, false}, {2, true}, {3, false}, {3, true}}
}

func TestAppendReadsBackAsWritten(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, c := range versions() {
			t.Run(fmt.Sprintf("v%d partitioned=%v", c.v, c.partitioned), func(t *testing.T) {
				t.Parallel()
				f := b.make(t, c.v, c.partitioned, nil)
				res := f.write(Append, "", span(0, 10)...)
				if res.AddedRecords != 10 || res.Operation != "append" || res.Attempts != 1 || res.SnapshotID <= 0 {
					t.Fatalf("result %+v", res)
				}
				wantFiles := int64(1)
				if c.partitioned {
					wantFiles = 3
				}
				if res.AddedDataFiles != wantFiles {
					t.Fatalf("added %d data files, want %d", res.AddedDataFiles, wantFiles)
				}
				f.write(Append, "", span(10, 15)...)
				f.wantIDs(span(0, 15))
				s := f.current()
				sum := s.Summary.Map()
				if sum["total-records"] != "15" || sum["added-records"] != "5" || sum["operation"] != "append" {
					t.Fatalf("summary %v", sum)
				}
				if c.v >= 2 && s.SequenceNumber != 2 {
					t.Fatalf("sequence number %d, want 2", s.SequenceNumber)
				}
				if c.v >= 3 && (s.FirstRowID == nil || *s.FirstRowID != 10 || s.AddedRows == nil || *s.AddedRows != 5) {
					t.Fatalf("row lineage first-row-id %v added-rows %v, want 10 and 5", s.FirstRowID, s.AddedRows)
				}
				f.wantNoOrphans()
			})
		}
	})
}

func TestWriteRefusesAMismatchedStreamBeforeWriting(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, nil)
		other := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "extra", Type: arrow.BinaryTypes.String}}, nil)
		rr, err := array.NewRecordReader(other, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		_, err = f.w.Write(context.Background(), f.id, WriteRequest{}, rr)
		if !errors.Is(err, datafile.ErrSchemaMismatch) || !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("error %v, want ErrSchemaMismatch and ErrInvalidArgument", err)
		}
		if f.current() != nil {
			t.Fatal("a snapshot was committed")
		}
		f.wantNoOrphans()
	})
}

func TestAStreamThatBreaksMidwayCommitsNothing(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		_, err := f.w.Write(context.Background(), f.id, WriteRequest{}, f.stream(1, rowsOf(span(0, 10)...), rowsOf(span(10, 20)...)))
		if err == nil || !strings.Contains(err.Error(), "went away") {
			t.Fatalf("error %v, want the stream's", err)
		}
		if f.current() != nil {
			t.Fatal("a snapshot was committed")
		}
		f.wantNoOrphans()
	})
}

func TestOverwrite(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		cases := []struct {
			name     string
			filter   string
			want     []int64
			removed  int64 // data files removed
			wantFrom func(res *Result) bool
		}{
			{name: "everything", filter: "", want: []int64{100, 101}},
			{name: "whole partitions go without rewrites", filter: "p = 1", want: append(withoutMod(span(0, 12), 1), 100, 101)},
			{name: "files that match in part are rewritten", filter: "id < 4", want: append(span(4, 12), 100, 101)},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				f := b.make(t, 2, true, nil)
				f.write(Append, "", span(0, 6)...)
				f.write(Append, "", span(6, 12)...)
				res := f.write(Overwrite, c.filter, 100, 101)
				if res.Operation != "overwrite" {
					t.Fatalf("operation %q", res.Operation)
				}
				want := slices.Clone(c.want)
				slices.Sort(want)
				f.wantIDs(want)
				f.wantNoOrphans()
			})
		}
	})
}

func withoutMod(ids []int64, mod int64) []int64 {
	var out []int64
	for _, id := range ids {
		if id%3 != mod {
			out = append(out, id)
		}
	}
	return out
}

func TestDelete(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		cases := []struct {
			name        string
			v           int
			cow         bool
			wantContent string // the delete files' format, "" for none
		}{
			{name: "v2 position deletes", v: 2, wantContent: "PARQUET"},
			{name: "v3 deletion vectors", v: 3, wantContent: "PUFFIN"},
			{name: "v2 copy-on-write", v: 2, cow: true},
			{name: "v1 always copies on write", v: 1},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				f := b.make(t, c.v, true, nil)
				f.write(Append, "", span(0, 12)...)
				res := f.delete(DeleteRequest{Filter: "id = 3 or id = 4", CopyOnWrite: c.cow})
				if res.DeletedRecords != 2 || res.SnapshotID == 0 {
					t.Fatalf("result %+v, want 2 rows deleted", res)
				}
				f.wantIDs(slices.DeleteFunc(span(0, 12), func(id int64) bool { return id == 3 || id == 4 }))
				// A second delete in a file that has deletes already.
				f.delete(DeleteRequest{Filter: "id = 6", CopyOnWrite: c.cow})
				f.wantIDs(slices.DeleteFunc(span(0, 12), func(id int64) bool { return id == 3 || id == 4 || id == 6 }))
				t2 := f.load()
				live, err := readLive(context.Background(), t2, t2.Metadata.CurrentSnapshot())
				if err != nil {
					t.Fatal(err)
				}
				perFile := map[string]int{}
				for _, e := range live.deletes {
					if e.DataFile.Format != c.wantContent {
						t.Fatalf("delete file of format %s, want %q", e.DataFile.Format, c.wantContent)
					}
					perFile[e.DataFile.ReferencedDataFile]++
				}
				if c.wantContent == "" && len(live.deletes) > 0 {
					t.Fatalf("%d delete files after a copy-on-write delete", len(live.deletes))
				}
				if c.v >= 3 {
					for ref, n := range perFile {
						if n != 1 {
							t.Fatalf("%d deletion vectors for %s, want them merged into 1", n, ref)
						}
					}
				}
				f.wantNoOrphans()
			})
		}
	})
}

func TestDeleteOfWholePartitionsRemovesFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		f.write(Append, "", span(0, 12)...)
		res := f.delete(DeleteRequest{Filter: "p = 0"})
		if res.DeletedDataFiles != 1 || res.AddedDeleteFiles != 0 || res.DeletedRecords != 4 || res.Operation != "delete" {
			t.Fatalf("result %+v, want one data file of 4 rows removed", res)
		}
		f.wantIDs(withoutMod(span(0, 12), 0))
		sum := f.current().Summary.Map()
		if sum["deleted-data-files"] != "1" || sum["deleted-records"] != "4" || sum["total-records"] != "8" {
			t.Fatalf("summary %v", sum)
		}
	})
}

func TestDeleteDryRunAndNoMatch(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		f.write(Append, "", span(0, 12)...)
		before := f.current().SnapshotID
		res := f.delete(DeleteRequest{Filter: "id >= 10 or p = 0", DryRun: true})
		if !res.DryRun || res.DeletedRecords != 6 || res.DeletedDataFiles != 1 || res.SnapshotID != 0 {
			t.Fatalf("dry run %+v, want 6 rows (a whole file of 4, 2 more) counted", res)
		}
		if res := f.delete(DeleteRequest{Filter: "id > 1000"}); res.SnapshotID != 0 {
			t.Fatalf("a delete that matches nothing committed %+v", res)
		}
		if f.current().SnapshotID != before {
			t.Fatal("the table changed")
		}
		if _, err := f.w.Delete(context.Background(), f.id, DeleteRequest{}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("delete without a filter: %v, want ErrInvalidArgument", err)
		}
		f.wantNoOrphans()
	})
}

// racingCatalog commits another writer's append before the first
// CommitTable calls it forwards, so that those commits lose the race.
type racingCatalog struct {
	Catalog
	races atomic.Int32
	race  func() error
}

func (c *racingCatalog) Refresh(id catalog.Identifier) {
	if r, ok := c.Catalog.(interface{ Refresh(catalog.Identifier) }); ok {
		r.Refresh(id)
	}
}

func (c *racingCatalog) CommitTable(ctx context.Context, id catalog.Identifier, reqs []iceberg.Requirement, updates []iceberg.Update) (*catalog.Table, error) {
	if c.races.Add(-1) >= 0 {
		if err := c.race(); err != nil {
			return nil, err
		}
	}
	return c.Catalog.CommitTable(ctx, id, reqs, updates)
}

func TestACommitThatLosesARaceRetriesOnFreshMetadata(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		for _, op := range []string{"append", "delete"} {
			t.Run(op, func(t *testing.T) {
				t.Parallel()
				f := b.make(t, 2, true, map[string]string{propMinWait: "1", propMaxWait: "5"})
				f.write(Append, "", span(0, 12)...)
				other := f.newWriter(nil)
				next := int64(100)
				var rc *racingCatalog
				w := f.newWriter(func(c Catalog) Catalog {
					rc = &racingCatalog{Catalog: c}
					return rc
				})
				rc.race = func() error {
					_, err := other.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(next)))
					next++
					return err
				}
				rc.races.Store(2)
				var res *Result
				var err error
				want := append(span(0, 12), 100, 101)
				if op == "append" {
					res, err = w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(50)))
					want = append(want, 50)
				} else {
					res, err = w.Delete(context.Background(), f.id, DeleteRequest{Filter: "id = 5"})
					want = slices.DeleteFunc(want, func(id int64) bool { return id == 5 })
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Attempts != 3 {
					t.Fatalf("%d attempts, want 3", res.Attempts)
				}
				slices.Sort(want)
				f.wantIDs(want)
				f.wantNoOrphans()
			})
		}
	})
}

func TestRetriesRunOutAndLeaveNoFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		var calls atomic.Int32
		hook := func(point string) error {
			if point == "metadata-written" {
				calls.Add(1)
				return catalog.ErrCommitConflict
			}
			return nil
		}
		f := b.make(t, 2, true, map[string]string{propRetries: "2", propMinWait: "1", propMaxWait: "2"}, WithHook(hook))
		_, err := f.w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(span(0, 12)...)))
		if !errors.Is(err, catalog.ErrCommitConflict) {
			t.Fatalf("error %v, want a commit conflict", err)
		}
		if n := calls.Load(); n != 3 {
			t.Fatalf("%d attempts, want 3 (2 retries)", n)
		}
		if f.current() != nil {
			t.Fatal("a snapshot was committed")
		}
		f.wantNoOrphans()
	})
}

func TestAHookFailureActsAsACrash(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, nil, WithHook(func(point string) error {
			if point == "manifests-written" {
				return errors.New("power cut")
			}
			return nil
		}))
		_, err := f.w.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(1, 2)))
		if err == nil || !strings.Contains(err.Error(), "power cut") {
			t.Fatalf("error %v", err)
		}
		if len(f.orphans()) == 0 {
			t.Fatal("a crash left no files: the hook did not stop the commit where it ran")
		}
	})
}

func TestABranchForksFromTheCurrentSnapshot(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, nil)
		f.write(Append, "", span(0, 6)...)
		main := f.current().SnapshotID
		if _, err := f.w.Write(context.Background(), f.id, WriteRequest{Branch: "dev"}, f.stream(0, rowsOf(6, 7))); err != nil {
			t.Fatal(err)
		}
		if _, err := f.w.Delete(context.Background(), f.id, DeleteRequest{Branch: "dev", Filter: "id = 1"}); err != nil {
			t.Fatal(err)
		}
		if got := f.current().SnapshotID; got != main {
			t.Fatalf("main moved to %d from %d", got, main)
		}
		f.wantIDs(span(0, 6))
		if got, want := f.idsOf("dev"), []int64{0, 2, 3, 4, 5, 6, 7}; !slices.Equal(got, want) {
			t.Fatalf("dev holds %v, want %v", got, want)
		}
		dev := f.load().Metadata.Refs["dev"]
		s, _ := f.load().Metadata.SnapshotByID(dev.SnapshotID)
		parent, _ := f.load().Metadata.SnapshotByID(*s.ParentSnapshotID)
		if *parent.ParentSnapshotID != main {
			t.Fatalf("dev's first snapshot's parent is %d, want main's head %d", *parent.ParentSnapshotID, main)
		}
	})
}

func TestCommitUpdatesRetriesOnFreshMetadata(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, false, map[string]string{propMinWait: "1", propMaxWait: "2"})
		f.write(Append, "", 1)
		other := f.newWriter(nil)
		var rc *racingCatalog
		w := f.newWriter(func(c Catalog) Catalog {
			rc = &racingCatalog{Catalog: c}
			return rc
		})
		rc.race = func() error {
			_, err := other.Write(context.Background(), f.id, WriteRequest{}, f.stream(0, rowsOf(2)))
			return err
		}
		rc.races.Store(1)
		var heads []int64
		got, err := w.commitUpdates(context.Background(), f.id, func(ctx context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
			head := t.Metadata.CurrentSnapshot().SnapshotID
			heads = append(heads, head)
			return []iceberg.Requirement{iceberg.AssertRefSnapshotID{Ref: "main", SnapshotID: &head}},
				[]iceberg.Update{iceberg.SetProperties{Updates: map[string]string{"owner": "core"}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(heads) != 2 || heads[0] == heads[1] {
			t.Fatalf("build saw heads %v, want two different ones (a retry on fresh metadata)", heads)
		}
		if got.Metadata.Properties["owner"] != "core" || f.load().Metadata.Properties["owner"] != "core" {
			t.Fatal("the property was not committed")
		}
		same, err := w.commitUpdates(context.Background(), f.id, func(ctx context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
			return nil, nil, nil
		})
		if err != nil || same.MetadataLocation != f.load().MetadataLocation {
			t.Fatalf("no updates: %v, table %v", err, same)
		}
	})
}
