package iceberg

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// baseV2 is the v2 test table of metadata_test.go: snapshots 10 and 20,
// main at 20, tag v1 at 10, last-sequence-number 2.
func baseV2(t *testing.T) *TableMetadata {
	t.Helper()
	md, err := ParseMetadata([]byte(v2Metadata))
	if err != nil {
		t.Fatal(err)
	}
	return md
}

func TestApplyUpdates(t *testing.T) {
	t.Parallel()
	newSnap := Snapshot{SnapshotID: 30, ParentSnapshotID: ptr(int64(20)), SequenceNumber: 3, TimestampMs: 3000, ManifestList: "s3://b/t/metadata/snap-30.avro", SchemaID: ptr(1)}
	tests := []struct {
		name    string
		updates []Update
		wantErr string
		check   func(t *testing.T, md *TableMetadata)
	}{
		{name: "append: add-snapshot then main", updates: []Update{AddSnapshot{newSnap}, SetSnapshotRef{"main", SnapshotRef{SnapshotID: 30, Type: RefBranch}}},
			check: func(t *testing.T, md *TableMetadata) {
				if *md.CurrentSnapshotID != 30 || md.LastSequenceNumber != 3 || md.Refs["main"].SnapshotID != 30 {
					t.Fatalf("current %d seq %d refs %v", *md.CurrentSnapshotID, md.LastSequenceNumber, md.Refs)
				}
				// Java stamps the log entry of a snapshot added in the
				// same commit with the snapshot's own time.
				if last := md.SnapshotLog[len(md.SnapshotLog)-1]; last != (SnapshotLogEntry{3000, 30}) {
					t.Fatalf("snapshot-log %v", md.SnapshotLog)
				}
			}},
		{name: "added snapshot is not current without a ref", updates: []Update{AddSnapshot{newSnap}},
			check: func(t *testing.T, md *TableMetadata) {
				if *md.CurrentSnapshotID != 20 || len(md.SnapshotLog) != 2 || len(md.Snapshots) != 3 {
					t.Fatalf("current %d log %v", *md.CurrentSnapshotID, md.SnapshotLog)
				}
			}},
		{name: "sequence number not above last", updates: []Update{AddSnapshot{Snapshot{SnapshotID: 31, ParentSnapshotID: ptr(int64(20)), SequenceNumber: 2, TimestampMs: 3000}}},
			wantErr: "sequence number 2"},
		{name: "snapshot id exists", updates: []Update{AddSnapshot{Snapshot{SnapshotID: 20, SequenceNumber: 5}}}, wantErr: "already exists"},
		{name: "ref to unknown snapshot", updates: []Update{SetSnapshotRef{"b", SnapshotRef{SnapshotID: 99, Type: RefBranch}}}, wantErr: "unknown snapshot 99"},
		{name: "main must be a branch", updates: []Update{SetSnapshotRef{"main", SnapshotRef{SnapshotID: 10, Type: RefTag}}}, wantErr: "must be a branch"},
		{name: "tag does not move current", updates: []Update{SetSnapshotRef{"t2", SnapshotRef{SnapshotID: 10, Type: RefTag}}},
			check: func(t *testing.T, md *TableMetadata) {
				if *md.CurrentSnapshotID != 20 || len(md.SnapshotLog) != 2 || md.Refs["t2"].SnapshotID != 10 {
					t.Fatalf("current %d log %v refs %v", *md.CurrentSnapshotID, md.SnapshotLog, md.Refs)
				}
			}},
		{name: "rollback main to an older snapshot logs it now", updates: []Update{SetSnapshotRef{"main", SnapshotRef{SnapshotID: 10, Type: RefBranch}}},
			check: func(t *testing.T, md *TableMetadata) {
				if last := md.SnapshotLog[len(md.SnapshotLog)-1]; last != (SnapshotLogEntry{5000, 10}) {
					t.Fatalf("snapshot-log %v", md.SnapshotLog)
				}
			}},
		{name: "remove-snapshots drops refs and the log before it", updates: []Update{RemoveSnapshots{[]int64{10}}},
			check: func(t *testing.T, md *TableMetadata) {
				if _, ok := md.Refs["v1"]; ok || len(md.Snapshots) != 1 {
					t.Fatalf("refs %v snapshots %v", md.Refs, md.Snapshots)
				}
				if !reflect.DeepEqual(md.SnapshotLog, []SnapshotLogEntry{{2000, 20}}) {
					t.Fatalf("snapshot-log %v", md.SnapshotLog)
				}
			}},
		{name: "removing the current snapshot empties main", updates: []Update{RemoveSnapshots{[]int64{20}}},
			check: func(t *testing.T, md *TableMetadata) {
				// Java: history before a removed entry goes, so both go.
				if md.CurrentSnapshotID != nil || len(md.SnapshotLog) != 0 || md.Refs["v1"].SnapshotID != 10 {
					t.Fatalf("current %v log %v refs %v", md.CurrentSnapshotID, md.SnapshotLog, md.Refs)
				}
				if _, ok := md.Refs["main"]; ok {
					t.Fatal("main survived")
				}
			}},
		{name: "remove-snapshot-ref main", updates: []Update{RemoveSnapshotRef{"main"}},
			check: func(t *testing.T, md *TableMetadata) {
				if md.CurrentSnapshotID != nil || len(md.Snapshots) != 2 {
					t.Fatalf("current %v", md.CurrentSnapshotID)
				}
			}},
		{name: "add-schema reuses an identical schema", updates: []Update{AddSchema{Schema: NewSchema(7, NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true})}, SetCurrentSchema{0}},
			check: func(t *testing.T, md *TableMetadata) {
				if len(md.Schemas) != 2 || md.CurrentSchemaID != 0 || md.LastColumnID != 3 {
					t.Fatalf("schemas %d current %d last %d", len(md.Schemas), md.CurrentSchemaID, md.LastColumnID)
				}
			}},
		{name: "add-schema takes the next id and last-column-id", updates: []Update{AddSchema{Schema: NewSchema(0, NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true}, NestedField{ID: 6, Name: "n", Type: StringType{}})}, SetCurrentSchema{-1}},
			check: func(t *testing.T, md *TableMetadata) {
				if len(md.Schemas) != 3 || md.CurrentSchemaID != 2 || md.LastColumnID != 6 || md.CurrentSchema().Fields[1].Name != "n" {
					t.Fatalf("schemas %d current %d last %d", len(md.Schemas), md.CurrentSchemaID, md.LastColumnID)
				}
			}},
		// Java 1.12 ignores the deprecated last-column-id of add-schema.
		{name: "last-column-id sent along is not used", updates: []Update{AddSchema{Schema: NewSchema(0, NestedField{ID: 1, Name: "id", Type: LongType{}}), LastColumnID: 9}},
			check: func(t *testing.T, md *TableMetadata) {
				if md.LastColumnID != 3 || len(md.Schemas) != 3 {
					t.Fatalf("last-column-id %d, %d schemas", md.LastColumnID, len(md.Schemas))
				}
			}},
		{name: "no change gives base back", updates: []Update{SetProperties{map[string]string{}}, RemoveSnapshotRef{"nope"}},
			check: func(t *testing.T, md *TableMetadata) {
				if len(md.MetadataLog) != 0 || md.LastUpdatedMs != 1 {
					t.Fatalf("a no-op commit changed the table: %+v", md)
				}
			}},
		// Java: a schema, spec or order that already exists is reused, not
		// added, so -1 does not name it.
		{name: "reused schema is not the last added", updates: []Update{AddSchema{Schema: NewSchema(7, NestedField{ID: 1, Name: "id", Type: LongType{}, Required: true})}, SetCurrentSchema{-1}}, wantErr: "none was added"},
		{name: "reused spec is not the last added", updates: []Update{AddSpec{PartitionSpec{Fields: []PartitionField{{SourceID: 1, FieldID: 1000, Name: "b", Transform: BucketTransform{16}}}}}, SetDefaultSpec{-1}}, wantErr: "none was added"},
		{name: "reused order is not the last added", updates: []Update{AddSortOrder{SortOrder{}}, SetDefaultSortOrder{-1}}, wantErr: "none was added"},
		{name: "set-current-schema -1 without add", updates: []Update{SetCurrentSchema{-1}}, wantErr: "none was added"},
		{name: "set-current-schema unknown", updates: []Update{SetCurrentSchema{9}}, wantErr: "unknown schema id 9"},
		{name: "add-spec assigns ids after last-partition-id", updates: []Update{AddSpec{PartitionSpec{Fields: []PartitionField{{SourceID: 1, Name: "id_trunc", Transform: TruncateTransform{10}}}}}, SetDefaultSpec{-1}},
			check: func(t *testing.T, md *TableMetadata) {
				spec, _ := md.SpecByID(2)
				if md.DefaultSpecID != 2 || md.LastPartitionID != 1002 || len(spec.Fields) != 1 || spec.Fields[0].FieldID != 1002 {
					t.Fatalf("default %d last %d spec %+v", md.DefaultSpecID, md.LastPartitionID, spec)
				}
			}},
		{name: "add-spec reuses the id of an earlier field", updates: []Update{AddSpec{PartitionSpec{Fields: []PartitionField{{SourceID: 1, Name: "b2", Transform: BucketTransform{16}}, {SourceID: 1, Name: "t", Transform: TruncateTransform{4}}}}}},
			check: func(t *testing.T, md *TableMetadata) {
				spec, _ := md.SpecByID(2)
				if spec.Fields[0].FieldID != 1000 || spec.Fields[1].FieldID != 1002 || md.LastPartitionID != 1002 {
					t.Fatalf("spec %+v last %d", spec, md.LastPartitionID)
				}
			}},
		{name: "add-spec reuses an equal spec", updates: []Update{AddSpec{PartitionSpec{ID: 5, Fields: []PartitionField{{SourceID: 1, FieldID: 1000, Name: "b", Transform: BucketTransform{16}}}}}, SetDefaultSpec{1}},
			check: func(t *testing.T, md *TableMetadata) {
				if len(md.Specs) != 2 || md.DefaultSpecID != 1 {
					t.Fatalf("specs %v default %d", md.Specs, md.DefaultSpecID)
				}
			}},
		{name: "add-spec on a missing column", updates: []Update{AddSpec{PartitionSpec{Fields: []PartitionField{{SourceID: 42, Name: "x", Transform: IdentityTransform{}}}}}}, wantErr: "source column 42"},
		{name: "sort orders: new id 1, unsorted stays 0", updates: []Update{AddSortOrder{SortOrder{OrderID: 9, Fields: []SortField{{SourceID: 1, Transform: "identity", Direction: "asc", NullOrder: "nulls-first"}}}}, SetDefaultSortOrder{-1}},
			check: func(t *testing.T, md *TableMetadata) {
				if md.DefaultSortOrderID != 1 || len(md.SortOrders) != 2 || md.SortOrders[1].OrderID != 1 {
					t.Fatalf("default %d orders %v", md.DefaultSortOrderID, md.SortOrders)
				}
			}},
		{name: "unsorted order is id 0", updates: []Update{AddSortOrder{SortOrder{OrderID: 3}}, SetDefaultSortOrder{0}},
			check: func(t *testing.T, md *TableMetadata) {
				if md.DefaultSortOrderID != 0 || len(md.SortOrders) != 1 {
					t.Fatalf("default %d orders %v", md.DefaultSortOrderID, md.SortOrders)
				}
			}},
		{name: "properties", updates: []Update{SetProperties{map[string]string{"a": "1", "b": "2"}}, RemoveProperties{[]string{"a", "missing"}}},
			check: func(t *testing.T, md *TableMetadata) {
				if !reflect.DeepEqual(md.Properties, map[string]string{"b": "2"}) {
					t.Fatalf("properties %v", md.Properties)
				}
			}},
		{name: "location and uuid", updates: []Update{SetLocation{"s3://c/t"}, AssignUUID{"u"}},
			check: func(t *testing.T, md *TableMetadata) {
				if md.Location != "s3://c/t" || md.TableUUID != "u" {
					t.Fatalf("%s %s", md.Location, md.TableUUID)
				}
			}},
		{name: "uuid cannot change", updates: []Update{AssignUUID{"other"}}, wantErr: "reassign"},
		{name: "format version cannot go down", updates: []Update{UpgradeFormatVersion{1}}, wantErr: "downgrade"},
		{name: "format version above 3", updates: []Update{UpgradeFormatVersion{4}}, wantErr: "unsupported"},
		{name: "upgrade to v3 starts row lineage", updates: []Update{UpgradeFormatVersion{3}},
			check: func(t *testing.T, md *TableMetadata) {
				if md.FormatVersion != 3 || md.NextRowID == nil || *md.NextRowID != 0 {
					t.Fatalf("v%d next-row-id %v", md.FormatVersion, md.NextRowID)
				}
			}},
		{name: "v3 snapshot advances next-row-id", updates: []Update{UpgradeFormatVersion{3}, AddSnapshot{Snapshot{SnapshotID: 30, ParentSnapshotID: ptr(int64(20)), SequenceNumber: 3, TimestampMs: 3000, FirstRowID: ptr(int64(0)), AddedRows: ptr(int64(25))}}},
			check: func(t *testing.T, md *TableMetadata) {
				if *md.NextRowID != 25 {
					t.Fatalf("next-row-id %d", *md.NextRowID)
				}
			}},
		{name: "v3 snapshot behind next-row-id", updates: []Update{UpgradeFormatVersion{3},
			AddSnapshot{Snapshot{SnapshotID: 30, ParentSnapshotID: ptr(int64(20)), SequenceNumber: 3, TimestampMs: 3000, FirstRowID: ptr(int64(0)), AddedRows: ptr(int64(25))}},
			AddSnapshot{Snapshot{SnapshotID: 31, ParentSnapshotID: ptr(int64(30)), SequenceNumber: 4, TimestampMs: 3000, FirstRowID: ptr(int64(10)), AddedRows: ptr(int64(1))}}},
			wantErr: "behind"},
		{name: "v3 snapshot without first-row-id", updates: []Update{UpgradeFormatVersion{3}, AddSnapshot{Snapshot{SnapshotID: 30, SequenceNumber: 3}}}, wantErr: "first-row-id"},
		{name: "v2 table refuses a timestamp_ns column", updates: []Update{AddSchema{Schema: NewSchema(0, NestedField{ID: 6, Name: "ts", Type: TimestampNsType{}})}}, wantErr: "format version 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := baseV2(t)
			before, _ := base.MarshalJSON()
			got, err := ApplyUpdates(base, "", tc.updates)
			if after, _ := base.MarshalJSON(); string(before) != string(after) {
				t.Fatal("ApplyUpdates changed its base")
			}
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrInvalidMetadata) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrInvalidMetadata with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
			// Whatever ApplyUpdates builds must write and read back.
			out, err := got.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseMetadata(out); err != nil {
				t.Fatalf("result does not read back: %v", err)
			}
		})
	}
}

