package azure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/iceflight/iceflight/fileio"
)

// uploadBlockSize is the block an upload stages at a time; a file smaller
// than one block is sent in a single request.
const uploadBlockSize = 4 << 20

// ReadDir lists the blobs and prefixes directly below dir, with delimiter
// "/", page by page. A prefix with nothing under it lists as empty. The
// folder blobs a Data Lake account keeps (metadata hdi_isfolder) are
// listed once, as folders.
func (f *FileIO) ReadDir(ctx context.Context, dir string) ([]fileio.Entry, error) {
	l, err := parseLocation(dir)
	if err != nil {
		return nil, fmt.Errorf("list %w", err)
	}
	a, err := f.account(l)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	list := fileio.NewListing(l.blob)
	prefix := list.Prefix()
	opts := &container.ListBlobsHierarchyOptions{Prefix: &prefix, Include: container.ListBlobsInclude{Metadata: true}}
	if f.listPage > 0 {
		opts.MaxResults = &f.listPage
	}
	pager := a.client.NewContainerClient(l.container).NewListBlobsHierarchyPager("/", opts)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, wrap("list", dir, l, a, err)
		}
		for _, p := range page.Segment.BlobPrefixes {
			if p.Name != nil {
				list.Folder(*p.Name)
			}
		}
		for _, b := range page.Segment.BlobItems {
			if b.Name == nil {
				continue
			}
			if isFolder(b.Metadata) {
				list.Folder(*b.Name)
				continue
			}
			var size int64
			var mod time.Time
			if pr := b.Properties; pr != nil {
				if pr.ContentLength != nil {
					size = *pr.ContentLength
				}
				if pr.LastModified != nil {
					mod = *pr.LastModified
				}
			}
			list.File(*b.Name, size, mod)
		}
	}
	return list.Entries(), nil
}

// isFolder reports whether blob metadata marks a Data Lake folder.
func isFolder(md map[string]*string) bool {
	for k, v := range md {
		if strings.EqualFold(k, "hdi_isfolder") && v != nil && strings.EqualFold(*v, "true") {
			return true
		}
	}
	return false
}

// Create starts an upload to loc as a block blob. The blob appears only
// when Close returns nil (its block list is committed last); a write cut
// short by ctx, or a Close after a failed Write, leaves nothing behind.
// The upload runs in a goroutine that Close waits for, so Close must be
// called.
func (f *FileIO) Create(ctx context.Context, loc string) (io.WriteCloser, error) {
	return f.create(ctx, loc, false)
}

func (f *FileIO) create(ctx context.Context, loc string, exclusive bool) (io.WriteCloser, error) {
	l, err := parseLocation(loc)
	if err != nil {
		return nil, fmt.Errorf("create %w", err)
	}
	if l.blob == "" || strings.HasSuffix(l.blob, "/") {
		return nil, fmt.Errorf("create %s: not a blob name", loc)
	}
	a, err := f.account(l)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", loc, err)
	}
	bb := a.client.NewContainerClient(l.container).NewBlockBlobClient(l.blob)
	pr, pw := io.Pipe()
	w := &writer{loc: loc, l: l, a: a, pw: pw, done: make(chan error, 1), exclusive: exclusive}
	opts := &blockblob.UploadStreamOptions{BlockSize: uploadBlockSize, Concurrency: 1}
	if exclusive {
		opts.AccessConditions = notThere()
	}
	go func() {
		_, err := bb.UploadStream(ctx, pr, opts)
		pr.CloseWithError(err)
		w.done <- err
	}()
	return w, nil
}

// errAbandoned ends the upload of a writer whose Write failed.
var errAbandoned = errors.New("abandoned after a failed write")

// writer is an upload in progress.
type writer struct {
	loc    string
	l      location
	a      *account
	pw     *io.PipeWriter
	done   chan error
	failed bool
	// exclusive commits the blob only where none is (If-None-Match: *).
	exclusive bool
}

// Write hands p to the upload.
func (w *writer) Write(p []byte) (int, error) {
	n, err := w.pw.Write(p)
	if err != nil {
		w.failed = true
		return n, wrap("write", w.loc, w.l, w.a, err)
	}
	return n, nil
}

// Close commits the upload, or abandons it after a failed Write.
func (w *writer) Close() error {
	if w.failed {
		w.pw.CloseWithError(errAbandoned)
		<-w.done
		return fmt.Errorf("write %s: %w", w.loc, errAbandoned)
	}
	w.pw.Close()
	if err := <-w.done; err != nil {
		if w.exclusive && blobTaken(err) {
			return fmt.Errorf("write %s: %w", w.loc, fileio.ErrExist)
		}
		return wrap("write", w.loc, w.l, w.a, err)
	}
	return nil
}

// Remove deletes the blob at loc; a missing one wraps fileio.ErrNotFound.
func (f *FileIO) Remove(ctx context.Context, loc string) error {
	l, err := parseLocation(loc)
	if err != nil {
		return fmt.Errorf("remove %w", err)
	}
	b, a, err := f.blob(l)
	if err != nil {
		return fmt.Errorf("remove %s: %w", loc, err)
	}
	if _, err := b.Delete(ctx, nil); err != nil {
		return wrap("remove", loc, l, a, err)
	}
	return nil
}
