package writer

// STUB: the maint helper owns these methods and deletes this file.

import (
	"context"
	"errors"

	"github.com/iceflight/iceflight/catalog"
)

var errStub = errors.New("not built yet")

// RewriteManifests (maint helper).
func (w *Writer) RewriteManifests(ctx context.Context, id catalog.Identifier, req RewriteManifestsRequest) (*MaintenanceResult, error) {
	return nil, errStub
}
