package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/internal/strictjson"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// ErrBadCommand marks a descriptor that cannot be parsed; it maps to
// InvalidArgument.
var ErrBadCommand = errors.New("invalid descriptor")

// What a command's "tickets" may ask for.
const (
	// TicketsFiles asks for file-level tickets: exact endpoints and counts.
	TicketsFiles = "files"
	// TicketsManifests asks for tickets that name manifest groups.
	TicketsManifests = "manifests"
)

// errNotYet marks a command option that a later version implements; it
// maps to Unimplemented.
var errNotYet = errors.New("not implemented yet")

// jsonCommand is the JSON form of a CMD descriptor. Pointers tell an absent
// key from a zero value; unknown keys are refused by the decoder.
type jsonCommand struct {
	Table            string          `json:"table"`
	Columns          []string        `json:"columns"`
	Filter           json.RawMessage `json:"filter"`
	SnapshotID       *int64          `json:"snapshot_id"`
	AsOfTimestampMs  *int64          `json:"as_of_timestamp_ms"`
	Ref              string          `json:"ref"`
	Limit            *int64          `json:"limit"`
	MaxEndpoints     int32           `json:"max_endpoints"`
	TargetSplitBytes int64           `json:"target_split_bytes"`
	CaseSensitive    *bool           `json:"case_sensitive"`
	Dictionary       json.RawMessage `json:"dictionary"`
	MetadataTable    string          `json:"metadata_table"`
	Changes          *jsonChanges    `json:"changes"`
	Tickets          string          `json:"tickets"`
}

// jsonChanges is the "changes" key of a JSON command.
type jsonChanges struct {
	FromSnapshotID    *int64   `json:"from_snapshot_id"`
	ToSnapshotID      *int64   `json:"to_snapshot_id"`
	FromTimestampMs   *int64   `json:"from_timestamp_ms"`
	ToTimestampMs     *int64   `json:"to_timestamp_ms"`
	ToRef             string   `json:"to_ref"`
	ComputeUpdates    bool     `json:"compute_updates"`
	IdentifierColumns []string `json:"identifier_columns"`
}

// ParseDescriptor turns a Flight descriptor into a command. A PATH
// descriptor names a table (["db", "t"] or ["db.t"]) for a full scan of its
// current snapshot; a CMD descriptor holds the command as JSON (an object)
// or as a serialized iceflight.v1.Command.
func ParseDescriptor(d *flight.FlightDescriptor) (*iceflightv1.Command, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: missing descriptor", ErrBadCommand)
	}
	var cmd *iceflightv1.Command
	switch d.Type {
	case flight.DescriptorPATH:
		if len(d.Path) == 0 {
			return nil, fmt.Errorf("%w: empty path", ErrBadCommand)
		}
		cmd = &iceflightv1.Command{Table: strings.Join(d.Path, ".")}
	case flight.DescriptorCMD:
		var err error
		if cmd, err = parseCommand(d.Cmd); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: descriptor type %v", ErrBadCommand, d.Type)
	}
	if err := validateCommand(cmd); err != nil {
		return nil, err
	}
	return cmd, nil
}

func parseCommand(b []byte) (*iceflightv1.Command, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseJSONCommand(trimmed)
	}
	cmd := new(iceflightv1.Command)
	err := proto.Unmarshal(b, cmd)
	if (err != nil || len(cmd.ProtoReflect().GetUnknown()) > 0) && isText(trimmed) {
		// Most often SQL: say what a command is rather than how protobuf
		// failed on it.
		return nil, fmt.Errorf("%w: command %q is text, not JSON: a command is a JSON object such as "+
			`{"table": "samples.trips", "columns": ["id"], "filter": "id > 10"}; `+
			"SQL would need Flight SQL, which iceflight does not serve yet", ErrBadCommand, strictjson.Abbreviate(trimmed, 60))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: command is neither a JSON object nor an iceflight.v1.Command: %v", ErrBadCommand, err)
	}
	return cmd, nil
}

