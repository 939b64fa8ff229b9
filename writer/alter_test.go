package writer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/iceflight/iceflight/iceberg"
)

func ptr[T any](v T) *T { return &v }

// alterBase is a v2 table with three snapshots 1 <- 2 <- 3 on main, a
// branch "dev" at 2 that forked to 4 (parent 2), and a tag "v1" at 1.
func alterBase() *iceberg.TableMetadata {
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.StringType{}},
		iceberg.NestedField{ID: 3, Name: "ts", Type: iceberg.TimestampType{}},
	)
	return &iceberg.TableMetadata{
		FormatVersion: 2, TableUUID: "9c12d441-03fe-4693-9a96-a0705ddf69c1",
		LastColumnID: 3, Schemas: []*iceberg.Schema{schema},
		Specs:             []iceberg.PartitionSpec{{ID: 0}},
		LastPartitionID:   999,
		SortOrders:        []iceberg.SortOrder{{OrderID: 0}},
		CurrentSnapshotID: ptr(int64(3)),
		Snapshots: []iceberg.Snapshot{
			{SnapshotID: 1}, {SnapshotID: 2, ParentSnapshotID: ptr(int64(1))},
			{SnapshotID: 3, ParentSnapshotID: ptr(int64(2))}, {SnapshotID: 4, ParentSnapshotID: ptr(int64(2))},
		},
		Refs: map[string]iceberg.SnapshotRef{
			"main": {SnapshotID: 3, Type: iceberg.RefBranch},
			"dev":  {SnapshotID: 4, Type: iceberg.RefBranch, MaxRefAgeMs: ptr(int64(1000))},
			"old":  {SnapshotID: 2, Type: iceberg.RefBranch},
			"v1":   {SnapshotID: 1, Type: iceberg.RefTag},
		},
	}
}

// describe prints requirements and updates in their REST names with the
// fields that matter, in commit order.
func describe(reqs []iceberg.Requirement, updates []iceberg.Update) string {
	var parts []string
	for _, r := range reqs {
		switch r := r.(type) {
		case iceberg.AssertRefSnapshotID:
			id := "null"
			if r.SnapshotID != nil {
				id = fmt.Sprint(*r.SnapshotID)
			}
			parts = append(parts, fmt.Sprintf("%s(%s=%s)", r.Type(), r.Ref, id))
		case iceberg.AssertTableUUID:
			parts = append(parts, r.Type())
		default:
			parts = append(parts, fmt.Sprintf("%s%v", r.Type(), r))
		}
	}
	parts = append(parts, "|")
	for _, u := range updates {
		switch u := u.(type) {
		case iceberg.AddSchema:
			b, _ := json.Marshal(u.Schema)
			parts = append(parts, fmt.Sprintf("%s(last=%d %s)", u.Action(), u.LastColumnID, b))
		case iceberg.AddSpec:
			b, _ := json.Marshal(u.Spec)
			parts = append(parts, fmt.Sprintf("%s(%s)", u.Action(), b))
		case iceberg.SetSnapshotRef:
			b, _ := json.Marshal(u.Ref)
			parts = append(parts, fmt.Sprintf("%s(%s=%s)", u.Action(), u.Name, b))
		default:
			parts = append(parts, fmt.Sprintf("%s%v", u.Action(), u))
		}
	}
	return strings.Join(parts, " ")
}

