package planner

import (
	"context"
	"errors"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

// An incremental scan of one snapshot, (parent, snapshot], plans the data
// files and rows its writer recorded as added when it appended, and none
// when it did anything else; the range from the start of history plans
// every append of the current snapshot's ancestry. The expected counts
// are the writers' snapshot summaries.
func TestIncrementalPlansWhatAppendsAdded(t *testing.T) {
	t.Parallel()
	tables := []struct {
		name string
		load func(*testing.T) Table
	}{
		{"eq_deletes_evolved", func(t *testing.T) Table { return loadSampleTable(t, "eq_deletes_evolved") }},
		{"history", func(t *testing.T) Table { return loadSampleTable(t, "history") }},
		{"iceberg-cxx__gperov_test", func(t *testing.T) Table { return loadCorpusTable(t, "iceberg-cxx__gperov_test") }},
		{"iceberg-cxx__deletion_vectors", func(t *testing.T) Table { return loadCorpusTable(t, "iceberg-cxx__deletion_vectors") }},
		{"apache-impala__iceberg_v2_delete_equality_nulls", func(t *testing.T) Table {
			return loadCorpusTable(t, "apache-impala__iceberg_v2_delete_equality_nulls")
		}},
	}
	for _, tc := range tables {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tbl := tc.load(t)
			md := tbl.Metadata
			p := New()
			var allFiles, allRecords int64
			for s := md.CurrentSnapshot(); s != nil; {
				var wantFiles, wantRecords int64
				if s.Operation() == "append" {
					wantFiles, wantRecords = added(t, s, "added-data-files"), added(t, s, "added-records")
				}
				allFiles += wantFiles
				allRecords += wantRecords
				inc := &Incremental{FromSnapshotID: s.ParentSnapshotID, ToSnapshotID: s.SnapshotID}
				plan, err := p.Plan(context.Background(), tbl, Request{Incremental: inc})
				if err != nil {
					t.Fatalf("snapshot %d (%s): %v", s.SnapshotID, s.Operation(), err)
				}
				if int64(plan.Stats.DataFiles) != wantFiles || plan.Stats.Records != wantRecords || plan.Stats.DeleteFiles != 0 {
					t.Errorf("snapshot %d (%s): %d files, %d records, %d delete files; want %d files, %d records, no deletes",
						s.SnapshotID, s.Operation(), plan.Stats.DataFiles, plan.Stats.Records, plan.Stats.DeleteFiles, wantFiles, wantRecords)
				}
				if plan.Snapshot != s {
					t.Errorf("snapshot %d: the plan's snapshot is %v, want the end", s.SnapshotID, plan.Snapshot)
				}
				if s.ParentSnapshotID == nil {
					break
				}
				s, _ = md.SnapshotByID(*s.ParentSnapshotID)
			}
			plan, err := p.Plan(context.Background(), tbl, Request{Incremental: &Incremental{ToSnapshotID: *md.CurrentSnapshotID}})
			if err != nil {
				t.Fatal(err)
			}
			if int64(plan.Stats.DataFiles) != allFiles || plan.Stats.Records != allRecords {
				t.Errorf("whole history: %d files, %d records; want %d and %d", plan.Stats.DataFiles, plan.Stats.Records, allFiles, allRecords)
			}
		})
	}
}

func TestIncrementalRangeErrors(t *testing.T) {
	t.Parallel()
	tbl := loadSampleTable(t, "history") // append, append, overwrite
	chain := ancestry(tbl.Metadata)
	if len(chain) != 3 {
		t.Fatalf("history has %d snapshots in its current ancestry, want 3", len(chain))
	}
	first, second, third := chain[0], chain[1], chain[2]
	// The metadata without the first snapshot, as after expiring it: the
	// second still names it as its parent.
	expired := *tbl.Metadata
	expired.Snapshots = nil
	for _, s := range tbl.Metadata.Snapshots {
		if s.SnapshotID != first {
			expired.Snapshots = append(expired.Snapshots, s)
		}
	}
	withExpired := tbl
	withExpired.Metadata = &expired
	cases := []struct {
		name  string
		table Table
		req   Request
		want  error // nil: planned
	}{
		{"a start that is the end's parent is a range of one snapshot", tbl,
			Request{Incremental: &Incremental{FromSnapshotID: &second, ToSnapshotID: third}}, nil},
		{"an expired start still bounds the range", withExpired,
			Request{Incremental: &Incremental{FromSnapshotID: &first, ToSnapshotID: third}}, nil},
		{"the end is not its own start", tbl,
			Request{Incremental: &Incremental{FromSnapshotID: &second, ToSnapshotID: second}}, ErrInvalidRequest},
		{"a start after the end is not an ancestor", tbl,
			Request{Incremental: &Incremental{FromSnapshotID: &third, ToSnapshotID: first}}, ErrInvalidRequest},
		{"an end the table does not have", tbl,
			Request{Incremental: &Incremental{ToSnapshotID: 42}}, iceberg.ErrSnapshotNotFound},
		{"a range takes no snapshot selection", tbl,
			Request{Selection: Selection{SnapshotID: &second}, Incremental: &Incremental{ToSnapshotID: third}}, ErrInvalidRequest},
		{"a range takes no ref", tbl,
			Request{Selection: Selection{Ref: "main"}, Incremental: &Incremental{ToSnapshotID: third}}, ErrInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := New().Plan(context.Background(), tc.table, tc.req)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Plan: %v, want %v", err, tc.want)
			}
		})
	}
}

// ancestry returns the ids of the current snapshot's ancestry, oldest
// first.
func ancestry(md *iceberg.TableMetadata) []int64 {
	var ids []int64
	for s := md.CurrentSnapshot(); s != nil; {
		ids = append([]int64{s.SnapshotID}, ids...)
		if s.ParentSnapshotID == nil {
			break
		}
		s, _ = md.SnapshotByID(*s.ParentSnapshotID)
	}
	return ids
}

// added reads a count of a snapshot summary, which writers leave out when
// it is 0 (an empty append).
func added(t *testing.T, s *iceberg.Snapshot, key string) int64 {
	t.Helper()
	if _, ok := s.Summary.Get(key); !ok {
		return 0
	}
	return summary(t, s, key)
}
