package flight

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/engine"
	"github.com/iceflight/iceflight/internal/strictjson"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/writer"
)

// Write actions served by DoAction, each with a JSON body and JSON
// results, defined in proto/actions (writeActionTypes describes them to
// ListActions).
const (
	ActionCreateTable       = actions.CreateTable
	ActionDropTable         = actions.DropTable
	ActionCreateNamespace   = actions.CreateNamespace
	ActionListNamespaces    = actions.ListNamespaces
	ActionDropNamespace     = actions.DropNamespace
	ActionDelete            = actions.Delete
	ActionAlterTable        = actions.AlterTable
	ActionExpireSnapshots   = actions.ExpireSnapshots
	ActionRemoveOrphanFiles = actions.RemoveOrphanFiles
	ActionRewriteDataFiles  = actions.RewriteDataFiles
	ActionRewriteManifests  = actions.RewriteManifests
)

const maintenanceResult = ` -> {"dry_run", "snapshot_id", "expired_snapshots", "removed": [{"location", "kind", "size"}], "counts", "rewritten_files", "added_files"}; ` +
	`a long "removed" list continues in further results, each a JSON array to append to it`

var writeActionTypes = []*flight.ActionType{
	{Type: ActionCreateTable, Description: `Create a table: {"table": "db.t", "schema": base64 Arrow IPC schema (pyarrow Schema.serialize()), "partition_by": [{"source", "transform", "name"} or "day(ts)", "bucket[16](id)", "id"], ` +
		`"sort_by": [{"source", "transform", "direction", "null_order"} or "id desc nulls-last"], "properties": {}, "format_version": 2, "location": "", "if_not_exists": false} -> {"table", "metadata_location", "table_uuid", "format_version", "schema_id"}`},
	{Type: ActionDropTable, Description: `Drop a table: {"table": "db.t", "purge": false} -> {"dropped": true}`},
	{Type: ActionCreateNamespace, Description: `Create a namespace: {"namespace": "db", "properties": {}} -> {"namespace": "db"}`},
	{Type: ActionListNamespaces, Description: `List the namespaces below a parent: {"parent": "db"} or {} for the top level -> ["db.a", "db.b"]`},
	{Type: ActionDropNamespace, Description: `Drop an empty namespace: {"namespace": "db"} -> {"dropped": true}`},
	{Type: ActionDelete, Description: `Delete rows: {"table": "db.t", "filter": "id < 10", "branch": "", "copy_on_write": false, "dry_run": false} -> {"snapshot_id", "operation", "deleted_records", ...}`},
	{Type: ActionAlterTable, Description: `Change schema, partition spec, sort order, properties, refs or format version in one commit: {"table": "db.t", "schema": [{"op": "add_column", "path", "type", ...}], "partition_spec": [...], ` +
		`"sort_order": [...], "set_properties": {}, "remove_properties": [], "refs": [...], "format_version": 0} -> {"table", "metadata_location", "table_uuid", "format_version", "schema_id"}`},
	{Type: ActionExpireSnapshots, Description: `Expire snapshots: {"table": "db.t", "older_than": RFC 3339 or Unix ms, "retain_last": 1, "snapshot_ids": [], "dry_run": false}` + maintenanceResult},
	{Type: ActionRemoveOrphanFiles, Description: `Remove files no metadata references: {"table": "db.t", "older_than": RFC 3339 or Unix ms (default 3 days ago), "location": "", "dry_run": false}` + maintenanceResult},
	{Type: ActionRewriteDataFiles, Description: `Compact data files and apply deletes: {"table": "db.t", "filter": "", "target_file_size": 0, "min_input_files": 0, "dry_run": false}` + maintenanceResult},
	{Type: ActionRewriteManifests, Description: `Rewrite small manifests into fewer: {"table": "db.t", "target_manifest_size": 0, "dry_run": false}` + maintenanceResult},
}

// isWriteAction reports whether typ is one of the write actions.
func isWriteAction(typ string) bool {
	for _, a := range writeActionTypes {
		if a.Type == typ {
			return true
		}
	}
	return false
}

