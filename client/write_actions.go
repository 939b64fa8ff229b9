package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
)

// TableInfo is a table as create_table and alter_table answer it.
type TableInfo struct {
	Table            string `json:"table"`
	MetadataLocation string `json:"metadata_location"`
	TableUUID        string `json:"table_uuid"`
	FormatVersion    int    `json:"format_version"`
	SchemaID         int    `json:"schema_id"`
}

// CreateTableOptions are the optional parts of a new table.
type CreateTableOptions struct {
	// PartitionBy are partition fields: "day(ts)", "bucket(16, id)",
	// "truncate(4, name)", "id" (identity), or the server's objects.
	PartitionBy []any
	// SortBy are sort fields: "id", "id desc nulls-last", "day(ts) asc".
	SortBy     []any
	Properties map[string]string
	// FormatVersion is 2 when 0.
	FormatVersion int
	Location      string
	// IfNotExists answers the existing table instead of AlreadyExists.
	IfNotExists bool
}

// CreateTable creates table with the columns of schema (field ids are
// assigned by the server, as Iceberg does).
func (c *Client) CreateTable(ctx context.Context, table string, schema *arrow.Schema, o CreateTableOptions) (*TableInfo, error) {
	body := map[string]any{
		"table":  table,
		"schema": base64.StdEncoding.EncodeToString(flight.SerializeSchema(schema, c.opts.mem)),
	}
	set := func(key string, v any, ok bool) {
		if ok {
			body[key] = v
		}
	}
	set("partition_by", o.PartitionBy, len(o.PartitionBy) > 0)
	set("sort_by", o.SortBy, len(o.SortBy) > 0)
	set("properties", o.Properties, len(o.Properties) > 0)
	set("format_version", o.FormatVersion, o.FormatVersion != 0)
	set("location", o.Location, o.Location != "")
	set("if_not_exists", o.IfNotExists, o.IfNotExists)
	var out TableInfo
	return &out, c.writeAction(ctx, "create_table", table, body, &out)
}

// DropTable drops table; purge deletes its files too.
func (c *Client) DropTable(ctx context.Context, table string, purge bool) error {
	return c.writeAction(ctx, "drop_table", table, map[string]any{"table": table, "purge": purge}, nil)
}

// DeleteOptions are the optional parts of a delete.
type DeleteOptions struct {
	Branch string
	// CopyOnWrite rewrites data files instead of writing delete files.
	CopyOnWrite bool
	DryRun      bool
}

// Delete deletes the rows of table that match filter ("true" all).
func (c *Client) Delete(ctx context.Context, table, filter string, o DeleteOptions) (*WriteResult, error) {
	body := map[string]any{"table": table, "filter": filter, "branch": o.Branch, "copy_on_write": o.CopyOnWrite, "dry_run": o.DryRun}
	var out WriteResult
	return &out, c.writeAction(ctx, "delete", table, body, &out)
}

// AlterRequest is one alter_table call: its changes commit together. See
// the server's alter_table description for the ops.
type AlterRequest struct {
	Schema           []SchemaChange    `json:"schema,omitempty"`
	PartitionSpec    []SpecChange      `json:"partition_spec,omitempty"`
	SortOrder        []SortField       `json:"sort_order,omitempty"`
	SetProperties    map[string]string `json:"set_properties,omitempty"`
	RemoveProperties []string          `json:"remove_properties,omitempty"`
	Refs             []RefChange       `json:"refs,omitempty"`
	FormatVersion    int               `json:"format_version,omitempty"`
}

// SchemaChange is one schema change (op add_column, drop_column,
// rename_column, update_type, make_optional, make_required, update_doc,
// move_first, move_before, move_after, set_identifier_fields).
type SchemaChange struct {
	Op   string `json:"op"`
	Path string `json:"path,omitempty"`
	Name string `json:"name,omitempty"`
	// Type is an Iceberg type in the spec's JSON form: "long", or an
	// object for nested types.
	Type     json.RawMessage `json:"type,omitempty"`
	Required bool            `json:"required,omitempty"`
	Doc      string          `json:"doc,omitempty"`
	Default  json.RawMessage `json:"default,omitempty"`
	Ref      string          `json:"ref,omitempty"`
	Fields   []string        `json:"fields,omitempty"`
}

