// Package glue is the AWS Glue Data Catalog as a pointer.Store: each
// Iceberg table is a Glue table whose parameters point at its current
// metadata file, and each namespace a Glue database, as Iceberg Java's
// GlueCatalog and PyIceberg's GlueCatalog keep them, so that the three
// share one catalog. A commit swaps the pointer with Glue's optimistic
// lock: the UpdateTable carries the table version it was read at.
package glue

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/iceflight/iceflight/catalog/pointer"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/awscred"
)

// Property names, as PyIceberg spells them (pyiceberg/catalog/glue.py).
// The region and credentials are "glue.region", "glue.access-key-id",
// "glue.secret-access-key", "glue.session-token" and "glue.profile-name",
// each falling back to its "client.*" name and then to the AWS default
// chain (see fileio/awscred).
const (
	// PropID is the Glue catalog's id, the AWS account that owns it; unset,
	// the caller's own.
	PropID = "glue.id"
	// PropEndpoint replaces Glue's endpoint (a Glue-compatible service,
	// or an emulator in tests).
	PropEndpoint = "glue.endpoint"
	// PropMaxRetries is how often a failed request is tried again before
	// the catalog is reported unavailable.
	PropMaxRetries = "glue.max-retries"
	// PropSkipArchive, true by default as in Java and PyIceberg, keeps Glue
	// from archiving a table version on each commit (Glue caps archived
	// versions per table).
	PropSkipArchive = "glue.skip-archive"
)

// Defaults of the client's behaviour on failure, as fileio/s3's: a Glue
// that is down is reported within seconds, not after PyIceberg's ten
// retries of up to 20 s each.
const (
	defaultMaxRetries = 4
	defaultMaxBackoff = 2 * time.Second
	connectTimeout    = 10 * time.Second
	// responseTimeout bounds the wait for an answer; Glue answers its
	// catalog calls in well under a second.
	responseTimeout = 30 * time.Second
)

// Store is a pointer.Store over one Glue Data Catalog. It is safe for
// concurrent use.
type Store struct {
	client      *glue.Client
	catalogID   *string // nil: the caller's account's catalog
	skipArchive bool
	// source names where the credentials come from, for messages.
	source string
	locks  tableLocks
}

var _ pointer.Store = (*Store)(nil)

// New returns the Store of the Glue catalog props configure (see the Prop
// constants). It reads local AWS configuration when props name no keys,
// but sends no request: the first call finds out whether Glue answers.
func New(ctx context.Context, props fileio.Properties) (*Store, error) {
	retries := defaultMaxRetries
	if v := props.Get(PropMaxRetries); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("glue: property %s is not a number of retries", PropMaxRetries)
		}
		retries = n
	}
	skipArchive := true
	if v := props.Get(PropSkipArchive); v != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("glue: property %s is not true or false", PropSkipArchive)
		}
		skipArchive = b
	}
	cfg, source, err := awscred.Load(ctx, props, awscred.ClientNames("glue."), false,
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
			// A Glue that took the request but never answers is a
			// timeout, which the retryer retries.
			t.ResponseHeaderTimeout = responseTimeout
		})),
		// The first try counts: max-retries 4 is five tries.
		config.WithRetryer(awscred.Retryer(retries+1, defaultMaxBackoff)))
	if err != nil {
		return nil, fmt.Errorf("glue: %w", err)
	}
	endpoint := props.Get(PropEndpoint)
	if cfg.Region == "" {
		if endpoint == "" {
			return nil, fmt.Errorf("glue: no region: set glue.region or client.region (or AWS_REGION)")
		}
		// An endpoint of its own needs no region to be found, but SigV4
		// signs with one.
		cfg.Region = "us-east-1"
	}
	s := &Store{skipArchive: skipArchive, source: source}
	if id := props.Get(PropID); id != "" {
		s.catalogID = aws.String(id)
	}
	s.client = glue.NewFromConfig(cfg, func(o *glue.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	return s, nil
}