// testNowMs is the clock of the package's tests: set once, before any
// test runs, so parallel tests can share it.
const testNowMs = 5000

func init() { nowMs = func() int64 { return testNowMs } }

func TestApplyUpdatesMetadataLog(t *testing.T) {
	t.Parallel()
	base := baseV2(t)
	base.Properties[PropMetadataPreviousVersionsMax] = "2"
	md := base
	for i, loc := range []string{"m1.json", "m2.json", "m3.json"} {
		next, err := ApplyUpdates(md, loc, []Update{SetProperties{map[string]string{"i": loc}}})
		if err != nil {
			t.Fatal(err)
		}
		if next.LastUpdatedMs != testNowMs {
			t.Fatalf("step %d: last-updated-ms %d", i, next.LastUpdatedMs)
		}
		md = next
	}
	want := []MetadataLogEntry{{testNowMs, "m2.json"}, {testNowMs, "m3.json"}}
	if !reflect.DeepEqual(md.MetadataLog, want) {
		t.Fatalf("metadata-log %v, want %v", md.MetadataLog, want)
	}
	first, _ := ApplyUpdates(base, "m0.json", []Update{SetLocation{"s3://b/t2"}})
	if !reflect.DeepEqual(first.MetadataLog, []MetadataLogEntry{{1, "m0.json"}}) {
		t.Fatalf("first entry takes base's last-updated-ms: %v", first.MetadataLog)
	}
}

