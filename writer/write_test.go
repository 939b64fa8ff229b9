package writer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/writer/datafile"
)

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
			name    string
			filter  string
			want    []int64
			deleted int64 // rows removed
		}{
			{name: "everything", filter: "", want: []int64{100, 101}, deleted: 12},
			{name: "whole partitions go without rewrites", filter: "p = 1", want: append(withoutMod(span(0, 12), 1), 100, 101), deleted: 4},
			{name: "files that match in part are rewritten", filter: "id < 4", want: append(span(4, 12), 100, 101), deleted: 4},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				f := b.make(t, 2, true, nil)
				f.write(Append, "", span(0, 6)...)
				f.write(Append, "", span(6, 12)...)
				res := f.write(Overwrite, c.filter, 100, 101)
				if res.Operation != "overwrite" || res.DeletedRecords != c.deleted || res.AddedRecords != 2 {
					t.Fatalf("result %+v, want an overwrite of %d rows by 2", res, c.deleted)
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

func TestObjectStorageLayoutSpreadsDataFiles(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend) {
		f := b.make(t, 2, true, map[string]string{propObjectStorage: "true"})
		f.write(Append, "", span(0, 6)...)
		f.wantIDs(span(0, 6))
		tb := f.load()
		live, err := readLive(context.Background(), tb, tb.Metadata.CurrentSnapshot())
		if err != nil {
			t.Fatal(err)
		}
		for loc := range live.data {
			rest := strings.TrimPrefix(loc, strings.TrimRight(tb.Metadata.Location, "/")+"/data/")
			parts := strings.Split(rest, "/")
			if len(parts) != 6 || len(parts[0]) != 4 || len(parts[3]) != 8 || !strings.HasPrefix(parts[4], "p=") {
				t.Fatalf("data file %s: want data/<4>/<4>/<4>/<8>/p=<n>/<name>", loc)
			}
			if got := entropyDirs(parts[5]); got != strings.Join(parts[:4], "/") {
				t.Fatalf("data file %s: entropy %s, want %s", loc, strings.Join(parts[:4], "/"), got)
			}
		}
	})
}
