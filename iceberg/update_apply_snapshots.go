package iceberg

import (
	"fmt"
	"reflect"
	"slices"
)

// The builder steps of ApplyUpdates that change snapshots, refs and the
// snapshot log.

func (b *builder) addSnapshot(s Snapshot) error {
	md := b.md
	if _, ok := md.SnapshotByID(s.SnapshotID); ok {
		return fmt.Errorf("snapshot %d already exists", s.SnapshotID)
	}
	// Java: "Cannot add snapshot with sequence number older than last
	// sequence number", except for a snapshot without a parent.
	if md.FormatVersion > 1 && s.SequenceNumber <= md.LastSequenceNumber && s.ParentSnapshotID != nil {
		return fmt.Errorf("snapshot %d has sequence number %d, not above the table's last-sequence-number %d", s.SnapshotID, s.SequenceNumber, md.LastSequenceNumber)
	}
	if s.SchemaID != nil {
		if _, ok := md.SchemaByID(*s.SchemaID); !ok {
			return fmt.Errorf("snapshot %d names unknown schema %d", s.SnapshotID, *s.SchemaID)
		}
	}
	if md.FormatVersion >= 3 {
		next := int64(0)
		if md.NextRowID != nil {
			next = *md.NextRowID
		}
		if s.FirstRowID == nil {
			return fmt.Errorf("v3 snapshot %d without first-row-id", s.SnapshotID)
		}
		if *s.FirstRowID < next {
			return fmt.Errorf("snapshot %d first-row-id %d is behind the table's next-row-id %d", s.SnapshotID, *s.FirstRowID, next)
		}
		if s.AddedRows == nil || *s.AddedRows < 0 {
			return fmt.Errorf("v3 snapshot %d without added-rows", s.SnapshotID)
		}
		// Java adds added-rows to next-row-id, not to first-row-id: the
		// two agree for a writer that starts a snapshot at next-row-id.
		next += *s.AddedRows
		md.NextRowID = &next
	}
	md.Snapshots = append(md.Snapshots, s)
	// As Java: the table's last-sequence-number becomes the snapshot's,
	// and check refuses the result should another snapshot be above it.
	md.LastSequenceNumber = s.SequenceNumber
	if b.added == nil {
		b.added = map[int64]bool{}
	}
	b.added[s.SnapshotID] = true
	b.latestAddedMs = max(b.latestAddedMs, s.TimestampMs)
	return nil
}

func (b *builder) setRef(name string, ref SnapshotRef) error {
	md := b.md
	if name == "" {
		return fmt.Errorf("empty ref name")
	}
	if ref.Type != RefBranch && ref.Type != RefTag {
		return fmt.Errorf("ref %q: type %q is neither branch nor tag", name, ref.Type)
	}
	if name == "main" && ref.Type != RefBranch {
		return fmt.Errorf("ref main must be a branch")
	}
	if existing, ok := md.Refs[name]; ok && reflect.DeepEqual(existing, ref) {
		return nil
	}
	s, ok := md.SnapshotByID(ref.SnapshotID)
	if !ok {
		return fmt.Errorf("cannot set %s to unknown snapshot %d", name, ref.SnapshotID)
	}
	if name == "main" {
		// The log entry is stamped with the snapshot's time when it was
		// added in this commit, else with now (Java's lastUpdatedMillis).
		at := nowMs()
		if b.added[s.SnapshotID] {
			at = s.TimestampMs
		}
		id := ref.SnapshotID
		if b.added[id] {
			b.mainAdded = append(b.mainAdded, id)
		}
		md.CurrentSnapshotID = &id
		md.SnapshotLog = append(md.SnapshotLog, SnapshotLogEntry{TimestampMs: at, SnapshotID: id})
	}
	md.Refs[name] = ref
	return nil
}

func (b *builder) removeRef(name string) {
	if name == "main" {
		b.md.CurrentSnapshotID = nil
	}
	delete(b.md.Refs, name)
}

func (b *builder) removeSnapshots(ids []int64) {
	md := b.md
	gone := make(map[int64]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	n := len(md.Snapshots)
	md.Snapshots = slices.DeleteFunc(md.Snapshots, func(s Snapshot) bool { return gone[s.SnapshotID] })
	if len(md.Snapshots) == n {
		return
	}
	b.removedSnapshots = true
	md.Statistics = slices.DeleteFunc(md.Statistics, func(f StatisticsFile) bool { return gone[f.SnapshotID] })
	md.PartitionStatistics = slices.DeleteFunc(md.PartitionStatistics, func(f StatisticsFile) bool { return gone[f.SnapshotID] })
	// Refs left pointing nowhere go too (main with them: no current
	// snapshot).
	for name, ref := range md.Refs {
		if _, ok := md.SnapshotByID(ref.SnapshotID); !ok {
			b.removeRef(name)
		}
	}
}

// snapshotLog is Java's updateSnapshotLog: snapshots main passed through
// within this commit leave the log, and when snapshots were removed, an
// entry of a missing snapshot drops the history before it too, since a
// gap would claim a later snapshot was current while the removed one was.
func (b *builder) snapshotLog() []SnapshotLogEntry {
	md := b.md
	intermediate := map[int64]bool{}
	for _, id := range b.mainAdded {
		if md.CurrentSnapshotID == nil || id != *md.CurrentSnapshotID {
			intermediate[id] = true
		}
	}
	if len(intermediate) == 0 && !b.removedSnapshots {
		return md.SnapshotLog
	}
	var out []SnapshotLogEntry
	for _, e := range md.SnapshotLog {
		if _, ok := md.SnapshotByID(e.SnapshotID); ok {
			if !intermediate[e.SnapshotID] {
				out = append(out, e)
			}
		} else if b.removedSnapshots {
			out = out[:0]
		}
	}
	return out
}