func TestRequirements(t *testing.T) {
	t.Parallel()
	md, err := ParseMetadata([]byte(v2Metadata))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		req     Requirement
		current *TableMetadata
		wantErr string
	}{
		{AssertCreate{}, nil, ""},
		{AssertCreate{}, md, "already exists"},
		{AssertTableUUID{"u"}, md, ""},
		{AssertTableUUID{"x"}, md, "UUID does not match: expected u != x"},
		{AssertTableUUID{"u"}, nil, "does not exist"},
		{AssertRefSnapshotID{"main", ptr(int64(20))}, md, ""},
		{AssertRefSnapshotID{"main", ptr(int64(10))}, md, "branch main has changed: expected id 10 != 20"},
		{AssertRefSnapshotID{"main", nil}, md, "created concurrently"},
		{AssertRefSnapshotID{"new", nil}, md, ""},
		{AssertRefSnapshotID{"new", ptr(int64(1))}, md, "missing"},
		{AssertRefSnapshotID{"main", nil}, nil, ""},
		{AssertLastAssignedFieldID{3}, md, ""},
		{AssertLastAssignedFieldID{2}, md, "last assigned field id changed: expected id 2 != 3"},
		{AssertLastAssignedFieldID{2}, nil, ""},
		{AssertCurrentSchemaID{1}, md, ""},
		{AssertCurrentSchemaID{0}, md, "current schema changed: expected id 0 != 1"},
		{AssertCurrentSchemaID{0}, nil, "does not exist"},
		{AssertLastAssignedPartitionID{1001}, md, ""},
		{AssertLastAssignedPartitionID{1000}, md, "last assigned partition id changed: expected id 1000 != 1001"},
		{AssertDefaultSpecID{1}, md, ""},
		{AssertDefaultSpecID{0}, md, "default partition spec changed: expected id 0 != 1"},
		{AssertDefaultSortOrderID{0}, md, ""},
		{AssertDefaultSortOrderID{1}, md, "default sort order changed: expected id 1 != 0"},
	}
	for _, tc := range tests {
		err := tc.req.Validate(tc.current)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s %+v: %v", tc.req.Type(), tc.req, err)
		case tc.wantErr != "" && (err == nil || !errors.Is(err, ErrRequirementFailed) || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s %+v: err %v, want ErrRequirementFailed with %q", tc.req.Type(), tc.req, err, tc.wantErr)
		}
	}
}

