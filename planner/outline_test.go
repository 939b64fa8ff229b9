package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func TestCutRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		counts []int64 // live files per manifest; -1 unknown
		n      int
		want   []int // manifests per run
	}{
		{"none", nil, 4, nil},
		{"fewer manifests than runs", []int64{5, 5}, 4, []int{1, 1}},
		{"even", []int64{10, 10, 10, 10}, 2, []int{2, 2}},
		{"a heavy manifest stands alone", []int64{100, 1, 1, 1}, 2, []int{1, 3}},
		{"every manifest its own run when runs are scarce at the end", []int64{1, 1, 1, 100}, 3, []int{2, 1, 1}},
		{"unknown counts weigh one", []int64{-1, -1, -1, -1}, 2, []int{2, 2}},
		{"one run", []int64{3, 4, 5}, 1, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mfs := make([]iceberg.ManifestFile, len(tc.counts))
			for i, c := range tc.counts {
				mfs[i] = iceberg.ManifestFile{Path: strconv.Itoa(i), AddedFilesCount: c, ExistingFilesCount: max(c, 0)}
				if c < 0 {
					mfs[i].ExistingFilesCount = -1
				}
			}
			runs := cutRuns(mfs, tc.n)
			var got []int
			var order []string
			for _, r := range runs {
				got = append(got, len(r))
				for _, mf := range r {
					order = append(order, mf.Path)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("runs of %v manifests, want %v", got, tc.want)
			}
			for i, p := range order {
				if p != strconv.Itoa(i) {
					t.Fatalf("runs reorder the manifests: %v", order)
				}
			}
		})
	}
}

// TestOutlinesPlanWhatPlansDo plans every snapshot of every corpus table
// both ways, file by file (Plan) and at the manifest level (Outline, then
// PlanGroup on each group), and checks that the tasks are the same files,
// ranges, deletes and residuals, and that the outline's counts are those
// the writer recorded in the snapshot summary.
func TestOutlinesPlanWhatPlansDo(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(corpus); errors.Is(err, os.ErrNotExist) {
		t.Skipf("conformance corpus not found at %s: skipping", corpus)
	}
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	p := New(WithConcurrency(2))
	snapshots := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		tbl := loadCorpusTable(t, e.Name())
		for i := range tbl.Metadata.Snapshots {
			snap := &tbl.Metadata.Snapshots[i]
			for _, endpoints := range []int{1, 3} {
				req := Request{Selection: Selection{SnapshotID: &snap.SnapshotID}, MaxEndpoints: endpoints, CaseSensitive: true}
				label := fmt.Sprintf("%s snapshot %d in %d groups", e.Name(), snap.SnapshotID, endpoints)
				want, err := p.Plan(context.Background(), tbl, req)
				if errors.Is(err, ErrUnsupported) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: Plan: %v", label, err)
				}
				o, err := p.Outline(context.Background(), tbl, req)
				if err != nil {
					t.Fatalf("%s: Outline: %v", label, err)
				}
				if len(o.Groups) > endpoints {
					t.Errorf("%s: %d groups", label, len(o.Groups))
				}
				if n := summaryCount(snap, "total-data-files"); o.DataFiles >= 0 && n >= 0 && o.DataFiles != n {
					t.Errorf("%s: outline counts %d data files, the summary %d", label, o.DataFiles, n)
				}
				if n := summaryCount(snap, "total-records"); o.Records >= 0 && n >= 0 && o.Records != n {
					t.Errorf("%s: outline counts %d records, the summary %d", label, o.Records, n)
				}
				var got []*Task
				for _, g := range o.Groups {
					err := p.PlanGroup(context.Background(), tbl, GroupScan{SchemaID: o.SchemaID, Schema: o.Plan.Schema, CaseSensitive: true, Group: g},
						func(gt GroupTasks) error { got = append(got, gt.Tasks...); return nil })
					if err != nil {
						t.Fatalf("%s: PlanGroup: %v", label, err)
					}
				}
				var all []*Task
				for _, ep := range want.Endpoints {
					all = append(all, ep.Tasks...)
				}
				if g, w := taskKeys(got), taskKeys(all); !slices.Equal(g, w) {
					t.Errorf("%s: groups plan\n%s\nPlan plans\n%s", label, strings.Join(g, "\n"), strings.Join(w, "\n"))
				}
				fin := o.Finish(got, 0)
				if fin.Stats.DataFiles != want.Stats.DataFiles || fin.Stats.Records != want.Stats.Records || fin.Stats.Bytes != want.Stats.Bytes ||
					len(fin.Endpoints) != len(want.Endpoints) || fmt.Sprint(fin.EqualitySchema) != fmt.Sprint(want.EqualitySchema) ||
					fmt.Sprint(fin.FilterSchema) != fmt.Sprint(want.FilterSchema) {
					t.Errorf("%s: Finish gives %+v, %d endpoints; Plan %+v, %d endpoints", label, fin.Stats, len(fin.Endpoints), want.Stats, len(want.Endpoints))
				}
				snapshots++
			}
		}
	}
	t.Logf("%d snapshot plans compared", snapshots)
}

// summaryCount is a snapshot summary's count, or -1 when it has none.
func summaryCount(s *iceberg.Snapshot, key string) int64 {
	n, err := strconv.ParseInt(s.Summary.Value(key), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// taskKeys describes tasks by what a read of them depends on, sorted.
func taskKeys(tasks []*Task) []string {
	keys := make([]string, len(tasks))
	for i, task := range tasks {
		var dels []string
		for _, d := range task.Deletes {
			dels = append(dels, fmt.Sprintf("%s@%d", d.Path, d.DataSequenceNumber))
		}
		slices.Sort(dels)
		res := ""
		if task.Residual != nil {
			res = fmt.Sprint(task.Residual.Expr)
		}
		keys[i] = fmt.Sprintf("%s [%d+%d] rg%v seq%d/%d spec%d %v residual %q", task.Path, task.Start, task.Length, task.RowGroups,
			task.DataSequenceNumber, task.FileSequenceNumber, task.SpecID, dels, res)
	}
	slices.Sort(keys)
	return keys
}
