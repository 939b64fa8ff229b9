package writer

// STUB: each method is owned by the helper named; they delete their part.

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/iceberg"
)

var errStub = errors.New("not built yet")

// CreateTable creates a table (core helper).
func (w *Writer) CreateTable(ctx context.Context, id catalog.Identifier, req CreateTable) (*catalog.Table, error) {
	return nil, errStub
}

// Write appends or overwrites with the stream's rows (core helper). rows
// is consumed, not released.
func (w *Writer) Write(ctx context.Context, id catalog.Identifier, req WriteRequest, rows array.RecordReader) (*Result, error) {
	return nil, errStub
}

// Delete deletes rows (core helper).
func (w *Writer) Delete(ctx context.Context, id catalog.Identifier, req DeleteRequest) (*Result, error) {
	return nil, errStub
}

// Alter changes schema, spec, sort order, properties and refs (maint helper).
func (w *Writer) Alter(ctx context.Context, id catalog.Identifier, req AlterRequest) (*catalog.Table, error) {
	return nil, errStub
}

// ExpireSnapshots (maint helper).
func (w *Writer) ExpireSnapshots(ctx context.Context, id catalog.Identifier, req ExpireRequest) (*MaintenanceResult, error) {
	return nil, errStub
}

// RemoveOrphanFiles (maint helper).
func (w *Writer) RemoveOrphanFiles(ctx context.Context, id catalog.Identifier, req OrphanRequest) (*MaintenanceResult, error) {
	return nil, errStub
}

// RewriteDataFiles (maint helper).
func (w *Writer) RewriteDataFiles(ctx context.Context, id catalog.Identifier, req CompactRequest) (*MaintenanceResult, error) {
	return nil, errStub
}

// RewriteManifests (maint helper).
func (w *Writer) RewriteManifests(ctx context.Context, id catalog.Identifier, req RewriteManifestsRequest) (*MaintenanceResult, error) {
	return nil, errStub
}

// commitChange loads the table, calls build with it for the change,
// writes the added files' manifests, the rewritten manifests, the
// manifest list and the snapshot, and commits them with the requirements
// that make the swap safe (the branch head, the table uuid), retrying on
// iceberg.ErrRequirementFailed / catalog.ErrCommitConflict as
// commit.retry.num-retries and commit.retry.{min,max}-wait-ms say, calling
// build again on the fresh table each time. Files of failed attempts are
// removed unless the outcome is unknown (core helper).
func (w *Writer) commitChange(ctx context.Context, id catalog.Identifier, build func(ctx context.Context, t *catalog.Table) (*change, error)) (*Result, error) {
	return nil, errStub
}

// commitUpdates commits metadata-only changes (alter, expire) with the
// same retries: build returns the requirements and updates for the fresh
// table (core helper).
func (w *Writer) commitUpdates(ctx context.Context, id catalog.Identifier, build func(ctx context.Context, t *catalog.Table) ([]iceberg.Requirement, []iceberg.Update, error)) (*catalog.Table, error) {
	return nil, errStub
}
