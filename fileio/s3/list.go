package s3

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/iceflight/iceflight/fileio"
)

// ReadDir lists the objects and common prefixes directly below dir (a
// ListObjectsV2 with delimiter "/", every page of it), sorted by name. A
// prefix with nothing under it lists as empty, as object stores have no
// folders; a missing bucket wraps fileio.ErrNotFound.
func (fs *FileIO) ReadDir(ctx context.Context, dir string) ([]fileio.Entry, error) {
	o, err := parse(dir)
	if err != nil {
		return nil, err
	}
	list := fileio.NewListing(o.key)
	pages := s3.NewListObjectsV2Paginator(fs.client, &s3.ListObjectsV2Input{
		Bucket: &o.bucket, Prefix: aws.String(list.Prefix()), Delimiter: aws.String("/"),
	}, func(po *s3.ListObjectsV2PaginatorOptions) {
		if fs.opts.listPage > 0 {
			po.Limit = fs.opts.listPage
		}
	})
	for pages.HasMorePages() {
		page, err := fs.listPage(ctx, pages)
		if err != nil {
			return nil, fs.wrapErr(ctx, "list", o, err)
		}
		for _, p := range page.CommonPrefixes {
			list.Folder(aws.ToString(p.Prefix))
		}
		for _, c := range page.Contents {
			list.File(aws.ToString(c.Key), aws.ToInt64(c.Size), aws.ToTime(c.LastModified))
		}
	}
	return list.Entries(), nil
}

// listPage fetches the next page within a request slot.
func (fs *FileIO) listPage(ctx context.Context, pages *s3.ListObjectsV2Paginator) (*s3.ListObjectsV2Output, error) {
	release, err := acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return pages.NextPage(ctx)
}
