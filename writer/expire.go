package writer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/iceberg"
)

// Table properties of snapshot expiry and their Iceberg Java defaults
// (TableProperties.MAX_SNAPSHOT_AGE_MS and friends).
const (
	propMaxSnapshotAge  = "history.expire.max-snapshot-age-ms"
	propMinSnapshots    = "history.expire.min-snapshots-to-keep"
	propMaxRefAge       = "history.expire.max-ref-age-ms"
	defaultMaxSnapAgeMs = 5 * 24 * 60 * 60 * 1000
	defaultMinSnapshots = 1
)

// expiry is what one expire_snapshots call removes from the metadata.
type expiry struct {
	snapshots []int64  // ascending
	refs      []string // sorted
}

// planExpiry decides, as Iceberg Java's RemoveSnapshots does, which refs
// and snapshots of md go:
//
//   - a ref other than main whose head is older than its max-ref-age-ms
//     (or history.expire.max-ref-age-ms; default never) is removed;
//   - each remaining branch keeps the ancestors of its head that are
//     newer than its expiry time (now minus its max-snapshot-age-ms, else
//     req.OlderThan, else now minus history.expire.max-snapshot-age-ms),
//     and at least its min-snapshots-to-keep (else req.RetainLast, else
//     history.expire.min-snapshots-to-keep) of them;
//   - the head of every remaining ref is kept, and so is a snapshot that
//     no ref reaches when it is newer than the expiry time;
//   - every other snapshot goes, and so do req.SnapshotIDs, which must
//     not be the head of a remaining ref.
func planExpiry(md *iceberg.TableMetadata, req ExpireRequest, now time.Time) (expiry, error) {
	nowMs := now.UnixMilli()
	maxSnapAge := propInt(md.Properties, propMaxSnapshotAge, defaultMaxSnapAgeMs)
	minKeep := int(propInt(md.Properties, propMinSnapshots, defaultMinSnapshots))
	maxRefAge := propInt(md.Properties, propMaxRefAge, math.MaxInt64)
	olderThan := nowMs - maxSnapAge
	if !req.OlderThan.IsZero() {
		olderThan = req.OlderThan.UnixMilli()
	}
	if req.RetainLast > 0 {
		minKeep = req.RetainLast
	}

	refs := md.Refs
	if _, ok := refs["main"]; !ok && md.CurrentSnapshotID != nil {
		refs = make(map[string]iceberg.SnapshotRef, len(md.Refs)+1)
		for k, v := range md.Refs {
			refs[k] = v
		}
		refs["main"] = iceberg.SnapshotRef{SnapshotID: *md.CurrentSnapshotID, Type: iceberg.RefBranch}
	}
	var plan expiry
	retainedRefs := map[string]iceberg.SnapshotRef{}
	for name, ref := range refs {
		s, ok := md.SnapshotByID(ref.SnapshotID)
		age := maxRefAge
		if ref.MaxRefAgeMs != nil {
			age = *ref.MaxRefAgeMs
		}
		if name != "main" && ok && nowMs-s.TimestampMs > age {
			if _, inMD := md.Refs[name]; inMD {
				plan.refs = append(plan.refs, name)
			}
			continue
		}
		retainedRefs[name] = ref
	}
	sort.Strings(plan.refs)

	retain := map[int64]bool{}
	heads := map[int64][]string{}
	for name, ref := range retainedRefs {
		retain[ref.SnapshotID] = true
		heads[ref.SnapshotID] = append(heads[ref.SnapshotID], name)
	}
	for _, id := range req.SnapshotIDs {
		if names := heads[id]; len(names) > 0 {
			sort.Strings(names)
			return expiry{}, fmt.Errorf("%w: cannot expire snapshot %d: it is the head of %v", ErrInvalidArgument, id, names)
		}
	}
	reached := map[int64]bool{}
	for _, ref := range retainedRefs {
		if ref.Type != iceberg.RefBranch {
			reached[ref.SnapshotID] = true
			continue
		}
		branchOlderThan, branchKeep := olderThan, minKeep
		if ref.MaxSnapshotAgeMs != nil {
			branchOlderThan = nowMs - *ref.MaxSnapshotAgeMs
		}
		if ref.MinSnapshotsToKeep != nil {
			branchKeep = *ref.MinSnapshotsToKeep
		}
		kept := 0
		stopped := false
		for _, s := range ancestors(md, ref.SnapshotID) {
			reached[s.SnapshotID] = true
			if stopped {
				continue
			}
			if kept < branchKeep || s.TimestampMs >= branchOlderThan {
				retain[s.SnapshotID] = true
				kept++
			} else {
				stopped = true
			}
		}
	}
	for _, s := range md.Snapshots {
		if !reached[s.SnapshotID] && s.TimestampMs >= olderThan {
			retain[s.SnapshotID] = true
		}
	}
	for _, s := range md.Snapshots {
		if !retain[s.SnapshotID] || slices.Contains(req.SnapshotIDs, s.SnapshotID) {
			plan.snapshots = append(plan.snapshots, s.SnapshotID)
		}
	}
	slices.Sort(plan.snapshots)
	return plan, nil
}

