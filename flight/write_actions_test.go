package flight

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg/expr"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/writer"
)

func TestCreateTableAction(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, cat := serveWriter(t, fw, nil, nil)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	body, _ := json.Marshal(map[string]any{
		"table":          "samples.new",
		"schema":         base64.StdEncoding.EncodeToString(flight.SerializeSchema(schema, memory.DefaultAllocator)),
		"partition_by":   []any{"day(ts)", "bucket(16, id)", map[string]string{"source": "id", "transform": "truncate[10]", "name": "id_t"}},
		"sort_by":        []any{"id desc nulls-last", map[string]string{"source": "ts"}},
		"properties":     map[string]string{"write.format.default": "parquet"},
		"format_version": 3,
		"if_not_exists":  true,
	})
	res, err := doAction(context.Background(), h.client, ActionCreateTable, string(body))
	if err != nil {
		t.Fatal(err)
	}
	var got actions.TableInfo
	if len(res) != 1 || json.Unmarshal(res[0], &got) != nil || got.Table != "samples.new" || got.MetadataLocation == "" {
		t.Fatalf("create_table answered %q", res)
	}
	req := fw.create
	if !req.Schema.Equal(schema) || req.FormatVersion != 3 || !req.IfNotExists || req.Properties["write.format.default"] != "parquet" {
		t.Errorf("create request = %+v", req)
	}
	wantParts := []writer.PartitionField{{Source: "ts", Transform: "day"}, {Source: "id", Transform: "bucket[16]"}, {Source: "id", Transform: "truncate[10]", Name: "id_t"}}
	if fmt.Sprint(req.PartitionBy) != fmt.Sprint(wantParts) {
		t.Errorf("partition_by = %v, want %v", req.PartitionBy, wantParts)
	}
	wantSort := []writer.SortField{{Source: "id", Transform: "identity", Direction: "desc", NullOrder: "nulls-last"}, {Source: "ts"}}
	if fmt.Sprint(req.SortBy) != fmt.Sprint(wantSort) {
		t.Errorf("sort_by = %v, want %v", req.SortBy, wantSort)
	}
	if len(cat.refreshed) != 1 {
		t.Errorf("refreshed %v after create_table", cat.refreshed)
	}
}

