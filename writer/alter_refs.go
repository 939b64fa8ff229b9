package writer

import (
	"fmt"

	"github.com/iceflight/iceflight/iceberg"
)

// refUpdates turns branch and tag changes into SetSnapshotRef and
// RemoveSnapshotRef updates, each guarded by an AssertRefSnapshotID on the
// ref as this commit found it (Java's ManageSnapshots commit). Changes
// apply in order, so a later change sees a branch an earlier one made.
func refUpdates(md *iceberg.TableMetadata, changes []RefChange) ([]iceberg.Requirement, []iceberg.Update, error) {
	refs := make(map[string]iceberg.SnapshotRef, len(md.Refs)+1)
	for name, r := range md.Refs {
		refs[name] = r
	}
	if _, ok := refs["main"]; !ok && md.CurrentSnapshotID != nil {
		refs["main"] = iceberg.SnapshotRef{SnapshotID: *md.CurrentSnapshotID, Type: iceberg.RefBranch}
	}
	asserted := map[string]bool{}
	var reqs []iceberg.Requirement
	var updates []iceberg.Update
	// assert records the ref as the table has it, once per ref.
	assert := func(name string) {
		if asserted[name] {
			return
		}
		asserted[name] = true
		req := iceberg.AssertRefSnapshotID{Ref: name}
		if r, ok := md.Refs[name]; ok {
			id := r.SnapshotID
			req.SnapshotID = &id
		} else if name == "main" && md.CurrentSnapshotID != nil {
			id := *md.CurrentSnapshotID
			req.SnapshotID = &id
		}
		reqs = append(reqs, req)
	}
	for i, c := range changes {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: ref change %d (%s %s): %s", ErrInvalidArgument, i, c.Op, c.Name, fmt.Sprintf(format, args...))
		}
		if c.Name == "" {
			return nil, nil, fail("a ref name is needed")
		}
		old, exists := refs[c.Name]
		snapshotID := func() (int64, error) {
			if c.SnapshotID != nil {
				if _, ok := md.SnapshotByID(*c.SnapshotID); !ok {
					return 0, fail("snapshot %d: %v", *c.SnapshotID, iceberg.ErrSnapshotNotFound)
				}
				return *c.SnapshotID, nil
			}
			if md.CurrentSnapshotID == nil {
				return 0, fail("the table has no current snapshot; give snapshot_id")
			}
			return *md.CurrentSnapshotID, nil
		}
		switch c.Op {
		case "create_branch", "create_tag", "replace_branch", "replace_tag":
			kind := iceberg.RefBranch
			if c.Op == "create_tag" || c.Op == "replace_tag" {
				kind = iceberg.RefTag
			}
			create := c.Op == "create_branch" || c.Op == "create_tag"
			switch {
			case create && exists:
				return nil, nil, fail("ref already exists")
			case !create && !exists:
				return nil, nil, fail("ref does not exist")
			case !create && old.Type != kind:
				return nil, nil, fail("ref is a %s", old.Type)
			}
			if kind == iceberg.RefTag && (c.MinSnapshotsToKeep != nil || c.MaxSnapshotAgeMs != nil) {
				return nil, nil, fail("tags do not take min_snapshots_to_keep or max_snapshot_age_ms")
			}
			if c.Name == "main" && kind == iceberg.RefTag {
				return nil, nil, fail("main is a branch")
			}
			id, err := snapshotID()
			if err != nil {
				return nil, nil, err
			}
			ref := iceberg.SnapshotRef{SnapshotID: id, Type: kind}
			if !create {
				// Java's replaceBranch/replaceTag keep the ref's retention.
				ref.MinSnapshotsToKeep, ref.MaxSnapshotAgeMs, ref.MaxRefAgeMs = old.MinSnapshotsToKeep, old.MaxSnapshotAgeMs, old.MaxRefAgeMs
			}
			if c.MinSnapshotsToKeep != nil {
				if *c.MinSnapshotsToKeep <= 0 {
					return nil, nil, fail("min_snapshots_to_keep must be positive")
				}
				ref.MinSnapshotsToKeep = c.MinSnapshotsToKeep
			}
			if c.MaxSnapshotAgeMs != nil {
				if *c.MaxSnapshotAgeMs <= 0 {
					return nil, nil, fail("max_snapshot_age_ms must be positive")
				}
				ref.MaxSnapshotAgeMs = c.MaxSnapshotAgeMs
			}
			if c.MaxRefAgeMs != nil {
				if *c.MaxRefAgeMs <= 0 {
					return nil, nil, fail("max_ref_age_ms must be positive")
				}
				ref.MaxRefAgeMs = c.MaxRefAgeMs
			}
			assert(c.Name)
			refs[c.Name] = ref
			updates = append(updates, iceberg.SetSnapshotRef{Name: c.Name, Ref: ref})
		case "remove_ref":
			if !exists {
				return nil, nil, fail("ref does not exist")
			}
			if c.Name == "main" {
				return nil, nil, fail("the main branch cannot be removed")
			}
			assert(c.Name)
			delete(refs, c.Name)
			updates = append(updates, iceberg.RemoveSnapshotRef{Name: c.Name})
		case "fast_forward":
			target, ok := refs[c.Target]
			switch {
			case !exists:
				return nil, nil, fail("branch does not exist")
			case old.Type != iceberg.RefBranch:
				return nil, nil, fail("ref is a %s", old.Type)
			case c.Target == "" || !ok:
				return nil, nil, fail("target %q does not exist", c.Target)
			case !isAncestor(md, old.SnapshotID, target.SnapshotID):
				return nil, nil, fail("its head %d is not an ancestor of %s's head %d", old.SnapshotID, c.Target, target.SnapshotID)
			}
			if old.SnapshotID == target.SnapshotID {
				continue
			}
			assert(c.Name)
			assert(c.Target)
			ref := old
			ref.SnapshotID = target.SnapshotID
			refs[c.Name] = ref
			updates = append(updates, iceberg.SetSnapshotRef{Name: c.Name, Ref: ref})
		default:
			return nil, nil, fail("unknown op")
		}
	}
	return reqs, updates, nil
}

// isAncestor reports whether snapshot ancestor is head or one of head's
// ancestors, following parent ids through the snapshots the table has.
func isAncestor(md *iceberg.TableMetadata, ancestor, head int64) bool {
	seen := map[int64]bool{}
	for id := head; !seen[id]; {
		if id == ancestor {
			return true
		}
		seen[id] = true
		s, ok := md.SnapshotByID(id)
		if !ok || s.ParentSnapshotID == nil {
			return false
		}
		id = *s.ParentSnapshotID
	}
	return false
}