// ancestors returns the snapshot headID and its ancestors, newest first,
// as far as the table still has them.
func ancestors(md *iceberg.TableMetadata, headID int64) []iceberg.Snapshot {
	var out []iceberg.Snapshot
	seen := map[int64]bool{}
	for id := headID; !seen[id]; {
		seen[id] = true
		s, ok := md.SnapshotByID(id)
		if !ok {
			break
		}
		out = append(out, *s)
		if s.ParentSnapshotID == nil {
			break
		}
		id = *s.ParentSnapshotID
	}
	return out
}

func propInt(props map[string]string, key string, def int64) int64 {
	if n, ok := intProp(props, key); ok {
		return n
	}
	return def
}

// expireUpdates are the commit of a plan. Every ref's head is asserted:
// a branch that moved or a ref that appeared since the plan may need a
// snapshot the plan removes, so the commit is retried on the fresh table.
func expireUpdates(md *iceberg.TableMetadata, plan expiry) ([]iceberg.Requirement, []iceberg.Update) {
	if len(plan.snapshots) == 0 && len(plan.refs) == 0 {
		return nil, nil
	}
	var reqs []iceberg.Requirement
	if md.TableUUID != "" {
		reqs = append(reqs, iceberg.AssertTableUUID{UUID: md.TableUUID})
	}
	names := make([]string, 0, len(md.Refs))
	for name := range md.Refs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		id := md.Refs[name].SnapshotID
		reqs = append(reqs, iceberg.AssertRefSnapshotID{Ref: name, SnapshotID: &id})
	}
	var updates []iceberg.Update
	for _, name := range plan.refs {
		updates = append(updates, iceberg.RemoveSnapshotRef{Name: name})
	}
	if len(plan.snapshots) > 0 {
		updates = append(updates, iceberg.RemoveSnapshots{SnapshotIDs: slices.Clone(plan.snapshots)})
	}
	return reqs, updates
}