func TestWriteActionsPassTheirBodies(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, nil)
	ctx := context.Background()
	run := func(typ, body string) [][]byte {
		t.Helper()
		res, err := doAction(ctx, h.client, typ, body)
		if err != nil {
			t.Fatalf("%s %s: %v", typ, body, err)
		}
		return res
	}
	res := run(ActionDelete, `{"table": "samples.trips", "filter": "id < 3", "branch": "b", "copy_on_write": true, "dry_run": true}`)
	var r actions.WriteResult
	if json.Unmarshal(res[0], &r) != nil || r.DeletedRecords != 7 || !r.DryRun {
		t.Errorf("delete answered %q", res)
	}
	if fw.del != (writer.DeleteRequest{Filter: "id < 3", Branch: "b", CopyOnWrite: true, DryRun: true}) {
		t.Errorf("delete request = %+v", fw.del)
	}
	run(ActionAlterTable, `{"table": "samples.trips", "schema": [{"op": "add_column", "path": "note", "type": "string"}], "set_properties": {"a": "b"}}`)
	if len(fw.alter.Schema) != 1 || fw.alter.Schema[0].Op != "add_column" || string(fw.alter.Schema[0].Type) != `"string"` || fw.alter.SetProperties["a"] != "b" {
		t.Errorf("alter request = %+v", fw.alter)
	}
	res = run(ActionExpireSnapshots, `{"table": "samples.trips", "older_than": "2026-01-02T03:04:05Z", "retain_last": 2, "snapshot_ids": [5], "dry_run": true}`)
	var m actions.MaintenanceResult
	if json.Unmarshal(res[0], &m) != nil || len(m.Removed) != 1 || m.Removed[0].Kind != "data" {
		t.Errorf("expire answered %q", res)
	}
	if !fw.expire.OlderThan.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || fw.expire.RetainLast != 2 || len(fw.expire.SnapshotIDs) != 1 || !fw.expire.DryRun {
		t.Errorf("expire request = %+v", fw.expire)
	}
	run(ActionRemoveOrphanFiles, `{"table": "samples.trips", "older_than": 1767225600000, "location": "s3://b/t/data"}`)
	if fw.orphan.OlderThan.UnixMilli() != 1767225600000 || fw.orphan.Location != "s3://b/t/data" {
		t.Errorf("orphan request = %+v", fw.orphan)
	}
	run(ActionRemoveOrphanFiles, `{"table": "samples.trips"}`)
	if !fw.orphan.OlderThan.IsZero() {
		t.Errorf("orphan without older_than = %v, want the writer's default (zero)", fw.orphan.OlderThan)
	}
	run(ActionRewriteDataFiles, `{"table": "samples.trips", "filter": "id > 0", "target_file_size": 1024, "min_input_files": 2}`)
	if fw.compact != (writer.CompactRequest{Filter: "id > 0", TargetFileSize: 1024, MinInputFiles: 2}) {
		t.Errorf("compact request = %+v", fw.compact)
	}
	run(ActionRewriteManifests, `{"table": "samples.trips", "target_manifest_size": 4096, "dry_run": true}`)
	if fw.manifests != (writer.RewriteManifestsRequest{TargetManifestSize: 4096, DryRun: true}) {
		t.Errorf("rewrite_manifests request = %+v", fw.manifests)
	}
	run(ActionDropTable, `{"table": "samples.trips", "purge": true}`)
	if len(fw.dropped) != 1 || fw.dropped[0] != "samples.trips true" {
		t.Errorf("dropped = %v", fw.dropped)
	}
	fw.listed = [][]string{{"a"}, {"b", "c"}}
	res = run(ActionListNamespaces, `{}`)
	if len(res) != 1 || string(res[0]) != `["a","b.c"]` {
		t.Errorf("list_namespaces answered %q", res)
	}
	run(ActionCreateNamespace, `{"namespace": "db.sub", "properties": {"owner": "me"}}`)
	run(ActionDropNamespace, `{"namespace": "db.sub"}`)
}

func TestWriteActionsRefuseBadBodies(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	h, _ := serveWriter(t, fw, nil, nil)
	for _, tc := range []struct {
		typ, body string
		want      string
	}{
		{ActionDelete, `{"table": "samples.trips"}`, "needs a filter"},
		{ActionDelete, `{"table": "samples.trips", "filter": "x", "dryrun": true}`, "unknown field"},
		{ActionDelete, `{"filter": "true"}`, "needs {\"table\""},
		{ActionExpireSnapshots, `{"table": "samples.trips", "older_than": "last week"}`, "RFC 3339"},
		{ActionExpireSnapshots, `{"table": "samples.trips", "retain_last": -1}`, "negative"},
		{ActionCreateTable, `{"table": "samples.x"}`, "needs \"schema\""},
		{ActionCreateTable, `{"table": "samples.x", "schema": "!!"}`, "not base64"},
		{ActionCreateTable, `{"table": "samples.x", "schema": "AAAA"}`, "not an Arrow IPC schema"},
		{ActionAlterTable, `{"table": "samples.trips", "colour": 1}`, "unknown field"},
		{ActionCreateNamespace, `{}`, "needs {\"namespace\""},
		{ActionRewriteDataFiles, `{"table": "samples.trips", "target_file_size": -5}`, "negative"},
	} {
		_, err := doAction(context.Background(), h.client, tc.typ, tc.body)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s = %v, want InvalidArgument saying %q", tc.typ, tc.body, err, tc.want)
		}
	}
	if calls := fw.callList(); len(calls) != 0 {
		t.Errorf("writer called %v for bad bodies", calls)
	}
}

func TestWriteActionErrorCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ, body string
		err       error
		want      codes.Code
	}{
		{ActionCreateTable, "", catalog.ErrTableExists, codes.AlreadyExists},
		{ActionCreateNamespace, `{"namespace": "db"}`, catalog.ErrNamespaceExists, codes.AlreadyExists},
		{ActionDropNamespace, `{"namespace": "db"}`, catalog.ErrNamespaceNotEmpty, codes.FailedPrecondition},
		{ActionDropNamespace, `{"namespace": "db"}`, catalog.ErrNamespaceNotFound, codes.NotFound},
		{ActionDelete, `{"table": "samples.trips", "filter": "nope >"}`, fmt.Errorf("filter: %w", expr.ErrInvalidFilter), codes.InvalidArgument},
		{ActionExpireSnapshots, `{"table": "samples.trips"}`, catalog.ErrCommitConflict, codes.Aborted},
		{ActionAlterTable, `{"table": "samples.trips"}`, catalog.ErrCommitStateUnknown, codes.Unknown},
	} {
		fw := newFakeWriter()
		fw.err = tc.err
		h, _ := serveWriter(t, fw, nil, nil)
		body := tc.body
		if tc.typ == ActionCreateTable {
			b, _ := json.Marshal(map[string]any{"table": "samples.trips", "schema": base64.StdEncoding.EncodeToString(flight.SerializeSchema(putSchema, memory.DefaultAllocator))})
			body = string(b)
		}
		if _, err := doAction(context.Background(), h.client, tc.typ, body); status.Code(err) != tc.want {
			t.Errorf("%s with %v = %v, want %v", tc.typ, tc.err, err, tc.want)
		}
	}
}

func TestListActionsNamesTheWriteActions(t *testing.T) {
	t.Parallel()
	h, _ := serveWriter(t, newFakeWriter(), nil, nil)
	stream, err := h.client.ListActions(context.Background(), &flight.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for {
		a, err := stream.Recv()
		if err != nil {
			break
		}
		seen[a.Type] = a.Description != ""
	}
	for _, a := range []string{ActionSnapshots, ActionCreateTable, ActionDropTable, ActionCreateNamespace, ActionListNamespaces, ActionDropNamespace,
		ActionDelete, ActionAlterTable, ActionExpireSnapshots, ActionRemoveOrphanFiles, ActionRewriteDataFiles, ActionRewriteManifests} {
		if !seen[a] {
			t.Errorf("ListActions lacks %s or its description", a)
		}
	}
}

func TestMaintenanceResultIsPaged(t *testing.T) {
	t.Parallel()
	fw := newFakeWriter()
	removed := make([]writer.RemovedFile, 30000)
	for i := range removed {
		removed[i] = writer.RemovedFile{Location: fmt.Sprintf("s3://bucket/warehouse/db/t/data/%08d-a-long-file-name.parquet", i), Kind: "data", Size: int64(i)}
	}
	fw.maint = &writer.MaintenanceResult{DryRun: true, Removed: removed, Counts: map[string]int{"data": len(removed)}}
	h, _ := serveWriter(t, fw, nil, nil)
	res, err := doAction(context.Background(), h.client, ActionRemoveOrphanFiles, `{"table": "samples.trips", "dry_run": true}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 3 {
		t.Fatalf("%d results for %d files, want the list paged", len(res), len(removed))
	}
	var head actions.MaintenanceResult
	if err := json.Unmarshal(res[0], &head); err != nil || head.Counts["data"] != len(removed) || !head.DryRun {
		t.Fatalf("first result %.200s: %v", res[0], err)
	}
	all := head.Removed
	for _, page := range res[1:] {
		if len(page) > maxResultBytes {
			t.Errorf("page of %d bytes", len(page))
		}
		var files []actions.RemovedFile
		if err := json.Unmarshal(page, &files); err != nil {
			t.Fatal(err)
		}
		all = append(all, files...)
	}
	if len(all) != len(removed) || all[12345] != (actions.RemovedFile{Location: removed[12345].Location, Kind: removed[12345].Kind, Size: removed[12345].Size}) {
		t.Errorf("joined %d files, want %d in order", len(all), len(removed))
	}
}