// writeAction serves one write action.
func (s *Service) writeAction(ctx context.Context, action *flight.Action, send func([]byte) error) error {
	typ := action.GetType()
	if err := s.checkWritable("DoAction " + typ); err != nil {
		if typ != ActionListNamespaces || s.eng.Role() == engine.RoleWorker {
			return err
		}
	}
	decode := func(v any) error {
		body := bytes.TrimSpace(action.GetBody())
		if len(body) == 0 {
			body = []byte("{}")
		}
		if err := strictjson.Decode(body, v); err != nil {
			return fmt.Errorf("%w: action %s body: %v", engine.ErrBadCommand, typ, err)
		}
		return nil
	}
	switch typ {
	case ActionCreateNamespace, ActionDropNamespace, ActionListNamespaces:
		var b actions.NamespaceRequest
		if err := decode(&b); err != nil {
			return err
		}
		return s.namespaceAction(ctx, typ, b, send)
	case ActionCreateTable:
		var b actions.CreateTableRequest
		if err := decode(&b); err != nil {
			return err
		}
		id, err := s.authorizeWrite(ctx, typ, b.Table)
		if err != nil {
			return err
		}
		req, err := s.createRequest(b)
		if err != nil {
			return withTableName(id.String(), err)
		}
		t, err := s.writer.CreateTable(ctx, id, req)
		if err != nil {
			return withTableName(id.String(), err)
		}
		s.committed(id)
		return sendJSON(tableAnswer(t), send)
	case ActionDropTable:
		var b actions.DropTableRequest
		if err := decode(&b); err != nil {
			return err
		}
		id, err := s.authorizeWrite(ctx, typ, b.Table)
		if err != nil {
			return err
		}
		if s.writeCatalog == nil {
			return fmt.Errorf("%w: drop table %s: the catalog cannot drop tables", catalog.ErrReadOnly, id)
		}
		if err := s.writeCatalog.DropTable(ctx, id, b.Purge); err != nil {
			return withTableName(id.String(), err)
		}
		s.committed(id)
		return send(droppedAnswer)
	}
	return s.tableWriteAction(ctx, typ, decode, send)
}

// tableWriteAction serves the actions that commit to an existing table.
func (s *Service) tableWriteAction(ctx context.Context, typ string, decode func(any) error, send func([]byte) error) error {
	var (
		table string
		run   func(id catalog.Identifier) (any, error)
	)
	switch typ {
	case ActionDelete:
		var b actions.DeleteRequest
		if err := decode(&b); err != nil {
			return err
		}
		if strings.TrimSpace(b.Filter) == "" {
			return fmt.Errorf("%w: delete needs a filter (\"true\" deletes every row)", engine.ErrBadCommand)
		}
		table = b.Table
		run = func(id catalog.Identifier) (any, error) {
			return s.writer.Delete(ctx, id, writer.DeleteRequest{Filter: b.Filter, Branch: b.Branch, CopyOnWrite: b.CopyOnWrite, DryRun: b.DryRun})
		}
	case ActionAlterTable:
		var b actions.AlterTableRequest
		if err := decode(&b); err != nil {
			return err
		}
		table = b.Table
		run = func(id catalog.Identifier) (any, error) {
			return s.writer.Alter(ctx, id, alterRequest(b))
		}
	case ActionExpireSnapshots:
		var b actions.ExpireSnapshotsRequest
		if err := decode(&b); err != nil {
			return err
		}
		older, err := parseTime("older_than", b.OlderThan)
		if err != nil {
			return err
		}
		if b.RetainLast < 0 {
			return fmt.Errorf("%w: retain_last %d is negative", engine.ErrBadCommand, b.RetainLast)
		}
		table = b.Table
		run = func(id catalog.Identifier) (any, error) {
			return s.writer.ExpireSnapshots(ctx, id, writer.ExpireRequest{OlderThan: older, RetainLast: b.RetainLast, SnapshotIDs: b.SnapshotIDs, DryRun: b.DryRun})
		}
	case ActionRemoveOrphanFiles:
		var b actions.RemoveOrphanFilesRequest
		if err := decode(&b); err != nil {
			return err
		}
		older, err := parseTime("older_than", b.OlderThan)
		if err != nil {
			return err
		}
		table = b.Table
		run = func(id catalog.Identifier) (any, error) {
			return s.writer.RemoveOrphanFiles(ctx, id, writer.OrphanRequest{OlderThan: older, Location: b.Location, DryRun: b.DryRun})
		}
	case ActionRewriteDataFiles:
		var b actions.RewriteDataFilesRequest
		if err := decode(&b); err != nil {
			return err
		}
		if b.TargetFileSize < 0 || b.MinInputFiles < 0 {
			return fmt.Errorf("%w: target_file_size and min_input_files cannot be negative", engine.ErrBadCommand)
		}
		table = b.Table
		run = func(id catalog.Identifier) (any, error) {
			return s.writer.RewriteDataFiles(ctx, id, writer.CompactRequest{Filter: b.Filter, TargetFileSize: b.TargetFileSize, MinInputFiles: b.MinInputFiles, DryRun: b.DryRun})
		}
	case ActionRewriteManifests:
		var b actions.RewriteManifestsRequest
		if err := decode(&b); err != nil {
			return err
		}
		if b.TargetManifestSize < 0 {
			return fmt.Errorf("%w: target_manifest_size cannot be negative", engine.ErrBadCommand)
		}
		table = b.Table
		run = func(id catalog.Identifier) (any, error) {
			return s.writer.RewriteManifests(ctx, id, writer.RewriteManifestsRequest{TargetManifestSize: b.TargetManifestSize, DryRun: b.DryRun})
		}
	default:
		return fmt.Errorf("%w: unknown action %q", engine.ErrBadCommand, typ)
	}
	id, err := s.authorizeWrite(ctx, typ, table)
	if err != nil {
		return err
	}
	res, err := run(id)
	if err != nil {
		return withTableName(id.String(), fmt.Errorf("%s: %w", typ, err))
	}
	s.committed(id)
	// The writer's answer in its wire form.
	switch r := res.(type) {
	case *writer.Result:
		engine.CallInfoFrom(ctx).SetSnapshotID(r.SnapshotID)
		return sendJSON(writeAnswer(r), send)
	case *writer.MaintenanceResult:
		return sendMaintenance(ctx, maintenanceAnswer(r), send)
	case *catalog.Table:
		return sendJSON(tableAnswer(r), send)
	}
	return fmt.Errorf("%s: the writer answered a %T", typ, res)
}

