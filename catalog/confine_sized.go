package catalog

import (
	"context"
	"fmt"

	"github.com/iceflight/iceflight/fileio"
)

// Shim (helper "core", issue 12): confinedIO forwards sized opens, so that
// a table's manifests open with their recorded length through the
// confinement too (the Remapper above it forwards them). It belongs beside
// confinedIO.Open in confine.go; move it there when the directory
// catalog's move onto fileio.Lister lands.

// OpenSized opens location with its known size, if the confinement
// allows it.
func (f confinedIO) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	if err := f.c.check(location); err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	return fileio.OpenSized(ctx, f.base, location, size)
}

var _ fileio.SizedOpener = confinedIO{}
