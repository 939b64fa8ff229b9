package planner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

func TestGroupEndpoints(t *testing.T) {
	t.Parallel()
	task := func(size int64) *scantask.Task { return &scantask.Task{FileSize: size, RecordCount: 1} }
	cases := []struct {
		name  string
		sizes []int64
		max   int
		want  []int64 // bytes per endpoint
	}{
		{"no tasks make no endpoints", nil, 4, nil},
		{"fewer tasks than the cap give one endpoint each", []int64{5, 3}, 4, []int64{5, 3}},
		{"the cap bounds the endpoint count", []int64{1, 1, 1, 1, 1}, 2, []int64{3, 2}},
		{"largest first onto the lightest endpoint balances bytes", []int64{10, 1, 9, 2}, 2, []int64{11, 11}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tasks []*scantask.Task
			for _, s := range tc.sizes {
				tasks = append(tasks, task(s))
			}
			eps := groupEndpoints(tasks, tc.max)
			if len(eps) != len(tc.want) {
				t.Fatalf("%d endpoints, want %d", len(eps), len(tc.want))
			}
			n := 0
			for i, ep := range eps {
				if ep.Bytes != tc.want[i] {
					t.Errorf("endpoint %d has %d bytes, want %d", i, ep.Bytes, tc.want[i])
				}
				n += len(ep.Tasks)
			}
			if n != len(tc.sizes) {
				t.Errorf("%d tasks planned, want %d", n, len(tc.sizes))
			}
		})
	}
}

var corpus = filepath.Join("..", "..", "shared", "conformance", "tables")

func loadCorpusTable(t *testing.T, name string) Table {
	t.Helper()
	if _, err := os.Stat(corpus); errors.Is(err, os.ErrNotExist) {
		t.Skipf("conformance corpus not found at %s: skipping", corpus)
	}
	cat, err := catalog.NewDirectory(corpus)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), catalog.Identifier{name})
	if err != nil {
		t.Fatal(err)
	}
	return Table{Name: name, MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO}
}

func summary(t *testing.T, s *iceberg.Snapshot, key string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s.Summary.Value(key), 10, 64)
	if err != nil {
		t.Fatalf("snapshot %d summary %s: %v", s.SnapshotID, key, err)
	}
	return n
}

// TestPlanMatchesSnapshotSummaries checks, for every snapshot of tables
// written by Spark, Trino and Impala, that the planned files and records
// equal what the writer recorded in the snapshot summary.
func TestPlanMatchesSnapshotSummaries(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"apache-impala__iceberg_partitioned",            // v1, hour + identity
		"apache-impala__iceberg_mixed_file_format_test", // v1, several snapshots
		"iceberg-cxx__partition_evolution",              // v2, two specs
		"iceberg-cxx__year_date_partitioning",
		"apache-impala__iceberg_v3_row_lineage", // v3
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tbl := loadCorpusTable(t, name)
			for i := range tbl.Metadata.Snapshots {
				snap := &tbl.Metadata.Snapshots[i]
				plan, err := New().Plan(context.Background(), tbl, Request{Selection: Selection{SnapshotID: &snap.SnapshotID}})
				if errors.Is(err, ErrUnsupported) {
					continue // ORC or Avro files in this snapshot
				}
				if err != nil {
					t.Fatalf("snapshot %d: %v", snap.SnapshotID, err)
				}
				if got, want := int64(plan.Stats.DataFiles), summary(t, snap, "total-data-files"); got != want {
					t.Errorf("snapshot %d: %d data files, summary says %d", snap.SnapshotID, got, want)
				}
				if got, want := plan.Stats.Records, summary(t, snap, "total-records"); got != want {
					t.Errorf("snapshot %d: %d records, summary says %d", snap.SnapshotID, got, want)
				}
				for _, ep := range plan.Endpoints {
					for _, task := range ep.Tasks {
						if _, err := os.Stat(task.Path); err != nil {
							t.Errorf("task path not mapped to a real file: %v", err)
						}
					}
				}
			}
		})
	}
}

