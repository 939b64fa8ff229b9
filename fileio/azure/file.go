package azure

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"

	"github.com/iceflight/iceflight/fileio"
)

// blob returns the client of the blob at l, and its account's.
func (f *FileIO) blob(l location) (*blob.Client, *account, error) {
	a, err := f.account(l)
	if err != nil {
		return nil, nil, err
	}
	return a.client.NewContainerClient(l.container).NewBlobClient(l.blob), a, nil
}

// Open opens the blob at loc, asking for its size (one HEAD request).
// Reads then cost one ranged GET each.
func (f *FileIO) Open(ctx context.Context, loc string) (fileio.File, error) {
	return f.open(ctx, loc, -1)
}

// OpenSized opens the blob at loc trusting size as its length, with no
// request: a task carries its data file's size. A missing blob is reported
// by the first read.
func (f *FileIO) OpenSized(ctx context.Context, loc string, size int64) (fileio.File, error) {
	return f.open(ctx, loc, size)
}

// open opens loc, asking for its size when size is negative.
func (f *FileIO) open(ctx context.Context, loc string, size int64) (fileio.File, error) {
	l, err := parseLocation(loc)
	if err != nil {
		return nil, fmt.Errorf("open %w", err)
	}
	if l.blob == "" {
		return nil, fmt.Errorf("open %s: %w: no blob name", loc, fileio.ErrNotFound)
	}
	b, a, err := f.blob(l)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	fl := &file{ctx: ctx, loc: loc, l: l, a: a, b: b}
	if size < 0 {
		props, err := b.GetProperties(ctx, nil)
		if err != nil {
			return nil, wrap("open", loc, l, a, err)
		}
		if props.ContentLength == nil {
			return nil, fmt.Errorf("open %s: the server sent no length", loc)
		}
		size = *props.ContentLength
		fl.info.Note(blobInfo(props.LastModified, props.ETag))
	}
	fl.size = size
	return fl, nil
}

// blobInfo is the Info of a blob's Last-Modified and ETag headers.
func blobInfo(mod *time.Time, etag *azcore.ETag) fileio.Info {
	var i fileio.Info
	if mod != nil {
		i.ModTime = *mod
	}
	if etag != nil {
		i.ETag = string(*etag)
	}
	return i
}

// file is an open blob. Reads use the context of the Open that made it,
// since io.ReaderAt takes none; they are safe for concurrent use.
type file struct {
	ctx  context.Context
	loc  string
	l    location
	a    *account
	b    *blob.Client
	size int64
	// info is the blob's Info, from the properties or the first answer.
	info fileio.InfoCell
}

// Info returns the blob's Last-Modified and ETag, once an answer told them.
func (f *file) Info() fileio.Info { return f.info.Info() }

// ReadAt reads len(p) bytes at off with one ranged GET, clipped to the
// file's size; a read that reaches the end returns io.EOF with the bytes.
//
// The answer's Content-Range carries the blob's length, so a size given to
// OpenSized that is wrong fails the read with fileio.ErrSizeMismatch.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	n, err := fileio.ReadRange(p, off, f.size, func(off, n int64) (io.ReadCloser, int64, error) {
		resp, err := f.b.DownloadStream(f.ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: off, Count: n}})
		if err != nil {
			return nil, 0, err
		}
		f.info.Note(blobInfo(resp.LastModified, resp.ETag))
		total := int64(-1)
		if resp.ContentRange != nil {
			total = fileio.RangeTotal(*resp.ContentRange)
		}
		return resp.Body, total, nil
	})
	if err != nil && err != io.EOF {
		return n, wrap("read", f.loc, f.l, f.a, err)
	}
	return n, err
}

// Size returns the blob's length in bytes.
func (f *file) Size() int64 { return f.size }

// Close releases nothing: every read has closed its own response.
func (f *file) Close() error { return nil }
