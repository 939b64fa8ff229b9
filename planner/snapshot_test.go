package planner

import (
	"errors"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func TestAsOfMessages(t *testing.T) {
	t.Parallel()
	// 2025-11-01T00:00:00Z and 2025-12-01T00:00:00Z, as the sample history table.
	logged := &iceberg.TableMetadata{
		Snapshots: []iceberg.Snapshot{{SnapshotID: 1, TimestampMs: 1761955200000}, {SnapshotID: 2, TimestampMs: 1764547200000}},
		SnapshotLog: []iceberg.SnapshotLogEntry{
			{TimestampMs: 1761955200000, SnapshotID: 1}, {TimestampMs: 1764547200000, SnapshotID: 2},
		},
	}
	unlogged := &iceberg.TableMetadata{Snapshots: logged.Snapshots[1:]}
	expired := &iceberg.TableMetadata{Snapshots: logged.Snapshots[1:], SnapshotLog: logged.SnapshotLog}
	cases := []struct {
		name string
		md   *iceberg.TableMetadata
		ts   int64
		want string
	}{
		{"a time before the history names the earliest snapshot's time", logged, 1704067200000,
			"snapshot not found: no snapshot at or before 2024-01-01T00:00:00Z (1704067200000 ms): the earliest is 2025-11-01T00:00:00Z (1761955200000 ms)"},
		{"a time in seconds says the unit is milliseconds", logged, 1767225600,
			"snapshot not found: no snapshot at or before 1970-01-21T10:53:45.6Z (1767225600 ms): the earliest is 2025-11-01T00:00:00Z (1761955200000 ms); " +
				"as_of_timestamp_ms is in milliseconds and 1767225600 looks like seconds (1767225600000 ms is 2026-01-01T00:00:00Z)"},
		{"a table without a log takes its oldest snapshot", unlogged, 0,
			"snapshot not found: no snapshot at or before 1970-01-01T00:00:00Z (0 ms): the earliest is 2025-12-01T00:00:00Z (1764547200000 ms)"},
		{"a table without snapshots says so", &iceberg.TableMetadata{}, 5,
			"snapshot not found: no snapshot at or before 1970-01-01T00:00:00.005Z (5 ms): the table has no snapshots"},
		{"an expired snapshot keeps the lookup's message", expired, 1761955200001,
			"snapshot not found: snapshot 1 from the snapshot log has expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := tc.ts
			_, _, err := Selection{AsOfTimestamp: &ts}.Resolve(tc.md)
			if !errors.Is(err, iceberg.ErrSnapshotNotFound) || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant  %s", err, tc.want)
			}
		})
	}
}
