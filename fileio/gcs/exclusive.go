package gcs

import (
	"context"
	"errors"
	"io"
	"net/http"

	"google.golang.org/api/googleapi"

	"github.com/iceflight/iceflight/fileio"
)

var _ fileio.ExclusiveCreator = (*FileIO)(nil)

// CreateExclusive starts an upload to loc, as Create does, on the
// condition that no object exists there (ifGenerationMatch=0, the
// client's Conditions{DoesNotExist: true}): GCS refuses the upload's
// commit with 412 when one does, and Close then fails wrapping
// fileio.ErrExist.
func (f *FileIO) CreateExclusive(ctx context.Context, loc string) (io.WriteCloser, error) {
	return f.create(ctx, loc, true)
}

// preconditionFailed reports whether err is GCS's 412 Precondition
// Failed.
func preconditionFailed(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed
}