// sendMaintenance sends a maintenance result whose removed list may be
// too long for one message: the first result is the object with the
// list's first page, each later one a JSON array continuing it.
func sendMaintenance(ctx context.Context, r actions.MaintenanceResult, send func([]byte) error) error {
	head := r
	b, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("encode action result: %w", err)
	}
	if len(b) <= maxResultBytes {
		return send(b)
	}
	// The first page holds the counts and no files; the files follow.
	head.Removed = []actions.RemovedFile{}
	if b, err = json.Marshal(head); err != nil {
		return fmt.Errorf("encode action result: %w", err)
	}
	if err := send(b); err != nil {
		return err
	}
	return sendPages(ctx, len(r.Removed), '[', ']', func(i int) ([]byte, error) { return json.Marshal(r.Removed[i]) }, send)
}

func sendJSON(v any, send func([]byte) error) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode action result: %w", err)
	}
	return send(b)
}

// parseTime reads a time given as an RFC 3339 string or Unix
// milliseconds; absent or null is the zero time (the writer's default).
func parseTime(key string, raw json.RawMessage) (time.Time, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.UnixMilli(ms), nil
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%w: %s %q: want RFC 3339 (2026-01-02T15:04:05Z) or Unix milliseconds", engine.ErrBadCommand, key, s)
		}
		return t, nil
	}
	var ms int64
	if err := json.Unmarshal(raw, &ms); err != nil {
		return time.Time{}, fmt.Errorf("%w: %s %s: want RFC 3339 or Unix milliseconds", engine.ErrBadCommand, key, strictjson.Abbreviate(raw, 60))
	}
	return time.UnixMilli(ms), nil
}

// createRequest turns a create_table body into the writer's request.
func (s *Service) createRequest(b actions.CreateTableRequest) (writer.CreateTable, error) {
	req := writer.CreateTable{Properties: b.Properties, FormatVersion: b.FormatVersion, Location: b.Location, IfNotExists: b.IfNotExists}
	if b.Schema == "" {
		return req, fmt.Errorf("%w: create_table needs \"schema\", a base64 Arrow IPC schema", engine.ErrBadCommand)
	}
	raw, err := base64.StdEncoding.DecodeString(b.Schema)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(b.Schema); err != nil {
			return req, fmt.Errorf("%w: create_table schema is not base64: %v", engine.ErrBadCommand, err)
		}
	}
	if req.Schema, err = flight.DeserializeSchema(raw, s.eng.Allocator()); err != nil {
		return req, fmt.Errorf("%w: create_table schema is not an Arrow IPC schema: %v", engine.ErrBadCommand, err)
	}
	switch b.FormatVersion {
	case 0, 1, 2, 3:
	default:
		return req, fmt.Errorf("%w: format_version %d: want 1, 2 or 3", engine.ErrBadCommand, b.FormatVersion)
	}
	for _, raw := range b.PartitionBy {
		f, err := parsePartitionField(raw)
		if err != nil {
			return req, err
		}
		req.PartitionBy = append(req.PartitionBy, f)
	}
	for _, raw := range b.SortBy {
		f, err := parseSortField(raw)
		if err != nil {
			return req, err
		}
		req.SortBy = append(req.SortBy, f)
	}
	return req, nil
}