func TestPlanAttachesDeletes(t *testing.T) {
	t.Parallel()
	tbl := loadCorpusTable(t, "apache-impala__iceberg_v2_delete_equality")
	plan, err := New().Plan(context.Background(), tbl, Request{})
	if err != nil {
		t.Fatal(err)
	}
	var withDeletes int
	for _, ep := range plan.Endpoints {
		for _, task := range ep.Tasks {
			for _, d := range task.Deletes {
				if d.DataSequenceNumber <= task.DataSequenceNumber {
					t.Errorf("equality delete of seq %d attached to data of seq %d", d.DataSequenceNumber, task.DataSequenceNumber)
				}
				if _, err := os.Stat(d.Path); err != nil {
					t.Errorf("delete path not mapped: %v", err)
				}
			}
			if len(task.Deletes) > 0 {
				withDeletes++
			}
		}
	}
	if withDeletes == 0 || plan.EqualitySchema == nil || plan.Stats.DeleteFiles == 0 {
		t.Fatalf("no deletes attached: %d tasks with deletes, equality schema %v, stats %+v", withDeletes, plan.EqualitySchema, plan.Stats)
	}
}

func TestPlanEmptyTable(t *testing.T) {
	t.Parallel()
	tbl := loadCorpusTable(t, "apache-impala__iceberg_uppercase_col")
	plan, err := New().Plan(context.Background(), tbl, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Snapshot != nil || len(plan.Endpoints) != 0 || len(plan.Schema.Fields) == 0 {
		t.Fatalf("empty table: snapshot %v, %d endpoints, schema %v", plan.Snapshot, len(plan.Endpoints), plan.Schema)
	}
}

func TestSelectionErrors(t *testing.T) {
	t.Parallel()
	tbl := loadCorpusTable(t, "iceberg-cxx__partition_evolution")
	id, ts := int64(1), int64(0)
	cases := []struct {
		name string
		req  Request
		want error
	}{
		{"unknown snapshot id is not found", Request{Selection: Selection{SnapshotID: &id}}, iceberg.ErrSnapshotNotFound},
		{"a time before the first snapshot is not found", Request{Selection: Selection{AsOfTimestamp: &ts}}, iceberg.ErrSnapshotNotFound},
		{"unknown ref is not found", Request{Selection: Selection{Ref: "nope"}}, iceberg.ErrSnapshotNotFound},
		{"two selections at once are invalid", Request{Selection: Selection{SnapshotID: &id, Ref: "main"}}, ErrInvalidRequest},
		{"unknown column is invalid", Request{Columns: []string{"nope"}, CaseSensitive: true}, ErrInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := New().Plan(context.Background(), tbl, tc.req); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestLimitStopsPlanningEarly(t *testing.T) {
	t.Parallel()
	table := loadSampleTable(t, "history")
	full, err := New().Plan(context.Background(), table, Request{})
	if err != nil {
		t.Fatal(err)
	}
	limited, err := New().Plan(context.Background(), table, Request{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if full.Stats.ManifestsRead < 2 {
		t.Skipf("samples.history has %d manifests; the test needs several", full.Stats.ManifestsRead)
	}
	if limited.Stats.ManifestsRead >= full.Stats.ManifestsRead || limited.Stats.DataFiles >= full.Stats.DataFiles {
		t.Fatalf("limit 1 read %d manifests and planned %d files; the full scan %d and %d",
			limited.Stats.ManifestsRead, limited.Stats.DataFiles, full.Stats.ManifestsRead, full.Stats.DataFiles)
	}
	if len(limited.Endpoints) != 1 || limited.Limit != 1 {
		t.Fatalf("a limited plan has %d endpoints and limit %d", len(limited.Endpoints), limited.Limit)
	}
}