// ExpireSnapshots removes old snapshots and refs from the table's
// metadata (see planExpiry for which), then deletes the files that only
// expired snapshots referenced. The files to delete are computed from
// the committed table, after the commit: a file any remaining snapshot
// needs is never removed, whatever another writer did meanwhile. Of two
// expiries at once that remove the same snapshot, both report it (the
// catalog's requirements cannot tell which removed it) and the second finds
// its files gone, which is not an error. A dry run reports the same without
// committing or deleting.
func (w *Writer) ExpireSnapshots(ctx context.Context, id catalog.Identifier, req ExpireRequest) (*MaintenanceResult, error) {
	now := w.now()
	if req.OlderThan.After(now) {
		return nil, fmt.Errorf("expire snapshots of %s: %w: older_than %s is in the future", id, ErrInvalidArgument, req.OlderThan.UTC().Format(time.RFC3339))
	}
	if req.RetainLast < 0 {
		return nil, fmt.Errorf("expire snapshots of %s: %w: retain_last %d must be at least 1", id, ErrInvalidArgument, req.RetainLast)
	}
	if req.DryRun {
		t, err := w.load(ctx, id)
		if err != nil {
			return nil, err
		}
		plan, err := planExpiry(t.Metadata, req, now)
		if err != nil {
			return nil, fmt.Errorf("expire snapshots of %s: %w", id, err)
		}
		expired, remaining := splitSnapshots(t.Metadata.Snapshots, plan.snapshots)
		files, err := unreachableFiles(ctx, t, expired, remaining)
		if err != nil {
			return nil, fmt.Errorf("expire snapshots of %s: %w", id, err)
		}
		stats, err := expiredStatistics(t.Metadata, t.Metadata, idSet(plan.snapshots))
		if err != nil {
			return nil, fmt.Errorf("expire snapshots of %s: %w", id, err)
		}
		files = append(files, stats...)
		sortRemoved(files)
		res := &MaintenanceResult{DryRun: true, ExpiredSnapshots: plan.snapshots, Removed: files, Counts: countKinds(files)}
		res.Counts["snapshots"] = len(plan.snapshots)
		res.Counts["refs"] = len(plan.refs)
		return res, nil
	}

	var base *catalog.Table
	var plan expiry
	committed, err := w.commitUpdates(ctx, id, func(_ context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error) {
		p, err := planExpiry(t.Metadata, req, now)
		if err != nil {
			return nil, nil, fmt.Errorf("expire snapshots of %s: %w", id, err)
		}
		base, plan = t, p
		reqs, updates := expireUpdates(t.Metadata, p)
		return reqs, updates, nil
	})
	if err != nil {
		return nil, err
	}
	res := &MaintenanceResult{Removed: []RemovedFile{}, Counts: map[string]int{}}
	// The snapshots this commit removed: those of the plan's table that
	// the committed table no longer has.
	var expired []iceberg.Snapshot
	for _, s := range base.Metadata.Snapshots {
		if _, still := committed.Metadata.SnapshotByID(s.SnapshotID); !still && slices.Contains(plan.snapshots, s.SnapshotID) {
			expired = append(expired, s)
			res.ExpiredSnapshots = append(res.ExpiredSnapshots, s.SnapshotID)
		}
	}
	slices.Sort(res.ExpiredSnapshots)
	res.Counts["snapshots"] = len(res.ExpiredSnapshots)
	res.Counts["refs"] = len(plan.refs)
	if len(expired) == 0 {
		return res, nil
	}
	files, err := w.expiredFiles(ctx, id, committed, expired)
	if err == nil {
		var stats []RemovedFile
		stats, err = expiredStatistics(base.Metadata, committed.Metadata, idSet(res.ExpiredSnapshots))
		files = append(files, stats...)
	}
	if err != nil {
		return res, fmt.Errorf("expire snapshots of %s: committed, but finding the files to delete failed (remove_orphan_files reclaims them): %w", id, err)
	}
	removed, counts, err := removeAll(ctx, committed.IO, files)
	if removed != nil {
		res.Removed = removed
	}
	for k, v := range counts {
		res.Counts[k] += v
	}
	if err != nil {
		return res, fmt.Errorf("expire snapshots of %s: committed, but %w", id, err)
	}
	return res, nil
}

// expiryRereads bounds how often expiredFiles reloads the table when a
// remaining snapshot's file has gone under it.
const expiryRereads = 5

// expiredFiles returns the files only the expired snapshots referenced,
// read through the committed table, whose IO reaches them where they are.
// Other writers may commit between our commit and this read: a concurrent
// expiry may have removed more snapshots (and their files), an append may
// have added some. So the snapshots kept are those of the table as it is
// now, and when one of theirs is missing (expired and cleaned meanwhile)
// the table is read again, at most expiryRereads times.
func (w *Writer) expiredFiles(ctx context.Context, id catalog.Identifier, committed *catalog.Table, expired []iceberg.Snapshot) ([]RemovedFile, error) {
	current := committed
	for i := 0; ; i++ {
		files, err := unreachableFiles(ctx, committed, expired, current.Metadata.Snapshots)
		if err == nil || !isNotFound(err) || i == expiryRereads {
			return files, err
		}
		if current, err = w.load(ctx, id); err != nil {
			return nil, err
		}
	}
}

func idSet(ids []int64) map[int64]bool {
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// splitSnapshots parts snaps into those whose id is in ids and the rest.
func splitSnapshots(snaps []iceberg.Snapshot, ids []int64) (in, out []iceberg.Snapshot) {
	for _, s := range snaps {
		if slices.Contains(ids, s.SnapshotID) {
			in = append(in, s)
		} else {
			out = append(out, s)
		}
	}
	return in, out
}

func sortRemoved(files []RemovedFile) {
	sort.Slice(files, func(i, j int) bool {
		if files[i].Kind != files[j].Kind {
			return files[i].Kind < files[j].Kind
		}
		return files[i].Location < files[j].Location
	})
}

func isNotFound(err error) bool { return errors.Is(err, fileio.ErrNotFound) }
