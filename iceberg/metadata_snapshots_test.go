package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/internal/jsontext"
)

// The snapshot decoder must read a snapshots array as encoding/json reads
// it into []Snapshot: the same values, and an error for the same inputs.
func TestSnapshotsDecodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, json string }{
		{"empty array", `[]`},
		{"null array", `null`},
		{"a full v2 snapshot", `[{"snapshot-id": 3, "parent-snapshot-id": 2, "sequence-number": 3, "timestamp-ms": 1700000000000,
			"manifest-list": "s3://b/t/metadata/snap-3.avro", "schema-id": 1,
			"summary": {"operation": "append", "added-data-files": "1", "total-records": "10"}}]`},
		{"a v1 snapshot listing manifests", `[{"snapshot-id": 1, "timestamp-ms": 5, "manifests": ["/a/m1.avro", "/a/m2.avro"]}]`},
		{"v3 row lineage", `[{"snapshot-id": 1, "timestamp-ms": 5, "first-row-id": 0, "added-rows": 30}]`},
		{"extreme ids", `[{"snapshot-id": 9223372036854775807, "parent-snapshot-id": -9223372036854775808, "timestamp-ms": -0}]`},
		{"nulls leave values unset", `[{"snapshot-id": null, "parent-snapshot-id": null, "manifest-list": null,
			"summary": null, "schema-id": null, "manifests": null, "first-row-id": null}]`},
		{"a null snapshot is a zero one", `[null, {"snapshot-id": 4}]`},
		{"null members of the summary and manifests", `[{"summary": {"a": null, "b": "x"}, "manifests": ["m", null]}]`},
		{"escapes and unicode", `[{"manifest-list": "s3://b/t/\u00e9t\u00e9/\"q\"\\/x\ty", "summary": {"k\u2028": "caf\u00e9 ☕ 𝄞", "\ud834\udd1e": "x"}}]`},
		{"raw unicode", `[{"manifest-list": "s3://b/tables/données/été.avro", "summary": {"note": "日本語"}}]`},
		{"invalid UTF-8 is replaced", "[{\"manifest-list\": \"a\xffb\", \"summary\": {\"k\xc3\": \"v\xe2\x82\"}}]"},
		{"keys match without regard to case", `[{"Snapshot-ID": 7, "TIMESTAMP-MS": 8, "Summary": {"Operation": "append"}}]`},
		{"unknown keys are skipped", `[{"snapshot-id": 1, "key-id": "k", "extra": {"a": [1, 2.5e-3, -0.1E+2, true, false, null, {"b": "c"}], "d": {}}, "timestamp-ms": 2}]`},
		{"the last of duplicate keys wins", `[{"snapshot-id": 1, "snapshot-id": 2, "summary": {"a": "1", "a": "2"}}]`},
		{"the last of two summaries wins", `[{"summary": {"a": "1", "b": "2"}, "summary": {"a": "3"}}]`},
		{"white space anywhere", " \n[ {\t\"snapshot-id\"\r: 1 , \"summary\" : { \"a\" : \"b\" } } ] \n"},
		{"strings longer than a word", `[{"manifest-list": "abcdefghijklmnopqrstuvwxyz0123456789", "summary": {"abcdefgh": "12345678", "": ""}}]`},

		{"unterminated string", `[{"manifest-list": "abc}]`},
		{"unterminated array", `[{"snapshot-id": 1}`},
		{"trailing comma", `[{"snapshot-id": 1},]`},
		{"trailing comma in an object", `[{"snapshot-id": 1,}]`},
		{"missing colon", `[{"snapshot-id" 1}]`},
		{"a fraction for an integer", `[{"snapshot-id": 1.5}]`},
		{"an exponent for an integer", `[{"timestamp-ms": 1e3}]`},
		{"a leading zero", `[{"snapshot-id": 01}]`},
		{"an integer out of range", `[{"snapshot-id": 9223372036854775808}]`},
		{"a string for an integer", `[{"snapshot-id": "1"}]`},
		{"a number for a string", `[{"manifest-list": 1}]`},
		{"a number in the summary", `[{"summary": {"added-data-files": 1}}]`},
		{"a control character in a string", "[{\"manifest-list\": \"a\x01b\"}]"},
		{"a bad escape", `[{"manifest-list": "a\qb"}]`},
		{"a bad number among unknown keys", `[{"extra": -}]`},
		{"a bad literal", `[{"extra": nul}]`},
		{"an object for the array", `{"snapshot-id": 1}`},
		{"data after the array", `[] []`},
		{"a NUL byte after the array", "[]\x00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var want []Snapshot
			wantErr := json.Unmarshal([]byte(tc.json), &want)
			got, gotErr := decodeSnapshots(tc.json)
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if wantErr == nil {
				checkSummaries(t, tc.json, got)
			}
		})
	}
}