// A create transaction as a REST client sends it (the updates of
// Java's and PyIceberg's create-table commit) builds a table from nil.
func TestApplyUpdatesCreate(t *testing.T) {
	t.Parallel()
	text := `[
	 {"action":"assign-uuid","uuid":"2cc52516-5e73-41f2-b139-545d41a4e151"},
	 {"action":"upgrade-format-version","format-version":3},
	 {"action":"add-schema","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"ts","required":false,"type":"timestamptz"}]},"last-column-id":2},
	 {"action":"set-current-schema","schema-id":-1},
	 {"action":"add-spec","spec":{"spec-id":0,"fields":[{"name":"ts_day","transform":"day","source-id":2,"field-id":1000}]}},
	 {"action":"set-default-spec","spec-id":-1},
	 {"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}},
	 {"action":"set-default-sort-order","sort-order-id":-1},
	 {"action":"set-location","location":"s3://b/ns/t"},
	 {"action":"set-properties","updates":{"owner":"me"}}]`
	updates, err := ParseUpdates([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := (AssertCreate{}).Validate(nil); err != nil {
		t.Fatal(err)
	}
	md, err := ApplyUpdates(nil, "s3://ignored", updates)
	if err != nil {
		t.Fatal(err)
	}
	if md.FormatVersion != 3 || md.TableUUID != "2cc52516-5e73-41f2-b139-545d41a4e151" || md.CurrentSchemaID != 0 || md.LastColumnID != 2 ||
		md.DefaultSpecID != 0 || md.LastPartitionID != 1000 || md.DefaultSortOrderID != 0 || md.Location != "s3://b/ns/t" ||
		md.NextRowID == nil || *md.NextRowID != 0 || md.LastUpdatedMs != testNowMs || len(md.MetadataLog) != 0 || md.Properties["owner"] != "me" {
		t.Fatalf("created: %+v", md)
	}
	if _, err := ApplyUpdates(nil, "", []Update{AddSpec{PartitionSpec{Fields: []PartitionField{{SourceID: 1, Name: "x", Transform: IdentityTransform{}}}}}}); !errors.Is(err, ErrInvalidMetadata) {
		t.Fatalf("a spec before any schema: %v", err)
	}
	if _, err := ApplyUpdates(nil, "", []Update{AssignUUID{"u"}}); !errors.Is(err, ErrInvalidMetadata) {
		t.Fatalf("a table without a schema: %v", err)
	}
}
