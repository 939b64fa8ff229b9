package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/iceflight/iceflight/fileio"
)

var _ fileio.ExclusiveCreator = (*FileIO)(nil)

// CreateExclusive starts a new object at location as Create does, but
// Close writes it with If-None-Match: * (on the PUT, or on the completion
// of a multipart upload), which S3 refuses with 412 Precondition Failed
// when an object is there by then (409 ConditionalRequestConflict while
// another conditional write of the key is under way): Close then fails
// wrapping fileio.ErrExist.
func (fs *FileIO) CreateExclusive(ctx context.Context, location string) (io.WriteCloser, error) {
	w, err := fs.Create(ctx, location)
	if err != nil {
		return nil, err
	}
	w.(*writer).exclusive = true
	return w, nil
}

// lostRace reports whether err is S3 refusing a conditional write because
// the key is taken, or being taken.
func lostRace(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && (api.ErrorCode() == "PreconditionFailed" || api.ErrorCode() == "ConditionalRequestConflict") {
		return true
	}
	var resp *smithyhttp.ResponseError
	return errors.As(err, &resp) && resp.HTTPStatusCode() == http.StatusPreconditionFailed
}

// Sizes of multipart uploads. S3 requires at least 5 MiB for each part but
// the last; 8 MiB parts keep a writer's buffer small and a 1 GiB file at
// 128 parts, far below the 10,000 S3 allows.
const (
	minPartSize     = 5 << 20
	defaultPartSize = 8 << 20
	// abortTimeout bounds the clean-up of a failed upload.
	abortTimeout = 10 * time.Second
)

// Create starts a new object at location. What is written is buffered
// and sent in parts once it passes a part's size (a multipart upload), or
// in one PUT at Close if it never does; either way S3 shows nothing at
// location until Close completes it. A write cut short by the context, or
// any failed part, aborts the upload at Close, which then returns the error.
func (fs *FileIO) Create(ctx context.Context, location string) (io.WriteCloser, error) {
	o, err := parse(location)
	if err != nil {
		return nil, err
	}
	if o.key == "" {
		return nil, fmt.Errorf("create %s: S3 location names no key", location)
	}
	return &writer{fs: fs, ctx: ctx, object: o}, nil
}

// writer is an object being written.
type writer struct {
	fs  *FileIO
	ctx context.Context
	object
	buf      bytes.Buffer
	uploadID *string
	parts    []types.CompletedPart
	err      error // the first failure; the upload is then aborted at Close
	closed   bool
	// exclusive completes the object only where none exists
	// (If-None-Match: *).
	exclusive bool
}

// Write buffers p and sends every full part.
func (w *writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, fmt.Errorf("write %s: %w", w.location, errors.New("writer closed"))
	}
	if w.err != nil {
		return 0, w.err
	}
	w.buf.Write(p)
	for int64(w.buf.Len()) >= w.fs.opts.partSize {
		if w.err = w.sendPart(w.buf.Next(int(w.fs.opts.partSize))); w.err != nil {
			return len(p), w.err
		}
	}
	return len(p), nil
}

// sendPart uploads body as the next part, starting the upload first.
func (w *writer) sendPart(body []byte) error {
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", w.location, err)
	}
	release, err := acquire(w.ctx)
	if err != nil {
		return fmt.Errorf("write %s: %w", w.location, err)
	}
	defer release()
	if w.uploadID == nil {
		out, err := w.fs.client.CreateMultipartUpload(w.ctx, &s3.CreateMultipartUploadInput{Bucket: &w.bucket, Key: &w.key})
		if err != nil {
			return w.fs.wrapErr(w.ctx, "write", w.object, err)
		}
		w.uploadID = out.UploadId
	}
	num := aws.Int32(int32(len(w.parts) + 1))
	out, err := w.fs.client.UploadPart(w.ctx, &s3.UploadPartInput{
		Bucket: &w.bucket, Key: &w.key, UploadId: w.uploadID, PartNumber: num,
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
	})
	if err != nil {
		return w.fs.wrapErr(w.ctx, "write", w.object, err)
	}
	w.parts = append(w.parts, types.CompletedPart{ETag: out.ETag, PartNumber: num})
	return nil
}

// Close makes the object visible: one PUT of the buffer, or the last part
// and the upload's completion. On any failure, or a context already done,
// nothing becomes visible and a multipart upload is aborted.
func (w *writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err == nil {
		if err := w.ctx.Err(); err != nil {
			w.err = fmt.Errorf("write %s: %w", w.location, err)
		}
	}
	if w.err == nil {
		w.err = w.finish()
	}
	if w.err != nil && w.uploadID != nil {
		w.abort()
	}
	return w.err
}

func (w *writer) finish() error {
	if w.uploadID == nil {
		release, err := acquire(w.ctx)
		if err != nil {
			return fmt.Errorf("write %s: %w", w.location, err)
		}
		defer release()
		in := &s3.PutObjectInput{
			Bucket: &w.bucket, Key: &w.key,
			Body: bytes.NewReader(w.buf.Bytes()), ContentLength: aws.Int64(int64(w.buf.Len())),
		}
		if w.exclusive {
			in.IfNoneMatch = aws.String("*")
		}
		_, err = w.fs.client.PutObject(w.ctx, in)
		if err != nil {
			if w.exclusive && lostRace(err) {
				return fmt.Errorf("write %s: %w", w.location, fileio.ErrExist)
			}
			return w.fs.wrapErr(w.ctx, "write", w.object, err)
		}
		return nil
	}
	if w.buf.Len() > 0 {
		if err := w.sendPart(w.buf.Bytes()); err != nil {
			return err
		}
	}
	release, err := acquire(w.ctx)
	if err != nil {
		return fmt.Errorf("write %s: %w", w.location, err)
	}
	defer release()
	in := &s3.CompleteMultipartUploadInput{
		Bucket: &w.bucket, Key: &w.key, UploadId: w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts},
	}
	if w.exclusive {
		in.IfNoneMatch = aws.String("*")
	}
	_, err = w.fs.client.CompleteMultipartUpload(w.ctx, in)
	if err != nil {
		if w.exclusive && lostRace(err) {
			return fmt.Errorf("write %s: %w", w.location, fileio.ErrExist)
		}
		return w.fs.wrapErr(w.ctx, "write", w.object, err)
	}
	return nil
}

// abort drops the parts uploaded so far. It runs with a context of its own:
// the writer's may be the one that ended. Failing to abort leaves parts
// that S3's lifecycle rules reap, never a visible object, so its error is
// not reported over the one that caused it.
func (w *writer) abort() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), abortTimeout)
	defer cancel()
	_, _ = w.fs.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &w.bucket, Key: &w.key, UploadId: w.uploadID})
}

// Remove deletes the object at location. S3's DELETE succeeds on a missing
// key, so a HEAD first tells whether there was one, as fileio.Remover
// promises ErrNotFound for a missing file.
func (fs *FileIO) Remove(ctx context.Context, location string) error {
	o, err := parse(location)
	if err != nil {
		return err
	}
	release, err := acquire(ctx)
	if err != nil {
		return fmt.Errorf("remove %s: %w", location, err)
	}
	defer release()
	if _, err := fs.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &o.bucket, Key: &o.key}); err != nil {
		return fs.wrapErr(ctx, "remove", o, err)
	}
	if _, err := fs.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &o.bucket, Key: &o.key}); err != nil {
		return fs.wrapErr(ctx, "remove", o, err)
	}
	return nil
}
