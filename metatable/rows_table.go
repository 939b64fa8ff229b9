package metatable

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/iceflight/iceflight/iceberg"
)

// The tables read from the metadata file alone: snapshots, history, refs
// and metadata_log_entries. Their rows are the metadata's own lists, so a
// read holds nothing beyond them and the batch being built.

// snapshotColumns are the snapshots table's (SnapshotsTable).
var snapshotColumns = columns[*iceberg.Snapshot]{
	1: func(s *iceberg.Snapshot, _ iceberg.Type) (any, error) { return s.TimestampMs * 1000, nil },
	2: func(s *iceberg.Snapshot, _ iceberg.Type) (any, error) { return s.SnapshotID, nil },
	3: func(s *iceberg.Snapshot, _ iceberg.Type) (any, error) { return optLong(s.ParentSnapshotID), nil },
	4: func(s *iceberg.Snapshot, _ iceberg.Type) (any, error) {
		op, summary := javaSummary(s)
		if op == "" && summary == nil {
			return nil, nil
		}
		return op, nil
	},
	5: func(s *iceberg.Snapshot, _ iceberg.Type) (any, error) { return optString(s.ManifestList), nil },
	6: func(s *iceberg.Snapshot, _ iceberg.Type) (any, error) {
		_, summary := javaSummary(s)
		if summary == nil {
			return nil, nil
		}
		return summary, nil
	},
}

// javaSummary returns a snapshot's operation and its summary without it,
// as Iceberg Java's SnapshotParser reads them: an empty or absent summary
// has neither, and a summary without an operation is an overwrite.
func javaSummary(s *iceberg.Snapshot) (string, any) {
	m := s.Summary.Map()
	if len(m) == 0 {
		return "", nil
	}
	op, ok := m["operation"]
	if !ok {
		op = "overwrite"
	}
	delete(m, "operation")
	// Sorted, so that a unit's rows are the same bytes each time.
	lit := iceberg.MapLiteral{Keys: make([]any, 0, len(m)), Values: make([]any, 0, len(m))}
	for _, k := range sortedKeys(m) {
		lit.Keys = append(lit.Keys, k)
		lit.Values = append(lit.Values, m[k])
	}
	return op, lit
}

// historyRow is one entry of the snapshot log.
type historyRow struct {
	entry     iceberg.SnapshotLogEntry
	snapshot  *iceberg.Snapshot // nil once expired
	ancestors map[int64]bool    // the current snapshot and its ancestors
}

// historyColumns are the history table's (HistoryTable).
var historyColumns = columns[*historyRow]{
	1: func(r *historyRow, _ iceberg.Type) (any, error) { return r.entry.TimestampMs * 1000, nil },
	2: func(r *historyRow, _ iceberg.Type) (any, error) { return r.entry.SnapshotID, nil },
	3: func(r *historyRow, _ iceberg.Type) (any, error) {
		if r.snapshot == nil {
			return nil, nil
		}
		return optLong(r.snapshot.ParentSnapshotID), nil
	},
	4: func(r *historyRow, _ iceberg.Type) (any, error) { return r.ancestors[r.entry.SnapshotID], nil },
}

// currentAncestors returns the ids of the current snapshot and of its
// ancestors still in the metadata (SnapshotUtil.currentAncestorIds).
func currentAncestors(md *iceberg.TableMetadata) map[int64]bool {
	out := map[int64]bool{}
	for s := md.CurrentSnapshot(); s != nil && !out[s.SnapshotID]; {
		out[s.SnapshotID] = true
		if s.ParentSnapshotID == nil {
			break
		}
		s, _ = md.SnapshotByID(*s.ParentSnapshotID)
	}
	return out
}

// refRow is one branch or tag.
type refRow struct {
	name string
	ref  iceberg.SnapshotRef
}

// refsColumns are the refs table's (RefsTable).
var refsColumns = columns[*refRow]{
	1: func(r *refRow, _ iceberg.Type) (any, error) { return r.name, nil },
	2: func(r *refRow, _ iceberg.Type) (any, error) { return strings.ToUpper(r.ref.Type), nil },
	3: func(r *refRow, _ iceberg.Type) (any, error) { return r.ref.SnapshotID, nil },
	4: func(r *refRow, _ iceberg.Type) (any, error) { return optLong(r.ref.MaxRefAgeMs), nil },
	5: func(r *refRow, _ iceberg.Type) (any, error) {
		if r.ref.MinSnapshotsToKeep == nil {
			return nil, nil
		}
		return int32(*r.ref.MinSnapshotsToKeep), nil
	},
	6: func(r *refRow, _ iceberg.Type) (any, error) { return optLong(r.ref.MaxSnapshotAgeMs), nil },
}

