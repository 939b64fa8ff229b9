// Package gcs is the FileIO for Google Cloud Storage locations
// (gs://bucket/key), on cloud.google.com/go/storage. It is configured by
// PyIceberg's and Iceberg Java's "gcs.*" property names (see New).
package gcs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"

	"github.com/iceflight/iceflight/fileio"
)

// Property names, as PyIceberg, Iceberg Java and iceberg-rust spell them.
const (
	// PropServiceHost overrides the endpoint ("http://127.0.0.1:4443"),
	// for emulators and private endpoints.
	PropServiceHost = "gcs.service.host"
	// PropProjectID names the project requests are billed to when the
	// bucket is requester-pays.
	PropProjectID = "gcs.project-id"
	// PropUserProject names the project billed for requester-pays buckets
	// directly (Iceberg Java).
	PropUserProject = "gcs.user-project"
	// PropRequesterPays ("true") bills reads to PropProjectID (PyIceberg).
	PropRequesterPays = "gcs.requester-pays"
	// PropToken is an OAuth2 access token; the value "anon" means no
	// credentials, as in PyIceberg (gcsfs).
	PropToken = "gcs.oauth2.token"
	// PropTokenExpiresAt is when PropToken expires, in epoch milliseconds.
	PropTokenExpiresAt = "gcs.oauth2.token-expires-at"
	// PropCredentialsJSON is a service-account (or other credentials) JSON
	// key: the JSON itself, base64 of it (iceberg-rust) or the path of a
	// key file.
	PropCredentialsJSON = "gcs.credentials-json"
	// PropNoAuth ("true") sends requests without credentials, for public
	// buckets and emulators (Iceberg Java, iceberg-rust).
	PropNoAuth = "gcs.no-auth"
	// PropAccess picks the OAuth2 scope for application default
	// credentials: "read_only", "read_write" (the default) or
	// "full_control", as PyIceberg (gcsfs) does.
	PropAccess = "gcs.access"
)

// Retries: the client retries idempotent calls (every read, list and
// metadata request) that fail with 408, 429, 5xx or a broken connection,
// with exponential backoff and full jitter (gax), at most maxAttempts
// times in all; after that the error wraps fileio.ErrUnavailable.
const (
	maxAttempts    = 4
	initialBackoff = 100 * time.Millisecond
	maxBackoff     = 2 * time.Second
)

// Backend serves the "gs" scheme.
var Backend = fileio.Backend{
	Name:    "GCS",
	Schemes: []string{"gs"},
	New: func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error) {
		return New(ctx, props)
	},
}

// FileIO opens, lists, writes and removes objects in Google Cloud Storage.
// It is safe for concurrent use.
type FileIO struct {
	// client makes the client on first use, once; made says it began.
	client      func() (*storage.Client, error)
	made        atomic.Bool
	userProject string
	// source names the credentials in messages, never their value.
	source string
	// listPage caps the entries of one list call; 0 leaves it to the
	// server (1,000). Tests make it small to list many pages.
	listPage int
}

// New returns a FileIO configured by props. Without credential properties
// it uses application default credentials (GOOGLE_APPLICATION_CREDENTIALS,
// gcloud's login, the metadata server). New sends nothing: the client,
// and with it the search for application default credentials (which asks
// the metadata server whether it is there), is made on first use, so a
// FileIO configured but never used costs nothing. A machine without
// credentials fails its first call with an error wrapping
// fileio.ErrPermissionDenied.
func New(ctx context.Context, props fileio.Properties) (*FileIO, error) {
	opts, source, err := credentialOptions(props)
	if err != nil {
		return nil, err
	}
	if host := props.Get(PropServiceHost); host != "" {
		endpoint, err := endpointURL(host)
		if err != nil {
			return nil, err
		}
		// Reads through the JSON API go to the same host as every other
		// call; the default XML reads would go to a host of their own.
		opts = append(opts, option.WithEndpoint(endpoint), storage.WithJSONReads())
	}
	fio := &FileIO{source: source, userProject: props.Get(PropUserProject)}
	if fio.userProject == "" && strings.EqualFold(props.Get(PropRequesterPays), "true") {
		fio.userProject = props.Get(PropProjectID)
	}
	fio.client = sync.OnceValues(func() (*storage.Client, error) {
		fio.made.Store(true)
		// Not the first caller's context: the client outlives it.
		client, err := storage.NewClient(context.WithoutCancel(ctx), opts...)
		if err != nil {
			if source == sourceADC {
				return nil, fmt.Errorf("gcs: %w: no %s: %w", fileio.ErrPermissionDenied, source, err)
			}
			return nil, fmt.Errorf("gcs: client with %s: %w", source, err)
		}
		client.SetRetry(
			storage.WithMaxAttempts(maxAttempts),
			storage.WithBackoff(gax.Backoff{Initial: initialBackoff, Max: maxBackoff, Multiplier: 2}),
		)
		return client, nil
	})
	return fio, nil
}

// Close releases the client's connections, if it was ever made.
func (f *FileIO) Close() error {
	if !f.made.Load() {
		return nil
	}
	c, err := f.client()
	if err != nil {
		return nil
	}
	return c.Close()
}

// endpointURL turns gcs.service.host ("http://host:port", or a bare
// "host:port" taken as https) into the JSON API's base URL.
func endpointURL(host string) (string, error) {
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	host = strings.TrimRight(host, "/")
	if strings.HasSuffix(host, "/storage/v1") {
		return host + "/", nil
	}
	if strings.Count(host, "/") > 2 {
		return "", fmt.Errorf("gcs: %s %q has a path: give the scheme, host and port only", PropServiceHost, host)
	}
	return host + "/storage/v1/", nil
}

// location is a gs:// location cut into bucket and object key.
type location struct {
	bucket, key string
}

// parseLocation splits "gs://bucket/key" into its bucket and key.
func parseLocation(loc string) (location, error) {
	rest, ok := strings.CutPrefix(loc, "gs://")
	if !ok {
		return location{}, fmt.Errorf("%s: %w: not a gs:// location", loc, fileio.ErrUnsupportedScheme)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return location{}, fmt.Errorf("%s: %w: no bucket", loc, fileio.ErrNotFound)
	}
	return location{bucket: bucket, key: key}, nil
}

// bucket returns the handle of l's bucket.
func (f *FileIO) bucket(l location) (*storage.BucketHandle, error) {
	c, err := f.client()
	if err != nil {
		return nil, err
	}
	b := c.Bucket(l.bucket)
	if f.userProject != "" {
		b = b.UserProject(f.userProject)
	}
	return b, nil
}

// object returns the handle of the object at l.
func (f *FileIO) object(l location) (*storage.ObjectHandle, error) {
	b, err := f.bucket(l)
	if err != nil {
		return nil, err
	}
	return b.Object(l.key), nil
}