// decodeSnapshots decodes a whole text as a snapshots array.
func decodeSnapshots(text string) ([]Snapshot, error) {
	d := jsontext.Scanner{Text: text}
	snaps, err := readSnapshots(&d)
	if err == nil && !d.AtEnd() {
		err = d.Errorf("data after the array")
	}
	return snaps, err
}

// checkSummaries checks that each snapshot's summary, read whole and key
// by key, holds what encoding/json decodes from the snapshots array text
// into a map.
func checkSummaries(t *testing.T, text string, got []Snapshot) {
	t.Helper()
	// Each summary is kept as text and decoded on its own: decoded in
	// place, a snapshot with two "summary" keys would merge them, where
	// the last one wins in the decoder as in encoding/json's Snapshot.
	var raw []struct {
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(got) {
		t.Fatalf("%d snapshots, encoding/json reads %d", len(got), len(raw))
	}
	for i, r := range raw {
		var want map[string]string
		if len(r.Summary) > 0 {
			if err := json.Unmarshal(r.Summary, &want); err != nil {
				t.Fatal(err)
			}
		}
		s := got[i].Summary
		if m := s.Map(); !reflect.DeepEqual(m, want) {
			t.Errorf("snapshot %d: summary %v, encoding/json reads %v", i, m, want)
		}
		if op, _ := s.Get("operation"); op != got[i].Operation() || op != want["operation"] {
			t.Errorf("snapshot %d: operation %q, want %q", i, got[i].Operation(), want["operation"])
		}
		for k, v := range want {
			if gv, ok := s.Get(k); !ok || gv != v {
				t.Errorf("snapshot %d: Get(%q) = %q, %v; want %q", i, k, gv, ok, v)
			}
		}
		if _, ok := s.Get("no such key"); ok {
			t.Errorf("snapshot %d: Get of an absent key found one", i)
		}
	}
}

// referenceMetadata decodes the arrays that ParseMetadata decodes itself
// with encoding/json, to compare with.
type referenceMetadata struct {
	Snapshots   []Snapshot         `json:"snapshots"`
	SnapshotLog []SnapshotLogEntry `json:"snapshot-log"`
	MetadataLog []MetadataLogEntry `json:"metadata-log"`
}

// Every metadata file of the conformance corpus, and the planning
// benchmark's 1,000-snapshot table when generated, parses to the snapshots
// and logs encoding/json reads, from bytes and from a string alike.
func TestMetadataSnapshotsMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "conformance", "tables", "*", "metadata", "*.metadata.json"))
	if len(files) == 0 {
		t.Skip("conformance corpus not found at ../../shared/conformance: skipping")
	}
	bench, _ := filepath.Glob(filepath.Join("..", "bench", ".data", "warehouse", "bench", "events", "metadata", "v1001.metadata.json"))
	snapshots := 0
	for _, f := range append(files, bench...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want referenceMetadata
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, parse := range map[string]func() (*TableMetadata, error){
			"bytes":  func() (*TableMetadata, error) { return ParseMetadata(data) },
			"string": func() (*TableMetadata, error) { return ParseMetadataString(string(data)) },
		} {
			md, err := parse()
			if err != nil {
				t.Errorf("%s from %s: %v", f, name, err)
				continue
			}
			got := referenceMetadata{Snapshots: md.Snapshots, SnapshotLog: md.SnapshotLog, MetadataLog: md.MetadataLog}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s from %s:\ngot  %+v\nwant %+v", f, name, got, want)
			}
			var top struct {
				Snapshots json.RawMessage `json:"snapshots"`
			}
			if err := json.Unmarshal(data, &top); err != nil {
				t.Fatal(err)
			}
			if len(top.Snapshots) > 0 {
				checkSummaries(t, string(top.Snapshots), md.Snapshots)
			}
		}
		snapshots += len(want.Snapshots)
	}
	if snapshots == 0 {
		t.Error("the corpus has no snapshots to compare")
	}
}

