package metatable

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
	"github.com/iceflight/iceflight/iceberg/expr"
)

func TestParseKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		want Kind
		err  error
	}{
		{"files", Files, nil},
		{"ALL_DATA_FILES", AllDataFiles, nil},
		{"Metadata_Log_Entries", MetadataLogEntries, nil},
		{"position_deletes", 0, ErrUnknownKind},
		{"", 0, ErrUnknownKind},
	}
	for _, c := range cases {
		got, err := ParseKind(c.name)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("ParseKind(%q) = %v, %v; want %v, %v", c.name, got, err, c.want, c.err)
		}
	}
	for _, k := range Kinds() {
		if back, err := ParseKind(k.String()); err != nil || back != k {
			t.Errorf("%v does not read back: %v, %v", k, back, err)
		}
	}
}

// Java time-travels the tables of one snapshot's files, entries,
// manifests and partitions (BaseMetadataTable.supportsTimeTravel).
func TestTimeTravelKinds(t *testing.T) {
	t.Parallel()
	var got []string
	for _, k := range Kinds() {
		if k.TimeTravel() {
			got = append(got, k.String())
		}
	}
	want := []string{"manifests", "files", "data_files", "delete_files", "entries", "partitions"}
	if len(got) != len(want) {
		t.Fatalf("time-travel kinds %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("time-travel kinds %v, want %v", got, want)
		}
	}
}

func TestPlanRefuses(t *testing.T) {
	t.Parallel()
	tb := manyManifests(t, 1, 3, 1)
	other := int64(7)
	current := int64(42)
	cases := []struct {
		name string
		req  Request
		want error
	}{
		{"a snapshot of the snapshots table", Request{Kind: Snapshots, SnapshotID: &current}, ErrNoTimeTravel},
		{"a snapshot of all_files", Request{Kind: AllFiles, SnapshotID: &current}, ErrNoTimeTravel},
		{"a snapshot the table does not have", Request{Kind: Files, SnapshotID: &other}, iceberg.ErrSnapshotNotFound},
		{"a column the table does not have", Request{Kind: Files, Columns: []string{"file_name"}}, iceberg.ErrFieldNotFound},
		{"a filter on a column the table does not have", Request{Kind: Entries, Filter: expr.Equal("file_path", "x")}, expr.ErrUnknownColumn},
		{"an unknown kind", Request{Kind: Kind(99)}, ErrUnknownKind},
	}
	for _, c := range cases {
		if _, err := Plan(context.Background(), tb, c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// A unit is plain JSON, its kind by name, and reads the same after the
// trip (readAll sends every unit of the oracle tests through JSON too).
func TestUnitJSON(t *testing.T) {
	t.Parallel()
	tb := manyManifests(t, 2, 3, 1)
	scan, err := Plan(context.Background(), tb, Request{Kind: DataFiles, Columns: []string{"file_path", "readable_metrics.id.upper_bound"},
		Filter: expr.GreaterThan("record_count", int64(1)), CaseSensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(scan.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if string(fields["kind"]) != `"data_files"` {
		t.Errorf("kind is %s, want \"data_files\"", fields["kind"])
	}
	var back Unit
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Kind != DataFiles || len(back.Manifests) != 2 || *back.SnapshotID != 42 || len(back.Columns) != 2 {
		t.Errorf("unit read back as %+v", back)
	}
	if got := scan.Schema.ColumnNames(); len(got) != 2 || got[0] != "file_path" || got[1] != readableMetricsName {
		t.Errorf("projected columns %v", got)
	}
}