// SpecChange is one partition spec change (add_field, remove_field,
// rename_field).
type SpecChange struct {
	Op        string `json:"op"`
	Source    string `json:"source,omitempty"`
	Transform string `json:"transform,omitempty"`
	Name      string `json:"name,omitempty"`
	NewName   string `json:"new_name,omitempty"`
}

// SortField is one sort order field.
type SortField struct {
	Source    string `json:"source"`
	Transform string `json:"transform,omitempty"`
	Direction string `json:"direction,omitempty"`
	NullOrder string `json:"null_order,omitempty"`
}

// RefChange is one branch or tag change (create_branch, create_tag,
// replace_branch, replace_tag, remove_ref, fast_forward).
type RefChange struct {
	Op                 string `json:"op"`
	Name               string `json:"name"`
	SnapshotID         *int64 `json:"snapshot_id,omitempty"`
	Target             string `json:"target,omitempty"`
	MaxRefAgeMs        *int64 `json:"max_ref_age_ms,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max_snapshot_age_ms,omitempty"`
	MinSnapshotsToKeep *int   `json:"min_snapshots_to_keep,omitempty"`
}

// Alter commits req's changes to table.
func (c *Client) Alter(ctx context.Context, table string, req AlterRequest) (*TableInfo, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, err
	}
	body["table"] = table
	var out TableInfo
	return &out, c.writeAction(ctx, "alter_table", table, body, &out)
}

// RemovedFile is a file maintenance removed, or would remove.
type RemovedFile struct {
	Location string `json:"location"`
	Kind     string `json:"kind"`
	Size     int64  `json:"size,omitempty"`
}

// MaintenanceResult is what a maintenance action did, or would do.
type MaintenanceResult struct {
	DryRun           bool           `json:"dry_run"`
	SnapshotID       int64          `json:"snapshot_id,omitempty"`
	ExpiredSnapshots []int64        `json:"expired_snapshots,omitempty"`
	Removed          []RemovedFile  `json:"removed"`
	Counts           map[string]int `json:"counts"`
	RewrittenFiles   int64          `json:"rewritten_files,omitempty"`
	AddedFiles       int64          `json:"added_files,omitempty"`
}

// ExpireOptions are expire_snapshots' settings; zero values take the
// table's properties.
type ExpireOptions struct {
	OlderThan   time.Time
	RetainLast  int
	SnapshotIDs []int64
	DryRun      bool
}

// ExpireSnapshots expires table's old snapshots and deletes the files only
// they referenced.
func (c *Client) ExpireSnapshots(ctx context.Context, table string, o ExpireOptions) (*MaintenanceResult, error) {
	body := map[string]any{"table": table, "dry_run": o.DryRun}
	if !o.OlderThan.IsZero() {
		body["older_than"] = o.OlderThan.UTC().Format(time.RFC3339Nano)
	}
	if o.RetainLast != 0 {
		body["retain_last"] = o.RetainLast
	}
	if len(o.SnapshotIDs) > 0 {
		body["snapshot_ids"] = o.SnapshotIDs
	}
	return c.maintenance(ctx, "expire_snapshots", table, body)
}

// OrphanOptions are remove_orphan_files' settings.
type OrphanOptions struct {
	// OlderThan defaults to 3 days ago on the server.
	OlderThan time.Time
	Location  string
	DryRun    bool
}

// RemoveOrphanFiles deletes the files below table's location that no
// metadata references.
func (c *Client) RemoveOrphanFiles(ctx context.Context, table string, o OrphanOptions) (*MaintenanceResult, error) {
	body := map[string]any{"table": table, "dry_run": o.DryRun}
	if !o.OlderThan.IsZero() {
		body["older_than"] = o.OlderThan.UTC().Format(time.RFC3339Nano)
	}
	if o.Location != "" {
		body["location"] = o.Location
	}
	return c.maintenance(ctx, "remove_orphan_files", table, body)
}