// A metadata file that is no valid JSON outside its snapshots fails as
// invalid metadata, and one that spells "snapshots" in another case still
// has its snapshots read.
func TestParseMetadataOutsideSnapshots(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		`{"format-version": 2, "snapshots": [], "schemas": [}`,
		`{"format-version": 2, "snapshots": [{"snapshot-id": 1.5}]}`,
		`{"format-version": 2} {}`,
		`[]`,
	} {
		if _, err := ParseMetadataString(bad); !errors.Is(err, ErrInvalidMetadata) {
			t.Errorf("%s: error %v, want ErrInvalidMetadata", bad, err)
		}
	}
	odd := strings.Replace(v2Metadata, `"snapshots"`, `"Snapshots"`, 1)
	md, err := ParseMetadataString(odd)
	if err != nil {
		t.Fatal(err)
	}
	if s := md.CurrentSnapshot(); s == nil || s.Summary.Value("operation") != "overwrite" {
		t.Errorf("snapshots under \"Snapshots\" not read: %+v", md.Snapshots)
	}
}

// A summary built from a map, or decoded by encoding/json, reads back the
// same properties and encodes to the same JSON object.
func TestSummaryRoundTrip(t *testing.T) {
	t.Parallel()
	m := map[string]string{"operation": "append", "total-records": "10", "k\u2028\"": "caf\u00e9"}
	s := NewSummary(m)
	if got := s.Map(); !reflect.DeepEqual(got, m) {
		t.Errorf("Map() = %v, want %v", got, m)
	}
	snap := Snapshot{SnapshotID: 1, Summary: s}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Summary.Map(); !reflect.DeepEqual(got, m) {
		t.Errorf("after a JSON round trip: %v, want %v", got, m)
	}
	if b, err := json.Marshal(Snapshot{SnapshotID: 1}); err != nil || strings.Contains(string(b), "summary") {
		t.Errorf("an absent summary encodes as %s (%v)", b, err)
	}
	if !NewSummary(nil).IsZero() || NewSummary(map[string]string{}).IsZero() {
		t.Error("NewSummary: nil must be absent and an empty map present")
	}
	var bad Summary
	if err := json.Unmarshal([]byte(`{"a": 1}`), &bad); err == nil {
		t.Error("a number in a summary decoded without error")
	}
	if err := bad.UnmarshalJSON([]byte("{\"a\": \"b\"}\x00")); err == nil {
		t.Error("a NUL byte after a summary decoded without error")
	}
}