func TestAlterUpdates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  AlterRequest
		want string
		err  string
	}{
		{name: "schema change asserts the schema id and last column id",
			req:  AlterRequest{Schema: []SchemaChange{{Op: "add_column", Path: "extra", Type: json.RawMessage(`"int"`)}}},
			want: `assert-table-uuid assert-current-schema-id{0} assert-last-assigned-field-id{3} | add-schema(last=4 {"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"data","required":false,"type":"string"},{"id":3,"name":"ts","required":false,"type":"timestamp"},{"id":4,"name":"extra","required":false,"type":"int"}]}) set-current-schema{-1}`},
		{name: "a spec change partitions by a column added in the same alter",
			req: AlterRequest{
				Schema:        []SchemaChange{{Op: "add_column", Path: "region", Type: json.RawMessage(`"string"`)}},
				PartitionSpec: []SpecChange{{Op: "add_field", Source: "region"}, {Op: "add_field", Source: "ts", Transform: "day"}},
			},
			want: `assert-table-uuid assert-current-schema-id{0} assert-last-assigned-field-id{3} assert-default-spec-id{0} assert-last-assigned-partition-id{999} | add-schema(last=4 {"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"data","required":false,"type":"string"},{"id":3,"name":"ts","required":false,"type":"timestamp"},{"id":4,"name":"region","required":false,"type":"string"}]}) set-current-schema{-1} add-spec({"spec-id":1,"fields":[{"source-id":4,"field-id":1000,"name":"region","transform":"identity"},{"source-id":3,"field-id":1001,"name":"ts_day","transform":"day"}]}) set-default-spec{-1}`},
		{name: "sort order with Java's null order defaults",
			req:  AlterRequest{SortOrder: []SortField{{Source: "data"}, {Source: "ts", Transform: "day", Direction: "desc"}}},
			want: `assert-table-uuid assert-default-sort-order-id{0} | add-sort-order{{1 [{2 identity asc nulls-first} {3 day desc nulls-last}]}} set-default-sort-order{-1}`},
		{name: "properties, and format-version as an upgrade",
			req:  AlterRequest{SetProperties: map[string]string{"format-version": "3", "k": "v"}, RemoveProperties: []string{"gone"}},
			want: `assert-table-uuid | upgrade-format-version{3} set-properties{map[k:v]} remove-properties{[gone]}`},
		{name: "a v3 default may come with the upgrade",
			req:  AlterRequest{FormatVersion: 3, Schema: []SchemaChange{{Op: "add_column", Path: "n", Type: json.RawMessage(`"int"`), Required: true, Default: json.RawMessage(`7`)}}},
			want: `assert-table-uuid assert-current-schema-id{0} assert-last-assigned-field-id{3} | upgrade-format-version{3} add-schema(last=4 {"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"data","required":false,"type":"string"},{"id":3,"name":"ts","required":false,"type":"timestamp"},{"id":4,"name":"n","required":true,"type":"int","initial-default":7,"write-default":7}]}) set-current-schema{-1}`},
		{name: "no downgrade", req: AlterRequest{FormatVersion: 1}, err: "downgrade"},
		{name: "create branch and tag at the current snapshot by default",
			req:  AlterRequest{Refs: []RefChange{{Op: "create_branch", Name: "b", MinSnapshotsToKeep: ptr(3)}, {Op: "create_tag", Name: "t", SnapshotID: ptr(int64(2)), MaxRefAgeMs: ptr(int64(5))}}},
			want: `assert-table-uuid assert-ref-snapshot-id(b=null) assert-ref-snapshot-id(t=null) | set-snapshot-ref(b={"snapshot-id":3,"type":"branch","min-snapshots-to-keep":3}) set-snapshot-ref(t={"snapshot-id":2,"type":"tag","max-ref-age-ms":5})`},
		{name: "create an existing ref", req: AlterRequest{Refs: []RefChange{{Op: "create_branch", Name: "dev"}}}, err: "already exists"},
		{name: "tags take no snapshot retention", req: AlterRequest{Refs: []RefChange{{Op: "create_tag", Name: "t", MinSnapshotsToKeep: ptr(1)}}}, err: "tags do not take"},
		{name: "replace keeps the ref's retention",
			req:  AlterRequest{Refs: []RefChange{{Op: "replace_branch", Name: "dev", SnapshotID: ptr(int64(1))}}},
			want: `assert-table-uuid assert-ref-snapshot-id(dev=4) | set-snapshot-ref(dev={"snapshot-id":1,"type":"branch","max-ref-age-ms":1000})`},
		{name: "replace a tag as a branch", req: AlterRequest{Refs: []RefChange{{Op: "replace_branch", Name: "v1"}}}, err: "is a tag"},
		{name: "unknown snapshot", req: AlterRequest{Refs: []RefChange{{Op: "replace_tag", Name: "v1", SnapshotID: ptr(int64(99))}}}, err: "snapshot not found"},
		{name: "remove a ref", req: AlterRequest{Refs: []RefChange{{Op: "remove_ref", Name: "v1"}}},
			want: `assert-table-uuid assert-ref-snapshot-id(v1=1) | remove-snapshot-ref{v1}`},
		{name: "main cannot be removed", req: AlterRequest{Refs: []RefChange{{Op: "remove_ref", Name: "main"}}}, err: "cannot be removed"},
		{name: "fast-forward to a descendant",
			req:  AlterRequest{Refs: []RefChange{{Op: "fast_forward", Name: "old", Target: "main"}}},
			want: `assert-table-uuid assert-ref-snapshot-id(old=2) assert-ref-snapshot-id(main=3) | set-snapshot-ref(old={"snapshot-id":3,"type":"branch"})`},
		{name: "fast-forward refuses diverged branches", req: AlterRequest{Refs: []RefChange{{Op: "fast_forward", Name: "dev", Target: "main"}}}, err: "not an ancestor"},
		{name: "a later ref change sees an earlier one",
			req:  AlterRequest{Refs: []RefChange{{Op: "create_branch", Name: "b", SnapshotID: ptr(int64(1))}, {Op: "fast_forward", Name: "b", Target: "dev"}}},
			want: `assert-table-uuid assert-ref-snapshot-id(b=null) assert-ref-snapshot-id(dev=4) | set-snapshot-ref(b={"snapshot-id":1,"type":"branch"}) set-snapshot-ref(b={"snapshot-id":4,"type":"branch"})`},
		{name: "bad schema change names its index", req: AlterRequest{Schema: []SchemaChange{{Op: "drop_column", Path: "nope"}}}, err: "schema change 0 (drop_column)"},
		{name: "unknown schema op", req: AlterRequest{Schema: []SchemaChange{{Op: "explode", Path: "id"}}}, err: "unknown op"},
		{name: "nothing changes", req: AlterRequest{Schema: []SchemaChange{{Op: "rename_column", Path: "id", Name: "id"}}},
			want: `assert-table-uuid |`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := alterBase()
			err := tc.req.check()
			var reqs []iceberg.Requirement
			var updates []iceberg.Update
			if err == nil {
				reqs, updates, err = alterUpdates(md, tc.req)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrInvalidArgument) {
					t.Fatalf("err = %v, want ErrInvalidArgument with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(reqs, updates); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestAlterCheckRejectsBadTypes(t *testing.T) {
	t.Parallel()
	req := AlterRequest{Schema: []SchemaChange{{Op: "add_column", Path: "x", Type: json.RawMessage(`"int64"`)}}}
	if err := req.check(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("err = %v", err)
	}
}