// isText reports whether b is printable UTF-8 that starts with a letter. A
// serialized Command starts with the tag of its table field, 0x0a, so no
// valid one is text.
func isText(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	first, _ := utf8.DecodeRune(b)
	if !unicode.IsLetter(first) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

func parseJSONCommand(b []byte) (*iceflightv1.Command, error) {
	var jc jsonCommand
	if err := strictjson.Decode(b, &jc); err != nil {
		return nil, fmt.Errorf("%w: command JSON: %v", ErrBadCommand, err)
	}
	cmd := &iceflightv1.Command{
		Table:            jc.Table,
		Columns:          jc.Columns,
		SnapshotId:       jc.SnapshotID,
		AsOfTimestampMs:  jc.AsOfTimestampMs,
		Ref:              jc.Ref,
		Limit:            jc.Limit,
		MaxEndpoints:     jc.MaxEndpoints,
		TargetSplitBytes: jc.TargetSplitBytes,
		CaseSensitive:    jc.CaseSensitive,
		NoColumns:        jc.Columns != nil && len(jc.Columns) == 0,
		MetadataTable:    jc.MetadataTable,
		Tickets:          jc.Tickets,
	}
	if c := jc.Changes; c != nil {
		cmd.Changes = &iceflightv1.ChangeRange{FromSnapshotId: c.FromSnapshotID, ToSnapshotId: c.ToSnapshotID,
			FromTimestampMs: c.FromTimestampMs, ToTimestampMs: c.ToTimestampMs, ToRef: c.ToRef,
			ComputeUpdates: c.ComputeUpdates, IdentifierColumns: c.IdentifierColumns}
	}
	if err := parseDictionary(jc.Dictionary, cmd); err != nil {
		return nil, err
	}
	if f := bytes.TrimSpace(jc.Filter); len(f) > 0 && string(f) != "null" {
		var s string
		if json.Unmarshal(f, &s) == nil {
			cmd.Filter = s
		} else if utf8.Valid(f) {
			cmd.Filter = string(f)
		} else {
			// Kept as text, the expression would carry bytes that no
			// protobuf string may hold (encoding/json replaces them only
			// in what it decodes).
			return nil, fmt.Errorf("%w: filter expression is not valid UTF-8", ErrBadCommand)
		}
	}
	return cmd, nil
}

// parseDictionary reads the "dictionary" key: true for every string and
// binary column, or a list of column names; false, null and [] ask for
// none.
func parseDictionary(raw json.RawMessage, cmd *iceflightv1.Command) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var all bool
	if err := json.Unmarshal(raw, &all); err == nil {
		cmd.DictionaryAll = all
		return nil
	}
	if err := json.Unmarshal(raw, &cmd.DictionaryColumns); err != nil {
		return fmt.Errorf("%w: \"dictionary\" is true, false or a list of column names, not %s", ErrBadCommand, strictjson.Abbreviate(raw, 40))
	}
	return nil
}

func validateCommand(cmd *iceflightv1.Command) error {
	switch {
	case strings.TrimSpace(cmd.Table) == "":
		return fmt.Errorf("%w: command names no table", ErrBadCommand)
	case cmd.MaxEndpoints < 0:
		return fmt.Errorf("%w: max_endpoints %d is negative", ErrBadCommand, cmd.MaxEndpoints)
	case cmd.TargetSplitBytes < 0:
		return fmt.Errorf("%w: target_split_bytes %d is negative", ErrBadCommand, cmd.TargetSplitBytes)
	case cmd.Limit != nil && *cmd.Limit < 0:
		return fmt.Errorf("%w: limit %d is negative", ErrBadCommand, *cmd.Limit)
	case cmd.Changes != nil && cmd.MetadataTable != "":
		return fmt.Errorf("%w: a command reads changes or a metadata table, not both", ErrBadCommand)
	case cmd.Tickets != "" && cmd.Tickets != TicketsFiles && cmd.Tickets != TicketsManifests:
		return fmt.Errorf("%w: tickets %q: want %q or %q", ErrBadCommand, cmd.Tickets, TicketsFiles, TicketsManifests)
	case cmd.Tickets != "" && (cmd.Changes != nil || cmd.MetadataTable != ""):
		return fmt.Errorf("%w: tickets applies to a table's rows, not to changes or a metadata table", ErrBadCommand)
	case cmd.Changes != nil && (cmd.SnapshotId != nil || cmd.AsOfTimestampMs != nil || cmd.Ref != ""):
		return fmt.Errorf("%w: a change stream takes its range in \"changes\", not snapshot_id, as_of_timestamp_ms or ref", ErrBadCommand)
	}
	if c := cmd.Changes; c != nil {
		switch {
		case c.FromSnapshotId != nil && c.FromTimestampMs != nil:
			return fmt.Errorf("%w: changes: from_snapshot_id or from_timestamp_ms, not both", ErrBadCommand)
		case (c.ToSnapshotId != nil) && (c.ToTimestampMs != nil || c.ToRef != "") || c.ToTimestampMs != nil && c.ToRef != "":
			return fmt.Errorf("%w: changes: one of to_snapshot_id, to_timestamp_ms and to_ref", ErrBadCommand)
		}
	}
	for _, c := range cmd.Columns {
		if c == "" {
			return fmt.Errorf("%w: empty column name", ErrBadCommand)
		}
	}
	for _, c := range cmd.DictionaryColumns {
		if c == "" {
			return fmt.Errorf("%w: empty dictionary column name", ErrBadCommand)
		}
	}
	return nil
}