// metadataLogRow is one metadata file of the log, or the current one, with
// the snapshot that was current when it was written.
type metadataLogRow struct {
	entry  iceberg.MetadataLogEntry
	latest *int64            // nil when no snapshot was current yet
	snap   *iceberg.Snapshot // latest's snapshot, nil once expired
}

// metadataLogColumns are the metadata_log_entries table's
// (MetadataLogEntriesTable).
var metadataLogColumns = columns[*metadataLogRow]{
	1: func(r *metadataLogRow, _ iceberg.Type) (any, error) { return r.entry.TimestampMs * 1000, nil },
	2: func(r *metadataLogRow, _ iceberg.Type) (any, error) { return r.entry.MetadataFile, nil },
	3: func(r *metadataLogRow, _ iceberg.Type) (any, error) { return optLong(r.latest), nil },
	4: func(r *metadataLogRow, _ iceberg.Type) (any, error) {
		if r.snap == nil || r.snap.SchemaID == nil {
			return nil, nil
		}
		return int32(*r.snap.SchemaID), nil
	},
	5: func(r *metadataLogRow, _ iceberg.Type) (any, error) {
		if r.snap == nil {
			return nil, nil
		}
		return r.snap.SequenceNumber, nil
	},
}

// snapshotAsOf returns the snapshot that was current at ms by the snapshot
// log, as Java's SnapshotUtil.nullableSnapshotIdAsOfTime finds it: of the
// entries at or before ms, the latest, the first of equal ones.
func snapshotAsOf(md *iceberg.TableMetadata, ms int64) *int64 {
	var id *int64
	best := int64(0)
	for _, e := range md.SnapshotLog {
		if e.TimestampMs <= ms && (id == nil || e.TimestampMs > best) {
			id, best = &e.SnapshotID, e.TimestampMs
		}
	}
	return id
}

// readTableRows streams one of the tables read from the metadata file.
func readTableRows(ctx context.Context, s *scanState, emit func(arrow.RecordBatch) error, o *options) error {
	md := s.t.Metadata
	switch s.kind {
	case Snapshots:
		return writeAll(ctx, s, snapshotColumns, emit, o, len(md.Snapshots), func(i int) *iceberg.Snapshot { return &md.Snapshots[i] })
	case History:
		ancestors := currentAncestors(md)
		return writeAll(ctx, s, historyColumns, emit, o, len(md.SnapshotLog), func(i int) *historyRow {
			snap, _ := md.SnapshotByID(md.SnapshotLog[i].SnapshotID)
			return &historyRow{entry: md.SnapshotLog[i], snapshot: snap, ancestors: ancestors}
		})
	case Refs:
		names := sortedKeys(md.Refs)
		return writeAll(ctx, s, refsColumns, emit, o, len(names), func(i int) *refRow {
			return &refRow{name: names[i], ref: md.Refs[names[i]]}
		})
	default: // MetadataLogEntries
		// Java's table adds the current file to the log, stamped with the
		// metadata's last-updated-ms.
		log := append(md.MetadataLog[:len(md.MetadataLog):len(md.MetadataLog)],
			iceberg.MetadataLogEntry{TimestampMs: md.LastUpdatedMs, MetadataFile: s.t.MetadataLocation})
		return writeAll(ctx, s, metadataLogColumns, emit, o, len(log), func(i int) *metadataLogRow {
			r := &metadataLogRow{entry: log[i], latest: snapshotAsOf(md, log[i].TimestampMs)}
			if r.latest != nil {
				r.snap, _ = md.SnapshotByID(*r.latest)
			}
			return r
		})
	}
}

// writeAll writes the n rows row gives through one rowWriter.
func writeAll[T any](ctx context.Context, s *scanState, cols columns[T], emit func(arrow.RecordBatch) error, o *options, n int, row func(int) T) error {
	w, err := newRowWriter(ctx, s, cols, emit, o)
	if err != nil {
		return err
	}
	defer w.release()
	for i := range n {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := w.add(row(i)); err != nil {
			return err
		}
	}
	return w.flush()
}

func optLong(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sortedKeys returns a map's keys in order, so that the refs table's rows
// come in the same order on every read.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
