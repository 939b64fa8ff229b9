// Package s3 is the FileIO of Amazon S3 and S3-compatible stores (MinIO,
// Ceph, R2, versitygw), for s3://, s3a:// and s3n:// locations, configured
// by PyIceberg's property names. Reads are ranged GETs (no HEAD when the
// size is known) coalesced by fileio.Coalescing; failures that may pass are
// retried with bounded, jittered exponential backoff and then reported as
// fileio.ErrUnavailable.
package s3

import (
	"context"
	"fmt"
	"strings"

	"github.com/iceflight/iceflight/fileio"
)

// Backend serves s3://, s3a:// and s3n:// locations; the three name the same
// object (Hadoop's s3a and s3n connectors were other clients of one store).
var Backend = fileio.Backend{
	Name:    "S3",
	Schemes: []string{"s3", "s3a", "s3n"},
	New: func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error) {
		return New(ctx, props)
	},
}

// FileIO reads and writes objects of S3 buckets. It is safe for concurrent
// use; all its requests share one HTTP transport and its idle connections.
type FileIO struct {
	*clientConfig
	opts options
}

var (
	_ fileio.FileIO      = (*FileIO)(nil)
	_ fileio.SizedOpener = (*FileIO)(nil)
	_ fileio.Lister      = (*FileIO)(nil)
	_ fileio.Creator     = (*FileIO)(nil)
	_ fileio.Remover     = (*FileIO)(nil)
)

// New returns a FileIO configured by props (see the Prop constants) and
// opts. It reads local AWS configuration files when props name no keys, but
// sends no request: the first Open finds out whether the store is there.
func New(ctx context.Context, props fileio.Properties, opts ...Option) (*FileIO, error) {
	o := options{maxAttempts: defaultMaxAttempts, maxBackoff: defaultMaxBackoff, partSize: defaultPartSize}
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := newClient(ctx, props, &o)
	if err != nil {
		return nil, err
	}
	return &FileIO{clientConfig: cfg, opts: o}, nil
}

// object is a location split into its bucket and key.
type object struct {
	location, bucket, key string
}

// parse splits an s3://, s3a:// or s3n:// location into bucket and key.
// The key is taken as written, not URL-decoded: Iceberg writes locations
// as plain strings, and a "%" in a key is a "%".
func parse(location string) (object, error) {
	scheme := fileio.Scheme(location)
	switch scheme {
	case "s3", "s3a", "s3n":
	default:
		return object{}, fmt.Errorf("%s: %w %q (S3 serves s3, s3a and s3n)", location, fileio.ErrUnsupportedScheme, scheme)
	}
	rest, ok := strings.CutPrefix(location[len(scheme)+1:], "//")
	if !ok {
		return object{}, fmt.Errorf("%s: not an S3 location (want %s://bucket/key)", location, scheme)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return object{}, fmt.Errorf("%s: S3 location names no bucket", location)
	}
	return object{location: location, bucket: bucket, key: key}, nil
}
