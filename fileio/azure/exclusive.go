package azure

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"

	"github.com/iceflight/iceflight/fileio"
)

var _ fileio.ExclusiveCreator = (*FileIO)(nil)

// CreateExclusive starts an upload to loc, as Create does, whose block
// list is committed with If-None-Match: *: Azure refuses it (409
// BlobAlreadyExists or 412 ConditionNotMet) when a blob is there by then,
// and Close fails wrapping fileio.ErrExist.
func (f *FileIO) CreateExclusive(ctx context.Context, loc string) (io.WriteCloser, error) {
	return f.create(ctx, loc, true)
}

// notThere is the access condition of a blob that must not exist.
func notThere() *blob.AccessConditions {
	etag := azcore.ETagAny
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &etag}}
}

// blobTaken reports whether err is Azure refusing a conditional write
// because the blob exists.
func blobTaken(err error) bool {
	if bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) {
		return true
	}
	var re *azcore.ResponseError
	return errors.As(err, &re) && (re.StatusCode == http.StatusPreconditionFailed || re.StatusCode == http.StatusConflict)
}
