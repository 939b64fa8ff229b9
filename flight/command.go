package flight

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

	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// errBadCommand marks a descriptor that cannot be parsed; it maps to
// InvalidArgument.
var errBadCommand = errors.New("invalid descriptor")

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
}

// ParseDescriptor turns a Flight descriptor into a command. A PATH
// descriptor names a table (["db", "t"] or ["db.t"]) for a full scan of its
// current snapshot; a CMD descriptor holds the command as JSON (an object)
// or as a serialized iceflight.v1.Command.
func ParseDescriptor(d *flight.FlightDescriptor) (*iceflightv1.Command, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: missing descriptor", errBadCommand)
	}
	var cmd *iceflightv1.Command
	switch d.Type {
	case flight.DescriptorPATH:
		if len(d.Path) == 0 {
			return nil, fmt.Errorf("%w: empty path", errBadCommand)
		}
		cmd = &iceflightv1.Command{Table: strings.Join(d.Path, ".")}
	case flight.DescriptorCMD:
		var err error
		if cmd, err = parseCommand(d.Cmd); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: descriptor type %v", errBadCommand, d.Type)
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
			"SQL would need Flight SQL, which iceflight does not serve yet", errBadCommand, abbreviate(trimmed, 60))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: command is neither a JSON object nor an iceflight.v1.Command: %v", errBadCommand, err)
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

// abbreviate cuts b to at most n runes for an error message.
func abbreviate(b []byte, n int) string {
	r := []rune(string(b))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "..."
}

// decodeStrict decodes one JSON object into v, refusing unknown keys and
// trailing data: a misspelt option must fail, not be ignored.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the object")
	}
	return nil
}

func parseJSONCommand(b []byte) (*iceflightv1.Command, error) {
	var jc jsonCommand
	if err := decodeStrict(b, &jc); err != nil {
		return nil, fmt.Errorf("%w: command JSON: %v", errBadCommand, err)
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
			return nil, fmt.Errorf("%w: filter expression is not valid UTF-8", errBadCommand)
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
		return fmt.Errorf("%w: \"dictionary\" is true, false or a list of column names, not %s", errBadCommand, abbreviate(raw, 40))
	}
	return nil
}

func validateCommand(cmd *iceflightv1.Command) error {
	switch {
	case strings.TrimSpace(cmd.Table) == "":
		return fmt.Errorf("%w: command names no table", errBadCommand)
	case cmd.MaxEndpoints < 0:
		return fmt.Errorf("%w: max_endpoints %d is negative", errBadCommand, cmd.MaxEndpoints)
	case cmd.TargetSplitBytes < 0:
		return fmt.Errorf("%w: target_split_bytes %d is negative", errBadCommand, cmd.TargetSplitBytes)
	case cmd.Limit != nil && *cmd.Limit < 0:
		return fmt.Errorf("%w: limit %d is negative", errBadCommand, *cmd.Limit)
	}
	for _, c := range cmd.Columns {
		if c == "" {
			return fmt.Errorf("%w: empty column name", errBadCommand)
		}
	}
	for _, c := range cmd.DictionaryColumns {
		if c == "" {
			return fmt.Errorf("%w: empty dictionary column name", errBadCommand)
		}
	}
	return nil
}
