package actions

import (
	"bytes"
	"encoding/json"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// The wire form is the contract: these texts are what the server sends and
// what every client (Go and Python) reads, key for key.
func TestWireForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"snapshot with every field", Snapshot{SnapshotID: 2, ParentID: ptr(int64(1)), TimestampMs: 20, Operation: "append",
			Summary: map[string]string{"operation": "append", "total-records": "3"}, SchemaID: ptr(0), Current: true},
			`{"snapshot_id":2,"parent_id":1,"timestamp_ms":20,"operation":"append","summary":{"operation":"append","total-records":"3"},"schema_id":0,"current":true}`},
		{"first snapshot: null parent and schema, no operation or summary", Snapshot{SnapshotID: 1, TimestampMs: 10},
			`{"snapshot_id":1,"parent_id":null,"timestamp_ms":10,"schema_id":null,"current":false}`},
		{"ref", Ref{SnapshotID: 2, Type: "tag"}, `{"snapshot_id":2,"type":"tag"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("encoded\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

// A reader that knows every key decodes the server's text strictly and
// gets back what was sent.
func TestRoundTripStrict(t *testing.T) {
	t.Parallel()
	in := []Snapshot{
		{SnapshotID: 1, TimestampMs: 10, Summary: map[string]string{"operation": "append"}, Operation: "append"},
		{SnapshotID: 2, ParentID: ptr(int64(1)), TimestampMs: 20, SchemaID: ptr(1), Current: true},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var out []Snapshot
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(out)
	if !bytes.Equal(b, again) {
		t.Errorf("round trip changed the text:\n %s\n %s", b, again)
	}
}
