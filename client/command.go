package client

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// Command is a scan request: the JSON command of a CMD descriptor
// (README, "Flight API"). Zero fields are left out so the server applies
// its defaults.
type Command struct {
	// Table names the table, e.g. "samples.trips".
	Table string
	// Columns to read, in this order; nil reads all, an empty non-nil
	// slice reads none (only row counts).
	Columns []string
	// Filter is a row filter in the server's string syntax, e.g.
	// "fare > 10 AND note IS NULL".
	Filter string
	// FilterJSON is a row filter as an Iceberg REST catalog Expression;
	// set at most one of Filter and FilterJSON.
	FilterJSON json.RawMessage
	// SnapshotID reads this snapshot.
	SnapshotID *int64
	// AsOfTimestampMs reads the snapshot current at this time, in
	// milliseconds since the epoch (see AsOf).
	AsOfTimestampMs *int64
	// Ref reads this branch or tag.
	Ref string
	// Limit stops after this many rows (0: no limit).
	Limit int64
	// MaxEndpoints caps the number of endpoints (0: the server's default).
	MaxEndpoints int32
	// TargetSplitBytes splits larger data files along their row groups.
	TargetSplitBytes int64
	// CaseSensitive, when false, matches column names case-insensitively.
	CaseSensitive *bool
	// DictionaryAll asks for every string and binary column as an Arrow
	// dictionary (int32 indices); Dictionary names some instead. The
	// server then sends dictionary-encoded Parquet data as it is stored,
	// each batch with its row group's dictionary; see DecodeDictionaries
	// and array.UnifyTableDicts for a table of plain or unified columns.
	DictionaryAll bool
	Dictionary    []string
	// MetadataTable reads this metadata table of Table instead of its rows
	// ("files", "snapshots", "entries" ...: Iceberg Java's names, columns
	// and types); Columns and Filter then name its columns. See Inspect.
	MetadataTable string
	// Changes, when set, streams the rows inserted and deleted between two
	// snapshots instead of the rows of one (see Changes).
	Changes *Changes
	// Tickets chooses what the plan's tickets name: "files" for exact
	// endpoints and counts (a large plan's manifest groups are planned in
	// parallel, and Scan reads endpoints as they are planned), "manifests"
	// for groups of manifests each worker plans as it reads; "" lets the
	// server choose by the plan's size.
	Tickets string
}

// Changes is the range of a change stream: the changes committed after
// the start (FromSnapshotID, or the snapshot current at FromTimestampMs;
// neither: the table's first) up to and including the end (ToSnapshotID,
// the snapshot current at ToTimestampMs, the branch or tag ToRef; none:
// the current snapshot). The batches have the table's columns, then
// _change_type, _change_ordinal and _commit_snapshot_id, as Spark's
// changelog view; ComputeUpdates pairs a delete and an insert of one
// identifier (IdentifierColumns, or the table's identifier fields) into
// UPDATE_BEFORE and UPDATE_AFTER.
type Changes struct {
	FromSnapshotID    *int64   `json:"from_snapshot_id,omitempty"`
	ToSnapshotID      *int64   `json:"to_snapshot_id,omitempty"`
	FromTimestampMs   *int64   `json:"from_timestamp_ms,omitempty"`
	ToTimestampMs     *int64   `json:"to_timestamp_ms,omitempty"`
	ToRef             string   `json:"to_ref,omitempty"`
	ComputeUpdates    bool     `json:"compute_updates,omitempty"`
	IdentifierColumns []string `json:"identifier_columns,omitempty"`
}

// Int64 returns a pointer to v, for Command.SnapshotID.
func Int64(v int64) *int64 { return &v }

// AsOf returns t as milliseconds since the epoch, for
// Command.AsOfTimestampMs.
func AsOf(t time.Time) *int64 { return Int64(t.UnixMilli()) }

// wireCommand is the JSON shape the server decodes (flight/command.go);
// TestCommandJSONIsWhatTheServerDecodes keeps the two in step.
type wireCommand struct {
	Table            string          `json:"table"`
	Columns          *[]string       `json:"columns,omitempty"`
	Filter           json.RawMessage `json:"filter,omitempty"`
	SnapshotID       *int64          `json:"snapshot_id,omitempty"`
	AsOfTimestampMs  *int64          `json:"as_of_timestamp_ms,omitempty"`
	Ref              string          `json:"ref,omitempty"`
	Limit            int64           `json:"limit,omitempty"`
	MaxEndpoints     int32           `json:"max_endpoints,omitempty"`
	TargetSplitBytes int64           `json:"target_split_bytes,omitempty"`
	CaseSensitive    *bool           `json:"case_sensitive,omitempty"`
	Dictionary       any             `json:"dictionary,omitempty"`
	MetadataTable    string          `json:"metadata_table,omitempty"`
	Changes          *Changes        `json:"changes,omitempty"`
	Tickets          string          `json:"tickets,omitempty"`
}

// MarshalJSON encodes the command as the server's JSON command object.
func (c Command) MarshalJSON() ([]byte, error) {
	if c.Table == "" {
		return nil, errors.New("command names no table")
	}
	w := wireCommand{
		Table: c.Table, SnapshotID: c.SnapshotID, AsOfTimestampMs: c.AsOfTimestampMs, Ref: c.Ref,
		Limit: c.Limit, MaxEndpoints: c.MaxEndpoints, TargetSplitBytes: c.TargetSplitBytes, CaseSensitive: c.CaseSensitive,
		MetadataTable: c.MetadataTable, Changes: c.Changes, Tickets: c.Tickets,
	}
	if c.Columns != nil {
		w.Columns = &c.Columns
	}
	switch {
	case c.DictionaryAll && len(c.Dictionary) > 0:
		return nil, errors.New("command sets both DictionaryAll and Dictionary")
	case c.DictionaryAll:
		w.Dictionary = true
	case len(c.Dictionary) > 0:
		w.Dictionary = c.Dictionary
	}
	switch {
	case c.Filter != "" && len(c.FilterJSON) > 0:
		return nil, errors.New("command sets both Filter and FilterJSON")
	case c.Filter != "":
		b, err := json.Marshal(c.Filter)
		if err != nil {
			return nil, err
		}
		w.Filter = b
	case len(c.FilterJSON) > 0:
		w.Filter = c.FilterJSON
	}
	return json.Marshal(w)
}

// Descriptor returns the CMD Flight descriptor holding the command.
func (c Command) Descriptor() (*flight.FlightDescriptor, error) {
	b, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}, nil
}
