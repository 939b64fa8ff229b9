package changelog

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/manifest"
)

// countingIO counts the opens of each location.
type countingIO struct {
	fileio.FileIO
	mu     sync.Mutex
	opened map[string]int
}

func (c *countingIO) Open(ctx context.Context, location string) (fileio.File, error) {
	c.mu.Lock()
	c.opened[location]++
	c.mu.Unlock()
	return c.FileIO.Open(ctx, location)
}

// deleteManifests returns the delete manifests of the snapshots ids of
// tb, of all its snapshots when ids is empty; live ones (with added or
// existing files) when live is set.
func deleteManifests(t *testing.T, tb Table, live bool, ids ...int64) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for i := range tb.Metadata.Snapshots {
		s := &tb.Metadata.Snapshots[i]
		if len(ids) > 0 && !slices.Contains(ids, s.SnapshotID) {
			continue
		}
		b, err := fileio.ReadAll(context.Background(), tb.IO, s.ManifestList, 1<<24)
		if err != nil {
			t.Fatal(err)
		}
		mfs, err := manifest.ReadList(bytes.NewReader(b), tb.Metadata.FormatVersion, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.Content == iceberg.ManifestContentDeletes && (!live || mf.AddedFilesCount > 0 || mf.ExistingFilesCount > 0) {
				out[mf.Path] = true
			}
		}
	}
	return out
}

// A range of appends is planned and read from the manifests the appends
// wrote, without opening a delete manifest, even in a table that has
// them; a range with a delete opens them.
func TestAppendRangesReadNoDeleteManifest(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, v := range []int{2, 3} {
		// Seeded so that the table has deletes followed by appends.
		var wt written
		var from, to int
		for seed := uint64(1); ; seed++ {
			wt = writeRandom(t, newRand(seed), v, 8, mem)
			from, to = appendRun(wt.ops)
			// The snapshot before the appends must have live deletes.
			if from >= 0 && len(deleteManifests(t, wt.table, true, wt.snapshots[from])) > 0 {
				break
			}
			if seed > 200 {
				t.Fatalf("v%d: no seed wrote deletes before a run of appends", v)
			}
		}
		deletes := deleteManifests(t, wt.table, false)
		for _, tc := range []struct {
			name      string
			from, to  int
			wantOpens bool
		}{
			{"appends only", from, to, false},
			{"with a delete", 0, len(wt.ops) - 1, true},
		} {
			cio := &countingIO{FileIO: wt.table.IO, opened: map[string]int{}}
			tb := wt.table
			tb.IO = cio
			if _, err := readChanges(t, tb, Request{FromSnapshotID: &wt.snapshots[tc.from], ToSnapshotID: wt.snapshots[tc.to]}); err != nil {
				t.Fatal(err)
			}
			opens := 0
			for loc, n := range cio.opened {
				if deletes[loc] {
					opens += n
				}
			}
			if (opens > 0) != tc.wantOpens {
				t.Errorf("v%d %s (%q): %d opens of delete manifests", v, tc.name, wt.ops[tc.from+1:tc.to+1], opens)
			}
		}
	}
}

// appendRun finds two or more appends in a row after the first snapshot:
// the index before the run and its last index; -1 when there is none.
func appendRun(ops []string) (from, to int) {
	for i := 1; i < len(ops); i++ {
		j := i
		for j < len(ops) && ops[j] == "append" {
			j++
		}
		if j-i >= 2 {
			return i - 1, j - 1
		}
	}
	return -1, -1
}

// A snapshot of the range that expired from the metadata is an error
// naming it; so is an end snapshot the table never had and a start that
// is not an ancestor of the end.
func TestRangeErrors(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	wt := writeRandom(t, newRand(7), 2, 5, mem)
	// Expire the third snapshot by hand: the metadata forgets it while
	// its child still names it as parent.
	md := *wt.table.Metadata
	md.Snapshots = nil
	for _, s := range wt.table.Metadata.Snapshots {
		if s.SnapshotID != wt.snapshots[2] {
			md.Snapshots = append(md.Snapshots, s)
		}
	}
	expired := wt.table
	expired.Metadata = &md
	missing := int64(12345)
	for _, tc := range []struct {
		name string
		tb   Table
		r    Request
		want error
	}{
		{"expired snapshot inside the range", expired, Request{FromSnapshotID: &wt.snapshots[0], ToSnapshotID: wt.snapshots[4]}, ErrSnapshotExpired},
		{"unknown end snapshot", wt.table, Request{ToSnapshotID: missing}, ErrSnapshotNotFound},
		{"start not an ancestor", wt.table, Request{FromSnapshotID: &missing, ToSnapshotID: wt.snapshots[4]}, ErrInvalidRequest},
		{"updates without identifier fields", wt.table, Request{ToSnapshotID: wt.snapshots[4], ComputeUpdates: true}, ErrInvalidRequest},
	} {
		_, err := Plan(context.Background(), tc.tb, tc.r)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		} else if !strings.Contains(err.Error(), "db.t") {
			t.Errorf("%s: %v does not name the table", tc.name, err)
		}
	}
	// The range after the expired snapshot reads when its first snapshot
	// is an append; any other snapshot is planned against its parent's
	// files, which are gone.
	_, err := readChanges(t, expired, Request{FromSnapshotID: &wt.snapshots[2], ToSnapshotID: wt.snapshots[4]})
	if wt.ops[3] == "append" && err != nil {
		t.Errorf("range after the expired snapshot, from an append: %v", err)
	}
	if wt.ops[3] != "append" && !errors.Is(err, ErrSnapshotExpired) {
		t.Errorf("range after the expired snapshot, from a %s: got %v, want ErrSnapshotExpired", wt.ops[3], err)
	}
}

// A snapshot whose grouped rows exceed the bound is refused, not held.
func TestGroupBound(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for seed := uint64(1); seed < 50; seed++ {
		wt := writeRandom(t, newRand(seed), 2, 4, mem)
		for i, op := range wt.ops {
			if !strings.HasPrefix(op, "overwrite") && !strings.HasPrefix(op, "copy-on-write") {
				continue
			}
			r := Request{FromSnapshotID: &wt.snapshots[i-1], ToSnapshotID: wt.snapshots[i]}
			scan, err := Plan(context.Background(), wt.table, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(scan.Units) != 1 || !scan.Units[0].Group {
				continue
			}
			if _, err := readChanges(t, wt.table, r, WithMaxGroupBytes(16)); !errors.Is(err, ErrGroupTooLarge) {
				t.Fatalf("%s with a 16-byte bound: got %v, want ErrGroupTooLarge", op, err)
			}
			if _, err := readChanges(t, wt.table, r); err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			return
		}
	}
	t.Fatal("no snapshot that both deletes and inserts rows was written")
}