// A long snapshots array is read in two halves, split where a snapshot
// seems to start; whatever the text around the guess, the result is what a
// reading in order gives: the same snapshots, or the same error.
func TestLongSnapshotsArraySplit(t *testing.T) {
	t.Parallel()
	snapshot := func(i int, first, extra string) string {
		return fmt.Sprintf(`{%s"snapshot-id":%d,"parent-snapshot-id":%d,"timestamp-ms":%d,"sequence-number":%d,`+
			`"manifest-list":"s3://bucket/t/metadata/snap-%d.avro","schema-id":0%s,"summary":{"operation":"append",`+
			`"added-data-files":"%d","total-records":"%d","note":"padding padding padding padding padding"}}`,
			first, 1000+i, 999+i, 1700000000000+i, i, i, extra, i%7, i*100)
	}
	const n = 1200 // about 330 KB, past parallelSnapshotsText
	array := func(first string, extra func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = snapshot(i, first, extra(i))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	none := func(int) string { return "" }
	at := func(k int, extra string) func(int) string {
		return func(i int) string {
			if i == k {
				return extra
			}
			return ""
		}
	}
	cases := []struct {
		name string
		text string
		// splitAt is how the text at the guessed split starts.
		splitAt string
	}{
		{"plain", array("", none), `{"snapshot-id":1`},
		// Every snapshot starts with a member holding what looks like a
		// snapshot's start, one level down, and white space parts the real
		// ones: the guess falls on a lookalike.
		{"a lookalike inside a member", strings.ReplaceAll(array(`"extra":[{"a":1},{"snapshot-id":5}],`, none), `}},{"extra"`, `}}, {"extra"`), `{"snapshot-id":5}`},
		{"an error in the second half", array("", at(n*3/4, `,"first-row-id":1.5`)), `{"snapshot-id":1`},
		{"an error in the first half", array("", at(n/5, `,"added-rows":"x"`)), `{"snapshot-id":1`},
		{"white space between snapshots", strings.ReplaceAll(array("", none), `},{"`, "}, {\""), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			split := snapshotSplit(tc.text, 1)
			switch {
			case tc.splitAt == "" && split >= 0:
				t.Fatalf("split at %d, want none", split)
			case tc.splitAt != "" && (split < 0 || !strings.HasPrefix(tc.text[split+1:], tc.splitAt)):
				t.Fatalf("split at %d, want one before %s", split, tc.splitAt)
			}
			got, gotErr := decodeSnapshots(tc.text)
			var r snapshotReader
			d := jsontext.Scanner{Text: tc.text, Pos: 1}
			want, _, wantErr := r.elements(&d, -1)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, in order %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			var ref []Snapshot
			if err := json.Unmarshal([]byte(tc.text), &ref); err != nil {
				t.Fatal(err)
			}
			if len(got) != n || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got, ref) {
				t.Errorf("%d snapshots differ from a reading in order (%d) or encoding/json's (%d)", len(got), len(want), len(ref))
			}
		})
	}
}

// A metadata file whose snapshots array is short and whose log is long
// has its split guess land in the snapshot log, whose entries here look
// like snapshots; they must stay log entries.
func TestSnapshotSplitPastTheArray(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	for i := range 8000 {
		if i > 0 {
			log.WriteByte(',')
		}
		fmt.Fprintf(&log, `{"snapshot-id":%d,"timestamp-ms":%d}`, 20, 1700000000000+i)
	}
	text := strings.Replace(v2Metadata, `"snapshot-log": [`, `"snapshot-log": [`+log.String()+`,`, 1)
	arrayAt := strings.Index(text, `"snapshots"`) + len(`"snapshots": [`)
	logAt := strings.Index(text, `"snapshot-log"`)
	if split := snapshotSplit(text, arrayAt); split < logAt {
		t.Fatalf("split at %d, want one in the snapshot log (from %d)", split, logAt)
	}
	var want referenceMetadata
	if err := json.Unmarshal([]byte(text), &want); err != nil {
		t.Fatal(err)
	}
	md, err := ParseMetadataString(text)
	if err != nil {
		t.Fatal(err)
	}
	got := referenceMetadata{Snapshots: md.Snapshots, SnapshotLog: md.SnapshotLog, MetadataLog: md.MetadataLog}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%d snapshots and %d log entries, encoding/json reads %d and %d",
			len(got.Snapshots), len(got.SnapshotLog), len(want.Snapshots), len(want.SnapshotLog))
	}
}
