package actions

import (
	"bytes"
	"encoding/json"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// wireCases pin the wire form: these texts are what the server sends and
// what every client (Go and Python) reads, key for key. The first case of
// each type sets every field: testdata/wire.json takes it as the type's
// example. encoding/json escapes <, > and & in strings, on the server
// as here ("id \u003c 3").
var wireCases = []struct {
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
	{"table request", TableRequest{Table: "db.t"}, `{"table":"db.t"}`},
	{"refresh result", RefreshResult{Refreshed: true}, `{"refreshed":true}`},
	{"refresh of a catalog without a cache", RefreshResult{}, `{"refreshed":false}`},

	{"create_table with every field", CreateTableRequest{Table: "db.t", Schema: "QUJD",
		PartitionBy: []json.RawMessage{json.RawMessage(`"day(ts)"`), json.RawMessage(`{"source":"id","transform":"bucket[16]"}`)},
		SortBy:      []json.RawMessage{json.RawMessage(`"id desc nulls-last"`)},
		Properties:  map[string]string{"k": "v"}, FormatVersion: 3, Location: "s3://b/t", IfNotExists: true},
		`{"table":"db.t","schema":"QUJD","partition_by":["day(ts)",{"source":"id","transform":"bucket[16]"}],"sort_by":["id desc nulls-last"],` +
			`"properties":{"k":"v"},"format_version":3,"location":"s3://b/t","if_not_exists":true}`},
	{"create_table sends only what is set", CreateTableRequest{Table: "db.t", Schema: "QUJD"}, `{"table":"db.t","schema":"QUJD"}`},
	{"partition field with every field", PartitionField{Source: "id", Transform: "bucket[16]", Name: "id_b"}, `{"source":"id","transform":"bucket[16]","name":"id_b"}`},
	{"partition field: its name is derived when empty", PartitionField{Source: "ts", Transform: "day"}, `{"source":"ts","transform":"day"}`},
	{"sort field with every field", SortField{Source: "id", Transform: "bucket[4]", Direction: "desc", NullOrder: "nulls-last"},
		`{"source":"id","transform":"bucket[4]","direction":"desc","null_order":"nulls-last"}`},
	{"sort field: defaults are left out", SortField{Source: "id"}, `{"source":"id"}`},
	{"table info", TableInfo{Table: "db.t", MetadataLocation: "s3://b/t/metadata/v1.metadata.json", TableUUID: "u-1", FormatVersion: 2, SchemaID: 1},
		`{"table":"db.t","metadata_location":"s3://b/t/metadata/v1.metadata.json","table_uuid":"u-1","format_version":2,"schema_id":1}`},
	{"table info: zeros are sent", TableInfo{Table: "db.t"}, `{"table":"db.t","metadata_location":"","table_uuid":"","format_version":0,"schema_id":0}`},
	{"drop_table", DropTableRequest{Table: "db.t", Purge: true}, `{"table":"db.t","purge":true}`},
	{"drop_table always says whether to purge", DropTableRequest{Table: "db.t"}, `{"table":"db.t","purge":false}`},
	{"dropped", DropResult{Dropped: true}, `{"dropped":true}`},

	{"namespace request with every field", NamespaceRequest{Namespace: "db.sub", Parent: "db", Properties: map[string]string{"owner": "me"}},
		`{"namespace":"db.sub","parent":"db","properties":{"owner":"me"}}`},
	{"list_namespaces of the top level is an empty object", NamespaceRequest{}, `{}`},
	{"namespace info", NamespaceInfo{Namespace: "db.sub"}, `{"namespace":"db.sub"}`},

	{"put command with every field", PutCommand{Table: "db.t", Mode: ModeOverwrite, Filter: "id > 0", Branch: "dev", SnapshotProperties: map[string]string{"job": "x"}},
		`{"table":"db.t","mode":"overwrite","filter":"id \u003e 0","branch":"dev","snapshot_properties":{"job":"x"}}`},
	{"put command: an append to main names only the table", PutCommand{Table: "db.t"}, `{"table":"db.t"}`},
	{"write result with every field", WriteResult{SnapshotID: 7, SequenceNumber: 3, Operation: "overwrite", MetadataLocation: "s3://b/t/metadata/v3.metadata.json",
		AddedDataFiles: 2, AddedRecords: 10, AddedDeleteFiles: 1, DeletedDataFiles: 1, DeletedRecords: 4, AddedBytes: 2048, Attempts: 2, DryRun: true},
		`{"snapshot_id":7,"sequence_number":3,"operation":"overwrite","metadata_location":"s3://b/t/metadata/v3.metadata.json","added_data_files":2,` +
			`"added_records":10,"added_delete_files":1,"deleted_data_files":1,"deleted_records":4,"added_bytes":2048,"attempts":2,"dry_run":true}`},
	{"write result: only dry_run is left out when zero", WriteResult{},
		`{"snapshot_id":0,"sequence_number":0,"operation":"","metadata_location":"","added_data_files":0,"added_records":0,` +
			`"added_delete_files":0,"deleted_data_files":0,"deleted_records":0,"added_bytes":0,"attempts":0}`},
	{"delete with every field", DeleteRequest{Table: "db.t", Filter: "id < 3", Branch: "b", CopyOnWrite: true, DryRun: true},
		`{"table":"db.t","filter":"id \u003c 3","branch":"b","copy_on_write":true,"dry_run":true}`},
	{"delete on main", DeleteRequest{Table: "db.t", Filter: "true"}, `{"table":"db.t","filter":"true","copy_on_write":false,"dry_run":false}`},

	{"alter_table with every field", AlterTableRequest{Table: "db.t",
		Schema:        []SchemaChange{{Op: "add_column", Path: "note", Type: json.RawMessage(`"string"`)}},
		PartitionSpec: []SpecChange{{Op: "add_field", Source: "ts", Transform: "day"}},
		SortOrder:     []SortField{{Source: "id"}}, SetProperties: map[string]string{"a": "b"}, RemoveProperties: []string{"c"},
		Refs: []RefChange{{Op: "create_tag", Name: "v1"}}, FormatVersion: 3},
		`{"table":"db.t","schema":[{"op":"add_column","path":"note","type":"string"}],"partition_spec":[{"op":"add_field","source":"ts","transform":"day"}],` +
			`"sort_order":[{"source":"id"}],"set_properties":{"a":"b"},"remove_properties":["c"],"refs":[{"op":"create_tag","name":"v1"}],"format_version":3}`},
	{"alter_table sends only the changes given", AlterTableRequest{Table: "db.t", SetProperties: map[string]string{"a": "b"}}, `{"table":"db.t","set_properties":{"a":"b"}}`},
	{"schema change with every field", SchemaChange{Op: "add_column", Path: "s.n", Name: "m", Type: json.RawMessage(`"long"`), Required: true, Doc: "d",
		Default: json.RawMessage(`0`), Ref: "id", Fields: []string{"id"}},
		`{"op":"add_column","path":"s.n","name":"m","type":"long","required":true,"doc":"d","default":0,"ref":"id","fields":["id"]}`},
	{"schema change: only the op is always sent", SchemaChange{Op: "move_first"}, `{"op":"move_first"}`},
	{"spec change with every field", SpecChange{Op: "rename_field", Source: "ts", Transform: "day", Name: "ts_day", NewName: "d"},
		`{"op":"rename_field","source":"ts","transform":"day","name":"ts_day","new_name":"d"}`},
	{"spec change: only the op is always sent", SpecChange{Op: "remove_field"}, `{"op":"remove_field"}`},
	{"ref change with every field", RefChange{Op: "create_branch", Name: "dev", SnapshotID: ptr(int64(5)), Target: "main",
		MaxRefAgeMs: ptr(int64(1000)), MaxSnapshotAgeMs: ptr(int64(2000)), MinSnapshotsToKeep: ptr(0)},
		`{"op":"create_branch","name":"dev","snapshot_id":5,"target":"main","max_ref_age_ms":1000,"max_snapshot_age_ms":2000,"min_snapshots_to_keep":0}`},
	{"ref change: op and name are always sent", RefChange{Op: "remove_ref"}, `{"op":"remove_ref","name":""}`},

	{"expire_snapshots with every field", ExpireSnapshotsRequest{Table: "db.t", OlderThan: json.RawMessage(`"2026-01-02T03:04:05Z"`), RetainLast: 2, SnapshotIDs: []int64{5}, DryRun: true},
		`{"table":"db.t","older_than":"2026-01-02T03:04:05Z","retain_last":2,"snapshot_ids":[5],"dry_run":true}`},
	{"expire_snapshots: older_than as Unix milliseconds", ExpireSnapshotsRequest{Table: "db.t", OlderThan: json.RawMessage(`1767225600000`)},
		`{"table":"db.t","older_than":1767225600000,"dry_run":false}`},
	{"remove_orphan_files with every field", RemoveOrphanFilesRequest{Table: "db.t", OlderThan: json.RawMessage(`1767225600000`), Location: "s3://b/t/data", DryRun: true},
		`{"table":"db.t","older_than":1767225600000,"location":"s3://b/t/data","dry_run":true}`},
	{"remove_orphan_files with the defaults", RemoveOrphanFilesRequest{Table: "db.t"}, `{"table":"db.t","dry_run":false}`},
	{"rewrite_data_files with every field", RewriteDataFilesRequest{Table: "db.t", Filter: "id > 0", TargetFileSize: 1024, MinInputFiles: 2, DryRun: true},
		`{"table":"db.t","filter":"id \u003e 0","target_file_size":1024,"min_input_files":2,"dry_run":true}`},
	{"rewrite_data_files with the defaults", RewriteDataFilesRequest{Table: "db.t"}, `{"table":"db.t","dry_run":false}`},
	{"rewrite_manifests with every field", RewriteManifestsRequest{Table: "db.t", TargetManifestSize: 4096, DryRun: true},
		`{"table":"db.t","target_manifest_size":4096,"dry_run":true}`},
	{"rewrite_manifests with the defaults", RewriteManifestsRequest{Table: "db.t"}, `{"table":"db.t","dry_run":false}`},
	{"maintenance result with every field", MaintenanceResult{DryRun: true, SnapshotID: 9, ExpiredSnapshots: []int64{1, 2},
		Removed: []RemovedFile{{Location: "s3://b/t/data/a.parquet", Kind: "data", Size: 10}}, Counts: map[string]int{"data": 1}, RewrittenFiles: 4, AddedFiles: 1},
		`{"dry_run":true,"snapshot_id":9,"expired_snapshots":[1,2],"removed":[{"location":"s3://b/t/data/a.parquet","kind":"data","size":10}],` +
			`"counts":{"data":1},"rewritten_files":4,"added_files":1}`},
	{"maintenance result: removed and counts are always sent", MaintenanceResult{Removed: []RemovedFile{}, Counts: map[string]int{}},
		`{"dry_run":false,"removed":[],"counts":{}}`},
	{"removed file with every field", RemovedFile{Location: "s3://b/t/metadata/snap-1.avro", Kind: "manifest-list", Size: 99},
		`{"location":"s3://b/t/metadata/snap-1.avro","kind":"manifest-list","size":99}`},
	{"removed file of unknown size", RemovedFile{Location: "s3://b/t/x", Kind: "other"}, `{"location":"s3://b/t/x","kind":"other"}`},
}

func TestWireForm(t *testing.T) {
	t.Parallel()
	for _, tc := range wireCases {
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
