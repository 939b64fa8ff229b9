package writer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/iceflight/iceflight/iceberg"
)

const day = int64(24 * time.Hour / time.Millisecond)

var expireNow = time.UnixMilli(1_800_000_000_000)

// expireBase has main 1 <- 2 <- 3 <- 4 <- 5, made 10, 8, 6 and 1 days
// and 1 hour ago.
func expireBase() *iceberg.TableMetadata {
	now := expireNow.UnixMilli()
	ages := []int64{10 * day, 8 * day, 6 * day, day, day / 24}
	md := &iceberg.TableMetadata{FormatVersion: 2, TableUUID: "u", Properties: map[string]string{}}
	for i, age := range ages {
		s := iceberg.Snapshot{SnapshotID: int64(i + 1), TimestampMs: now - age}
		if i > 0 {
			s.ParentSnapshotID = ptr(int64(i))
		}
		md.Snapshots = append(md.Snapshots, s)
	}
	md.CurrentSnapshotID = ptr(int64(5))
	md.Refs = map[string]iceberg.SnapshotRef{"main": {SnapshotID: 5, Type: iceberg.RefBranch}}
	return md
}

func TestPlanExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		setup     func(md *iceberg.TableMetadata)
		req       ExpireRequest
		snapshots string
		refs      string
		err       string
	}{
		{name: "default: older than 5 days, keeping 1", snapshots: "1,2,3"},
		{name: "retain_last keeps that many ancestors", req: ExpireRequest{RetainLast: 4}, snapshots: "1"},
		{name: "older_than moves the line", req: ExpireRequest{OlderThan: expireNow.Add(-7 * 24 * time.Hour)}, snapshots: "1,2"},
		{name: "min-snapshots-to-keep property",
			setup:     func(md *iceberg.TableMetadata) { md.Properties[propMinSnapshots] = "3" },
			snapshots: "1,2"},
		{name: "max-snapshot-age-ms property",
			setup:     func(md *iceberg.TableMetadata) { md.Properties[propMaxSnapshotAge] = fmt.Sprint(9 * day) },
			snapshots: "1"},
		{name: "a branch keeps its head, its old ancestors go",
			setup: func(md *iceberg.TableMetadata) {
				md.Refs["b"] = iceberg.SnapshotRef{SnapshotID: 2, Type: iceberg.RefBranch}
			},
			snapshots: "1,3"},
		{name: "a branch's own min-snapshots-to-keep",
			setup: func(md *iceberg.TableMetadata) {
				md.Refs["b"] = iceberg.SnapshotRef{SnapshotID: 2, Type: iceberg.RefBranch, MinSnapshotsToKeep: ptr(2)}
			},
			snapshots: "3"},
		{name: "a branch's own max-snapshot-age-ms",
			setup: func(md *iceberg.TableMetadata) {
				md.Refs["main"] = iceberg.SnapshotRef{SnapshotID: 5, Type: iceberg.RefBranch, MaxSnapshotAgeMs: ptr(7 * day)}
			},
			snapshots: "1,2"},
		{name: "a tag keeps its snapshot",
			setup: func(md *iceberg.TableMetadata) {
				md.Refs["t"] = iceberg.SnapshotRef{SnapshotID: 1, Type: iceberg.RefTag}
			},
			snapshots: "2,3"},
		{name: "a ref past its max-ref-age-ms goes, and its snapshots with it",
			setup: func(md *iceberg.TableMetadata) {
				md.Refs["t"] = iceberg.SnapshotRef{SnapshotID: 1, Type: iceberg.RefTag, MaxRefAgeMs: ptr(day)}
			},
			snapshots: "1,2,3", refs: "t"},
		{name: "the table's max-ref-age-ms never removes main",
			setup: func(md *iceberg.TableMetadata) {
				md.Properties[propMaxRefAge] = "1"
				md.Refs["b"] = iceberg.SnapshotRef{SnapshotID: 4, Type: iceberg.RefBranch}
			},
			snapshots: "1,2,3", refs: "b"},
		{name: "an unreferenced snapshot newer than the line stays",
			setup: func(md *iceberg.TableMetadata) {
				md.Snapshots = append(md.Snapshots, iceberg.Snapshot{SnapshotID: 6, ParentSnapshotID: ptr(int64(2)), TimestampMs: expireNow.UnixMilli() - 2*day})
			},
			snapshots: "1,2,3"},
		{name: "an unreferenced snapshot older than the line goes",
			setup: func(md *iceberg.TableMetadata) {
				md.Snapshots = append(md.Snapshots, iceberg.Snapshot{SnapshotID: 6, ParentSnapshotID: ptr(int64(2)), TimestampMs: expireNow.UnixMilli() - 7*day})
			},
			snapshots: "1,2,3,6"},
		{name: "explicit ids go even when young", req: ExpireRequest{SnapshotIDs: []int64{4}}, snapshots: "1,2,3,4"},
		{name: "a ref's head cannot be expired", req: ExpireRequest{SnapshotIDs: []int64{5}}, err: "head of [main]"},
		{name: "a metadata without refs has main from current-snapshot-id",
			setup:     func(md *iceberg.TableMetadata) { md.Refs = nil },
			snapshots: "1,2,3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := expireBase()
			if tc.setup != nil {
				tc.setup(md)
			}
			plan, err := planExpiry(md, tc.req, expireNow)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(plan.snapshots))
			for i, id := range plan.snapshots {
				ids[i] = fmt.Sprint(id)
			}
			if got := strings.Join(ids, ","); got != tc.snapshots {
				t.Errorf("snapshots = %s, want %s", got, tc.snapshots)
			}
			if got := strings.Join(plan.refs, ","); got != tc.refs {
				t.Errorf("refs = %s, want %s", got, tc.refs)
			}
		})
	}
}

func TestExpireUpdatesAssertEveryRef(t *testing.T) {
	t.Parallel()
	md := expireBase()
	md.Refs["t"] = iceberg.SnapshotRef{SnapshotID: 1, Type: iceberg.RefTag, MaxRefAgeMs: ptr(day)}
	plan, err := planExpiry(md, ExpireRequest{}, expireNow)
	if err != nil {
		t.Fatal(err)
	}
	reqs, updates := expireUpdates(md, plan)
	got := describe(reqs, updates)
	want := "assert-table-uuid assert-ref-snapshot-id(main=5) assert-ref-snapshot-id(t=1) | remove-snapshot-ref{t} remove-snapshots{[1 2 3]}"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if r, u := expireUpdates(md, expiry{}); r != nil || u != nil {
		t.Errorf("nothing to expire commits %v %v", r, u)
	}
}
