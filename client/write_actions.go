package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/iceflight/iceflight/proto/actions"
)

// TableInfo is a table as create_table and alter_table answer it.
type TableInfo = actions.TableInfo

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
	body := actions.CreateTableRequest{
		Table:      table,
		Schema:     base64.StdEncoding.EncodeToString(flight.SerializeSchema(schema, c.opts.mem)),
		Properties: o.Properties, FormatVersion: o.FormatVersion, Location: o.Location, IfNotExists: o.IfNotExists,
	}
	var err error
	if body.PartitionBy, err = rawFields(o.PartitionBy); err != nil {
		return nil, fmt.Errorf("table %s: partition_by: %w", table, err)
	}
	if body.SortBy, err = rawFields(o.SortBy); err != nil {
		return nil, fmt.Errorf("table %s: sort_by: %w", table, err)
	}
	var out TableInfo
	return &out, c.writeAction(ctx, actions.CreateTable, table, body, &out)
}

// rawFields encodes partition or sort fields, each a string or an object.
func rawFields(fields []any) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, f := range fields {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// DropTable drops table; purge deletes its files too.
func (c *Client) DropTable(ctx context.Context, table string, purge bool) error {
	return c.writeAction(ctx, actions.DropTable, table, actions.DropTableRequest{Table: table, Purge: purge}, nil)
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
	body := actions.DeleteRequest{Table: table, Filter: filter, Branch: o.Branch, CopyOnWrite: o.CopyOnWrite, DryRun: o.DryRun}
	var out WriteResult
	return &out, c.writeAction(ctx, actions.Delete, table, body, &out)
}

// AlterRequest is one alter_table call: its changes commit together. Its
// Table is set by Alter. See the server's alter_table description for the
// ops.
type AlterRequest = actions.AlterTableRequest

// SchemaChange is one schema change (op add_column, drop_column,
// rename_column, update_type, make_optional, make_required, update_doc,
// move_first, move_before, move_after, set_identifier_fields).
type SchemaChange = actions.SchemaChange

// SpecChange is one partition spec change (add_field, remove_field,
// rename_field).
type SpecChange = actions.SpecChange

// SortField is one sort order field.
type SortField = actions.SortField

// RefChange is one branch or tag change (create_branch, create_tag,
// replace_branch, replace_tag, remove_ref, fast_forward).
type RefChange = actions.RefChange

// Alter commits req's changes to table (req.Table is ignored).
func (c *Client) Alter(ctx context.Context, table string, req AlterRequest) (*TableInfo, error) {
	req.Table = table
	var out TableInfo
	return &out, c.writeAction(ctx, actions.AlterTable, table, req, &out)
}

// RemovedFile is a file maintenance removed, or would remove.
type RemovedFile = actions.RemovedFile

// MaintenanceResult is what a maintenance action did, or would do.
type MaintenanceResult = actions.MaintenanceResult

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
	body := actions.ExpireSnapshotsRequest{Table: table, OlderThan: timeValue(o.OlderThan), RetainLast: o.RetainLast, SnapshotIDs: o.SnapshotIDs, DryRun: o.DryRun}
	return c.maintenance(ctx, actions.ExpireSnapshots, table, body)
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
	body := actions.RemoveOrphanFilesRequest{Table: table, OlderThan: timeValue(o.OlderThan), Location: o.Location, DryRun: o.DryRun}
	return c.maintenance(ctx, actions.RemoveOrphanFiles, table, body)
}

// timeValue is t as an older_than: an RFC 3339 string in UTC, or nothing
// for the zero time (the server's default).
func timeValue(t time.Time) json.RawMessage {
	if t.IsZero() {
		return nil
	}
	return json.RawMessage(strconv.Quote(t.UTC().Format(time.RFC3339Nano)))
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
	body := actions.RewriteDataFilesRequest{Table: table, Filter: o.Filter, TargetFileSize: o.TargetFileSize, MinInputFiles: o.MinInputFiles, DryRun: o.DryRun}
	return c.maintenance(ctx, actions.RewriteDataFiles, table, body)
}

// RewriteManifests rewrites table's small manifests into fewer; a
// targetSize of 0 takes the table's property.
func (c *Client) RewriteManifests(ctx context.Context, table string, targetSize int64, dryRun bool) (*MaintenanceResult, error) {
	body := actions.RewriteManifestsRequest{Table: table, TargetManifestSize: targetSize, DryRun: dryRun}
	return c.maintenance(ctx, actions.RewriteManifests, table, body)
}

// CreateNamespace creates a namespace ("db" or "db.sub").
func (c *Client) CreateNamespace(ctx context.Context, namespace string, props map[string]string) error {
	return c.writeAction(ctx, actions.CreateNamespace, "", actions.NamespaceRequest{Namespace: namespace, Properties: props}, nil)
}

// DropNamespace drops an empty namespace.
func (c *Client) DropNamespace(ctx context.Context, namespace string) error {
	return c.writeAction(ctx, actions.DropNamespace, "", actions.NamespaceRequest{Namespace: namespace}, nil)
}

// ListNamespaces lists the namespaces below parent ("" the top level),
// dotted.
func (c *Client) ListNamespaces(ctx context.Context, parent string) ([]string, error) {
	out := []string{}
	err := c.rawAction(ctx, actions.ListNamespaces, "", actions.NamespaceRequest{Parent: parent}, func(body []byte) error {
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