// CompactOptions are rewrite_data_files' settings.
type CompactOptions struct {
	Filter         string
	TargetFileSize int64
	MinInputFiles  int
	DryRun         bool
}

// Compact rewrites table's small data files, and those with deletes, into
// fewer (rewrite_data_files).
func (c *Client) Compact(ctx context.Context, table string, o CompactOptions) (*MaintenanceResult, error) {
	body := map[string]any{"table": table, "filter": o.Filter, "target_file_size": o.TargetFileSize,
		"min_input_files": o.MinInputFiles, "dry_run": o.DryRun}
	return c.maintenance(ctx, "rewrite_data_files", table, body)
}

// RewriteManifests rewrites table's small manifests into fewer; a
// targetSize of 0 takes the table's property.
func (c *Client) RewriteManifests(ctx context.Context, table string, targetSize int64, dryRun bool) (*MaintenanceResult, error) {
	body := map[string]any{"table": table, "target_manifest_size": targetSize, "dry_run": dryRun}
	return c.maintenance(ctx, "rewrite_manifests", table, body)
}

// CreateNamespace creates a namespace ("db" or "db.sub").
func (c *Client) CreateNamespace(ctx context.Context, namespace string, props map[string]string) error {
	return c.writeAction(ctx, "create_namespace", "", map[string]any{"namespace": namespace, "properties": props}, nil)
}

// DropNamespace drops an empty namespace.
func (c *Client) DropNamespace(ctx context.Context, namespace string) error {
	return c.writeAction(ctx, "drop_namespace", "", map[string]any{"namespace": namespace}, nil)
}

// ListNamespaces lists the namespaces below parent ("" the top level),
// dotted.
func (c *Client) ListNamespaces(ctx context.Context, parent string) ([]string, error) {
	out := []string{}
	err := c.rawAction(ctx, "list_namespaces", "", map[string]any{"parent": parent}, func(body []byte) error {
		var page []string
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		out = append(out, page...)
		return nil
	})
	return out, err
}

// maintenance runs a maintenance action and joins its paged result: the
// first result is the object, each later one continues its removed list.
func (c *Client) maintenance(ctx context.Context, kind, table string, body any) (*MaintenanceResult, error) {
	var out *MaintenanceResult
	err := c.rawAction(ctx, kind, table, body, func(b []byte) error {
		if out == nil {
			out = &MaintenanceResult{}
			return json.Unmarshal(b, out)
		}
		var more []RemovedFile
		if err := json.Unmarshal(b, &more); err != nil {
			return err
		}
		out.Removed = append(out.Removed, more...)
		return nil
	})
	if err == nil && out == nil {
		err = fmt.Errorf("table %s: %s answered nothing", table, kind)
	}
	return out, err
}

// writeAction runs an action answering one JSON object into out (nil:
// ignored).
func (c *Client) writeAction(ctx context.Context, kind, table string, body, out any) error {
	return c.rawAction(ctx, kind, table, body, func(b []byte) error {
		if out == nil {
			return nil
		}
		return json.Unmarshal(b, out)
	})
}

// rawAction runs an action with a JSON body and hands each result's body
// to page, in order.
func (c *Client) rawAction(ctx context.Context, kind, table string, body any, page func([]byte) error) error {
	fc, err := c.origin()
	if err != nil {
		return err
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	stream, err := fc.DoAction(c.outgoing(ctx), &flight.Action{Type: kind, Body: b})
	if err != nil {
		return withTable(table, fmt.Errorf("%s: %w", kind, err))
	}
	for {
		res, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return withTable(table, fmt.Errorf("%s: %w", kind, err))
		}
		if err := page(res.GetBody()); err != nil {
			return fmt.Errorf("%s: %s answer: %w", kind, table, err)
		}
	}
}
