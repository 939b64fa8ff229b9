package writer

// STUB: the maint helper owns these methods and deletes this file.

import (
	"context"
	"errors"

	"github.com/iceflight/iceflight/catalog"
)

var errStub = errors.New("not built yet")

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
