package engine

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/iceflight/iceflight/internal/fuzzseed"
	iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"
)

// commandSeeds are the commands of the README, the issue and the tests, as
// JSON and as protobuf.
func commandSeeds(f *testing.F) [][]byte {
	f.Helper()
	jsonCommands := []string{
		`{"table": "samples.trips", "columns": ["id", "note"], "filter": "id > 100"}`,
		`{"table": "samples.trips", "columns": ["id", "fare"], "filter": "fare > 10", "limit": 5}`,
		`{"table": "samples.history", "columns": ["id", "value"], "as_of_timestamp_ms": 1767225600000}`,
		`{"table": "samples.history", "snapshot_id": 7, "ref": "main", "case_sensitive": false}`,
		`{"table": "db.t", "columns": [], "max_endpoints": 2, "target_split_bytes": 1048576}`,
		`{"table": "db.t", "filter": {"type": "and", "left": {"type": "eq", "term": "a", "value": 1}, "right": {"type": "not-null", "term": "b"}}}`,
		`{"table": "db.t", "filter": null, "columns": null}`,
	}
	var seeds [][]byte
	for _, s := range jsonCommands {
		seeds = append(seeds, []byte(s))
		cmd, err := parseCommand([]byte(s))
		if err != nil {
			f.Fatalf("%s: %v", s, err)
		}
		pb, err := proto.Marshal(cmd)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, pb)
	}
	return seeds
}

// FuzzParseDescriptor parses arbitrary bytes as a CMD descriptor, JSON or
// protobuf. It must not panic, every error must wrap ErrBadCommand, and an
// accepted command must come back unchanged when encoded again, as
// protobuf and (when it came as JSON) as JSON.
func FuzzParseDescriptor(f *testing.F) {
	fuzzseed.AddSeeds(f, commandSeeds(f)...)
	f.Fuzz(func(t *testing.T, b []byte) {
		cmd, err := ParseDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b})
		if err != nil {
			if !errors.Is(err, ErrBadCommand) {
				t.Fatalf("error %v does not wrap ErrBadCommand", err)
			}
			return
		}
		pb, err := proto.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: pb})
		if err != nil || !proto.Equal(again, cmd) {
			t.Fatalf("protobuf round trip: %v\n got %v\nwant %v", err, again, cmd)
		}
		if !json.Valid(b) {
			return // it came as protobuf
		}
		js, err := json.Marshal(commandJSON(cmd))
		if err != nil {
			t.Fatal(err)
		}
		again, err = ParseDescriptor(&flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: js})
		if err != nil || !proto.Equal(again, cmd) {
			t.Fatalf("JSON round trip through %s: %v\n got %v\nwant %v", js, err, again, cmd)
		}
	})
}

// commandJSON is the JSON object of a command that came as JSON, the filter
// as a string.
func commandJSON(cmd *iceflightv1.Command) map[string]any {
	m := map[string]any{"table": cmd.Table}
	if cmd.Columns != nil || cmd.NoColumns {
		m["columns"] = append([]string{}, cmd.Columns...)
	}
	if cmd.Filter != "" {
		m["filter"] = cmd.Filter
	}
	if cmd.Ref != "" {
		m["ref"] = cmd.Ref
	}
	if cmd.MaxEndpoints != 0 {
		m["max_endpoints"] = cmd.MaxEndpoints
	}
	if cmd.TargetSplitBytes != 0 {
		m["target_split_bytes"] = cmd.TargetSplitBytes
	}
	for k, v := range map[string]*int64{"snapshot_id": cmd.SnapshotId, "as_of_timestamp_ms": cmd.AsOfTimestampMs, "limit": cmd.Limit} {
		if v != nil {
			m[k] = *v
		}
	}
	if cmd.CaseSensitive != nil {
		m["case_sensitive"] = *cmd.CaseSensitive
	}
	return m
}
