package iceberg

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// The REST forms below are written from the Iceberg REST OpenAPI spec
// (rest-catalog-open-api.yaml: TableUpdate and TableRequirement).
func TestUpdatesRESTForm(t *testing.T) {
	t.Parallel()
	schema := NewSchema(1, NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true})
	schema.IdentifierFieldIDs = []int{1}
	tests := []struct {
		u    Update
		rest string
	}{
		{AssignUUID{"9c12d441-03fe-4693-9a96-a0705ddf69c1"}, `{"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"}`},
		{UpgradeFormatVersion{3}, `{"action":"upgrade-format-version","format-version":3}`},
		{AddSchema{Schema: schema, LastColumnID: 1}, `{"action":"add-schema","schema":{"type":"struct","schema-id":1,"identifier-field-ids":[1],"fields":[{"id":1,"name":"id","required":true,"type":"long"}]},"last-column-id":1}`},
		{SetCurrentSchema{-1}, `{"action":"set-current-schema","schema-id":-1}`},
		{AddSpec{PartitionSpec{ID: 0, Fields: []PartitionField{{SourceID: 1, FieldID: 1000, Name: "id_bucket", Transform: BucketTransform{16}}, {SourceID: 2, Name: "d_day", Transform: DayTransform{}}}}},
			`{"action":"add-spec","spec":{"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"name":"id_bucket","transform":"bucket[16]"},{"source-id":2,"name":"d_day","transform":"day"}]}}`},
		{SetDefaultSpec{-1}, `{"action":"set-default-spec","spec-id":-1}`},
		{AddSortOrder{SortOrder{OrderID: 1, Fields: []SortField{{SourceID: 1, Transform: "identity", Direction: "asc", NullOrder: "nulls-first"}}}},
			`{"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"source-id":1,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}}`},
		{SetDefaultSortOrder{1}, `{"action":"set-default-sort-order","sort-order-id":1}`},
		{AddSnapshot{Snapshot{SnapshotID: 3051729675574597004, SequenceNumber: 1, TimestampMs: 1555100955770, ManifestList: "s3://b/wh/.../s1.avro", Summary: NewSummary(map[string]string{"operation": "append"}), SchemaID: ptr(0)}},
			`{"action":"add-snapshot","snapshot":{"snapshot-id":3051729675574597004,"sequence-number":1,"timestamp-ms":1555100955770,"manifest-list":"s3://b/wh/.../s1.avro","summary":{"operation":"append"},"schema-id":0}}`},
		{SetSnapshotRef{"main", SnapshotRef{SnapshotID: 7, Type: RefBranch, MaxRefAgeMs: ptr(int64(60000))}}, `{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":7,"max-ref-age-ms":60000}`},
		{RemoveSnapshots{[]int64{1, 2}}, `{"action":"remove-snapshots","snapshot-ids":[1,2]}`},
		{RemoveSnapshotRef{"tag1"}, `{"action":"remove-snapshot-ref","ref-name":"tag1"}`},
		{SetLocation{"s3://b/t"}, `{"action":"set-location","location":"s3://b/t"}`},
		{SetProperties{map[string]string{"k": "v"}}, `{"action":"set-properties","updates":{"k":"v"}}`},
		{RemoveProperties{[]string{"k"}}, `{"action":"remove-properties","removals":["k"]}`},
	}
	var all []Update
	for _, tc := range tests {
		got, err := json.Marshal(tc.u)
		if err != nil {
			t.Fatalf("%s: %v", tc.u.Action(), err)
		}
		if !sameJSON(t, got, []byte(tc.rest)) {
			t.Errorf("%s:\n got %s\nwant %s", tc.u.Action(), got, tc.rest)
		}
		back, err := ParseUpdate([]byte(tc.rest))
		if err != nil {
			t.Fatalf("%s: %v", tc.u.Action(), err)
		}
		again, _ := json.Marshal(back)
		if !sameJSON(t, again, []byte(tc.rest)) {
			t.Errorf("%s: parse and write again gives %s", tc.u.Action(), again)
		}
		all = append(all, tc.u)
	}
	text, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseUpdates(text)
	if err != nil || len(parsed) != len(all) {
		t.Fatalf("ParseUpdates: %d updates, %v", len(parsed), err)
	}
	for i := range all {
		if parsed[i].Action() != all[i].Action() {
			t.Errorf("update %d: %s, want %s", i, parsed[i].Action(), all[i].Action())
		}
	}
}

func TestRequirementsRESTForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    Requirement
		rest string
	}{
		{AssertCreate{}, `{"type":"assert-create"}`},
		{AssertTableUUID{"u"}, `{"type":"assert-table-uuid","uuid":"u"}`},
		{AssertRefSnapshotID{"main", ptr(int64(5))}, `{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":5}`},
		{AssertRefSnapshotID{"main", nil}, `{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}`},
		{AssertLastAssignedFieldID{3}, `{"type":"assert-last-assigned-field-id","last-assigned-field-id":3}`},
		{AssertCurrentSchemaID{1}, `{"type":"assert-current-schema-id","current-schema-id":1}`},
		{AssertLastAssignedPartitionID{1000}, `{"type":"assert-last-assigned-partition-id","last-assigned-partition-id":1000}`},
		{AssertDefaultSpecID{0}, `{"type":"assert-default-spec-id","default-spec-id":0}`},
		{AssertDefaultSortOrderID{0}, `{"type":"assert-default-sort-order-id","default-sort-order-id":0}`},
	}
	var all []Requirement
	for _, tc := range tests {
		got, err := json.Marshal(tc.r)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, []byte(tc.rest)) {
			t.Errorf("%s:\n got %s\nwant %s", tc.r.Type(), got, tc.rest)
		}
		back, err := ParseRequirement([]byte(tc.rest))
		if err != nil {
			t.Fatalf("%s: %v", tc.r.Type(), err)
		}
		if !reflect.DeepEqual(back, tc.r) {
			t.Errorf("%s: parsed %+v, want %+v", tc.r.Type(), back, tc.r)
		}
		all = append(all, tc.r)
	}
	text, _ := json.Marshal(all)
	parsed, err := ParseRequirements(text)
	if err != nil || !reflect.DeepEqual(parsed, all) {
		t.Fatalf("ParseRequirements: %+v, %v", parsed, err)
	}
}

func TestParseUpdatesRefuses(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		`[{"action":"no-such-thing"}]`,
		`[{"uuid":"x"}]`,
		`[{"action":"set-current-schema"}]`,
		`[{"action":"set-snapshot-ref","ref-name":"main","snapshot-id":1}]`,
		`{"action":"assign-uuid"}`,
	} {
		if _, err := ParseUpdates([]byte(bad)); !errors.Is(err, ErrInvalidMetadata) {
			t.Errorf("%s: err %v, want ErrInvalidMetadata", bad, err)
		}
	}
	for _, bad := range []string{`[{"type":"assert-nothing"}]`, `[{"type":"assert-table-uuid"}]`, `[{"type":"assert-ref-snapshot-id","snapshot-id":1}]`} {
		if _, err := ParseRequirements([]byte(bad)); !errors.Is(err, ErrInvalidMetadata) {
			t.Errorf("%s: err %v, want ErrInvalidMetadata", bad, err)
		}
	}
}
