package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithytime "github.com/aws/smithy-go/time"

	"github.com/iceflight/iceflight/fileio"
)

// Open opens the object at location, asking its size with one HEAD request.
func (fs *FileIO) Open(ctx context.Context, location string) (fileio.File, error) {
	o, err := parse(location)
	if err != nil {
		return nil, err
	}
	release, err := acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	head, err := fs.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &o.bucket, Key: &o.key})
	release()
	if err != nil {
		return nil, fs.wrapErr(ctx, "open", o, err)
	}
	f := &file{fs: fs, ctx: ctx, object: o, size: aws.ToInt64(head.ContentLength)}
	f.info.Note(objectInfo(head.LastModified, head.ETag))
	return fileio.Coalescing(f, fileio.DefaultCoalesceOptions), nil
}

// OpenSized opens the object at location, trusting size as its length, and
// sends no request: a missing object is found by the first read.
func (fs *FileIO) OpenSized(ctx context.Context, location string, size int64) (fileio.File, error) {
	o, err := parse(location)
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("open %s: negative size %d", location, size)
	}
	return fileio.Coalescing(&file{fs: fs, ctx: ctx, object: o, size: size}, fileio.DefaultCoalesceOptions), nil
}

// objectInfo is the Info of an object's Last-Modified and ETag headers.
func objectInfo(mod *time.Time, etag *string) fileio.Info {
	return fileio.Info{ModTime: aws.ToTime(mod), ETag: aws.ToString(etag)}
}

// file is an open object: every read is one ranged GET.
type file struct {
	fs  *FileIO
	ctx context.Context
	object
	size int64
	// info is the object's Info, from HEAD or the first GET answered.
	info fileio.InfoCell
}

// Info returns the object's Last-Modified and ETag, once an answer told them.
func (f *file) Info() fileio.Info { return f.info.Info() }

// Size returns the object's length, as given or as HEAD answered.
func (f *file) Size() int64 { return f.size }

// Close releases nothing: a file holds no connection between reads.
func (f *file) Close() error { return nil }

// ReadAt reads len(p) bytes at off with the context the file was opened with.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	return f.ReadAtContext(f.ctx, p, off)
}

// ReadAtContext reads len(p) bytes at off with one ranged GET (a read past
// the end is cut there and ends with io.EOF). A body cut short (a server
// killed or a connection reset mid-transfer) is asked again for the bytes
// still missing, within the FileIO's tries, before it is Unavailable.
func (f *file) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.location, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want := int(min(int64(len(p)), f.size-off))
	n := 0
	for attempt := 1; n < want; attempt++ {
		m, cut, err := f.get(ctx, p[n:want], off+int64(n))
		n += m
		if err == nil {
			continue
		}
		if !cut || attempt >= f.fs.opts.maxAttempts {
			if cut {
				err = fmt.Errorf("read %s: %w: %w", f.location, fileio.ErrUnavailable, err)
			}
			return n, err
		}
		// The retryer's own backoff (exponential, capped, with jitter), so
		// that a body cut short waits as a refused request does.
		wait, _ := retry.NewExponentialJitterBackoff(f.fs.opts.maxBackoff).BackoffDelay(attempt, err)
		if err := smithytime.SleepWithContext(ctx, wait); err != nil {
			return n, fmt.Errorf("read %s: %w", f.location, err)
		}
	}
	if want < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// get fills p from the bytes at off with one GET. cut says the error came
// from reading the body, which the SDK's retryer does not see.
func (f *file) get(ctx context.Context, p []byte, off int64) (n int, cut bool, err error) {
	release, err := acquire(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", f.location, err)
	}
	defer release()
	rng := "bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+int64(len(p))-1, 10)
	out, err := f.fs.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &f.bucket, Key: &f.key, Range: &rng})
	if err != nil {
		var api smithy.APIError
		if errors.As(err, &api) && api.ErrorCode() == "InvalidRange" {
			// off is below the size the file was opened with: the object
			// is shorter than that.
			return 0, false, fmt.Errorf("read %s: %w: the object ends before byte %d of the %d recorded",
				f.location, fileio.ErrSizeMismatch, off, f.size)
		}
		return 0, false, f.fs.wrapErr(ctx, "read", f.object, err)
	}
	defer out.Body.Close()
	f.info.Note(objectInfo(out.LastModified, out.ETag))
	// Every ranged answer names the object's length: a recorded size that
	// is wrong shows on the first read, before anything was handed on.
	if total := fileio.RangeTotal(aws.ToString(out.ContentRange)); total >= 0 && total != f.size {
		return 0, false, fmt.Errorf("read %s: %w: the object has %d bytes, %d were recorded",
			f.location, fileio.ErrSizeMismatch, total, f.size)
	}
	n, err = io.ReadFull(out.Body, p)
	switch {
	case err == nil:
		return n, false, nil
	case ctx.Err() != nil:
		return n, false, fmt.Errorf("read %s: %w", f.location, ctx.Err())
	case errors.Is(err, io.ErrUnexpectedEOF) && aws.ToInt64(out.ContentLength) == int64(n):
		// The server sent all it had: the object is shorter than its
		// recorded size, which no retry mends.
		return n, false, fmt.Errorf("read %s: object ended at %d, before the %d bytes its size promised: %w",
			f.location, off+int64(n), f.size, io.ErrUnexpectedEOF)
	}
	return n, true, err
}
