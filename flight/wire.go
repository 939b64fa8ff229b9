package flight

import (
	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/proto/actions"
	"github.com/iceflight/iceflight/writer"
)

// The conversions between the writer's plain values and the write API's
// wire form in proto/actions: one per value that crosses, so that the
// writer owns no JSON and the wire form changes in one place.

// Fixed answers, written out as the server has always sent them (with a
// space after the colon, which json.Marshal would not write). A test
// decodes each strictly into its proto/actions type.
var (
	droppedAnswer      = []byte(`{"dropped": true}`)    // actions.DropResult
	refreshedAnswer    = []byte(`{"refreshed": true}`)  // actions.RefreshResult
	notRefreshedAnswer = []byte(`{"refreshed": false}`) // actions.RefreshResult
)

// tableAnswer is the answer of create_table and alter_table.
func tableAnswer(t *catalog.Table) actions.TableInfo {
	r := actions.TableInfo{Table: t.Identifier.String(), MetadataLocation: t.MetadataLocation}
	if md := t.Metadata; md != nil {
		r.TableUUID, r.FormatVersion, r.SchemaID = md.TableUUID, md.FormatVersion, md.CurrentSchemaID
	}
	return r
}

// writeAnswer is the answer of DoPut and delete.
func writeAnswer(r *writer.Result) actions.WriteResult {
	return actions.WriteResult{
		SnapshotID: r.SnapshotID, SequenceNumber: r.SequenceNumber, Operation: r.Operation, MetadataLocation: r.MetadataLocation,
		AddedDataFiles: r.AddedDataFiles, AddedRecords: r.AddedRecords, AddedDeleteFiles: r.AddedDeleteFiles,
		DeletedDataFiles: r.DeletedDataFiles, DeletedRecords: r.DeletedRecords, AddedBytes: r.AddedBytes,
		Attempts: r.Attempts, DryRun: r.DryRun,
	}
}

// maintenanceAnswer is the answer of the maintenance actions. Its removed
// list is never nil: the wire form always holds the key as a list.
func maintenanceAnswer(r *writer.MaintenanceResult) actions.MaintenanceResult {
	removed := make([]actions.RemovedFile, len(r.Removed))
	for i, f := range r.Removed {
		removed[i] = actions.RemovedFile{Location: f.Location, Kind: f.Kind, Size: f.Size}
	}
	return actions.MaintenanceResult{
		DryRun: r.DryRun, SnapshotID: r.SnapshotID, ExpiredSnapshots: r.ExpiredSnapshots, Removed: removed,
		Counts: r.Counts, RewrittenFiles: r.RewrittenFiles, AddedFiles: r.AddedFiles,
	}
}

// alterRequest is the writer's request of an alter_table body.
func alterRequest(b actions.AlterTableRequest) writer.AlterRequest {
	req := writer.AlterRequest{SetProperties: b.SetProperties, RemoveProperties: b.RemoveProperties, FormatVersion: b.FormatVersion}
	for _, c := range b.Schema {
		req.Schema = append(req.Schema, writer.SchemaChange{Op: c.Op, Path: c.Path, Name: c.Name, Type: c.Type,
			Required: c.Required, Doc: c.Doc, Default: c.Default, Ref: c.Ref, Fields: c.Fields})
	}
	for _, c := range b.PartitionSpec {
		req.PartitionSpec = append(req.PartitionSpec, writer.SpecChange{Op: c.Op, Source: c.Source, Transform: c.Transform, Name: c.Name, NewName: c.NewName})
	}
	for _, f := range b.SortOrder {
		req.SortOrder = append(req.SortOrder, sortField(f))
	}
	for _, c := range b.Refs {
		req.Refs = append(req.Refs, writer.RefChange{Op: c.Op, Name: c.Name, SnapshotID: c.SnapshotID, Target: c.Target,
			MaxRefAgeMs: c.MaxRefAgeMs, MaxSnapshotAgeMs: c.MaxSnapshotAgeMs, MinSnapshotsToKeep: c.MinSnapshotsToKeep})
	}
	return req
}

// sortField is the writer's sort field of a sort_by or sort_order object.
func sortField(f actions.SortField) writer.SortField {
	return writer.SortField{Source: f.Source, Transform: f.Transform, Direction: f.Direction, NullOrder: f.NullOrder}
}

// partitionField is the writer's partition field of a partition_by
// object.
func partitionField(f actions.PartitionField) writer.PartitionField {
	return writer.PartitionField{Source: f.Source, Transform: f.Transform, Name: f.Name}
}
