package planner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg/scantask"
)

func loadSampleTable(tb testing.TB, name string) Table {
	tb.Helper()
	cat, err := catalog.NewDirectory(filepath.Join("..", "testdata", "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	id := catalog.Identifier{"samples", name}
	tbl, err := cat.LoadTable(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return Table{Name: id.String(), MetadataLocation: tbl.MetadataLocation, Metadata: tbl.Metadata, IO: tbl.IO}
}

func planTasks(t *testing.T, p *Planner, tbl Table, req Request) (*Plan, []*scantask.Task) {
	t.Helper()
	plan, err := p.Plan(context.Background(), tbl, req)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []*scantask.Task
	for _, ep := range plan.Endpoints {
		tasks = append(tasks, ep.Tasks...)
	}
	return plan, tasks
}

// Spec (Task.file_path): the reader reads a file's recorded path only for
// the _file column and to match position deletes and deletion vectors to
// the file, so tasks carry it only then (the corpus tables were written
// elsewhere, so every recorded path differs from where the file is).
func TestTasksCarryRecordedPathsOnlyWhenRead(t *testing.T) {
	t.Parallel()
	mustFilter := func(s string) Request {
		f, err := ParseFilter(s)
		if err != nil {
			t.Fatal(err)
		}
		return Request{Filter: f, CaseSensitive: true}
	}
	cases := []struct {
		name  string
		table string
		req   Request
		// want says which tasks must carry the recorded path.
		want func(*scantask.Task) bool
	}{
		{"a plain scan carries none", "apache-impala__iceberg_v2_no_deletes", Request{},
			func(*scantask.Task) bool { return false }},
		{"a scan of _file carries every one", "apache-impala__iceberg_v2_no_deletes", Request{Columns: []string{"i", "_file"}, CaseSensitive: true},
			func(*scantask.Task) bool { return true }},
		{"a filter carries none", "apache-impala__iceberg_v2_no_deletes", mustFilter("i > 0"),
			func(*scantask.Task) bool { return false }},
		{"position deletes carry it on the files they may touch", "apache-impala__iceberg_v2_positional_not_all_data_files_have_delete_files", Request{},
			func(task *scantask.Task) bool { return hasPositionDeletes(task.Deletes) }},
		{"equality deletes alone carry none", "apache-impala__iceberg_v2_delete_equality", Request{},
			func(*scantask.Task) bool { return false }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, tasks := planTasks(t, New(), loadCorpusTable(t, tc.table), tc.req)
			if len(tasks) == 0 {
				t.Fatal("no tasks planned")
			}
			carried := 0
			for _, task := range tasks {
				if got, want := task.FilePath != "", tc.want(task); got != want {
					t.Errorf("%s: carries the recorded path %v, want %v (file_path %q)", task.Path, got, want, task.FilePath)
				}
				if task.FilePath != "" {
					carried++
				}
			}
			t.Logf("%d of %d tasks carry the recorded path", carried, len(tasks))
		})
	}
}

// Manifests cached by a scan that tested no column serve a later scan that
// tests one only after decoding its metrics: the filtered scans prune as a
// fresh planner does, then hit the cache, and so does the plain scan again.
func TestCachedManifestsHoldTheMetricsFiltersRead(t *testing.T) {
	t.Parallel()
	tbl := loadSampleTable(t, "trips")
	f, err := ParseFilter("id >= 6000 AND id < 6100")
	if err != nil {
		t.Fatal(err)
	}
	filtered := Request{Filter: f, CaseSensitive: true}
	want, _ := planTasks(t, New(), tbl, filtered)
	if want.Stats.FilesSkippedByMetrics == 0 {
		t.Fatalf("the filter skips no file by metrics: %+v", want.Stats)
	}

	p := New()
	plain, _ := planTasks(t, p, tbl, Request{})
	steps := []struct {
		name     string
		req      Request
		want     Stats
		wantHits bool
	}{
		{"the filter after a plain scan decodes metrics", filtered, want.Stats, false},
		{"the filter again hits", filtered, want.Stats, true},
		{"the plain scan again hits", Request{}, plain.Stats, true},
	}
	for _, st := range steps {
		got, _ := planTasks(t, p, tbl, st.req)
		if got.Stats.DataFiles != st.want.DataFiles || got.Stats.FilesSkippedByMetrics != st.want.FilesSkippedByMetrics ||
			got.Stats.FilesSkippedByPartition != st.want.FilesSkippedByPartition || got.Stats.Records != st.want.Records {
			t.Errorf("%s: stats %+v, want %+v", st.name, got.Stats, st.want)
		}
		if hits := got.Stats.ManifestCacheHits == got.Stats.ManifestsRead; hits != st.wantHits {
			t.Errorf("%s: %d of %d manifests from the cache", st.name, got.Stats.ManifestCacheHits, got.Stats.ManifestsRead)
		}
	}
}

// The residual of every file of an unpartitioned table is the whole filter:
// it is encoded once and shared by the tasks, not encoded and held once per
// file (a filter of megabytes over thousands of files).
func TestUnpartitionedTasksShareOneResidual(t *testing.T) {
	t.Parallel()
	f, err := ParseFilter("note IS NULL OR vendor = 'no such vendor'")
	if err != nil {
		t.Fatal(err)
	}
	_, tasks := planTasks(t, New(), loadSampleTable(t, "trips"), Request{Filter: f, CaseSensitive: true, TargetSplitBytes: 1})
	var first *scantask.Residual
	shared := 0
	for _, task := range tasks {
		if task.Residual == nil {
			continue // its metrics prove every row matches
		}
		if first == nil {
			first = task.Residual
		}
		if task.Residual != first {
			t.Fatalf("task %s holds its own copy of the residual", task.Path)
		}
		shared++
	}
	if shared < 2 {
		t.Fatalf("%d of %d tasks have a residual, want several", shared, len(tasks))
	}
}

func TestRegroupKeepsEveryTaskOnce(t *testing.T) {
	t.Parallel()
	for _, max := range []int{1, 2, 3, 64} {
		plan, tasks := planTasks(t, New(), loadSampleTable(t, "trips"), Request{TargetSplitBytes: 1})
		plan.Regroup(max)
		if want := min(max, len(tasks)); len(plan.Endpoints) != want || plan.Stats.Endpoints != want {
			t.Fatalf("Regroup(%d): %d endpoints (stats %d), want %d", max, len(plan.Endpoints), plan.Stats.Endpoints, want)
		}
		seen := map[*scantask.Task]int{}
		for _, ep := range plan.Endpoints {
			var bytes, records int64
			for _, task := range ep.Tasks {
				seen[task]++
				bytes += TaskBytes(task)
				records += task.RecordCount
			}
			if bytes != ep.Bytes || records != ep.Records {
				t.Fatalf("Regroup(%d): an endpoint counts %d bytes %d records, its tasks %d and %d", max, ep.Bytes, ep.Records, bytes, records)
			}
		}
		for _, task := range tasks {
			if seen[task] != 1 {
				t.Fatalf("Regroup(%d): task %s appears %d times", max, task.Path, seen[task])
			}
		}
	}
}
