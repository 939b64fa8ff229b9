package s3

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
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/awscred"
)

// Property names, as PyIceberg spells them (pyiceberg/io/__init__.py);
// "client.*" are PyIceberg's names shared by all AWS clients, read when the
// "s3.*" one is unset. s3.path-style-access is Iceberg Java's
// (S3FileIOProperties), which PyIceberg users coming from Spark also write.
const (
	PropEndpoint           = "s3.endpoint"
	PropAccessKeyID        = "s3.access-key-id"
	PropSecretAccessKey    = "s3.secret-access-key"
	PropSessionToken       = "s3.session-token"
	PropRegion             = "s3.region"
	PropAnonymous          = "s3.anonymous"
	PropPathStyleAccess    = "s3.path-style-access"
	PropForceVirtual       = "s3.force-virtual-addressing"
	PropProfileName        = "s3.profile-name"
	PropConnectTimeout     = "s3.connect-timeout"
	PropRequestTimeout     = "s3.request-timeout"
	PropClientAccessKeyID  = awscred.PropClientAccessKeyID
	PropClientSecretKey    = awscred.PropClientSecretKey
	PropClientSessionToken = awscred.PropClientSessionToken
	PropClientRegion       = awscred.PropClientRegion
	PropClientProfileName  = awscred.PropClientProfileName
)

// Defaults of the client's behaviour on failure.
const (
	// defaultMaxAttempts counts the first try: four retries.
	defaultMaxAttempts = 5
	// defaultMaxBackoff caps one wait between tries; with jitter the waits
	// of five tries add up to a few seconds, enough to ride out a server
	// restart or a burst of throttling, short enough to fail a read promptly.
	defaultMaxBackoff = 2 * time.Second
	// maxIdleConnsPerHost keeps a connection per concurrent request to an
	// endpoint alive between requests (net/http keeps only two by default),
	// so a scan's ranged GETs do not each pay a TCP and TLS handshake.
	maxIdleConnsPerHost = 128
)

// Option adjusts a FileIO made by New, beyond what Properties say.
type Option func(*options)

type options struct {
	maxAttempts int
	maxBackoff  time.Duration
	wrap        func(http.RoundTripper) http.RoundTripper
	partSize    int64
	listPage    int32 // keys per ListObjectsV2 page; 0: the server's default (1,000)
}

// WithRetry sets how often a request is tried (at least once) and the
// longest wait between two tries.
func WithRetry(attempts int, maxBackoff time.Duration) Option {
	return func(o *options) { o.maxAttempts, o.maxBackoff = max(attempts, 1), maxBackoff }
}

// WithTransport wraps the HTTP transport the FileIO sends requests through
// (a counting or fault-injecting layer in tests, a tracing one in service).
func WithTransport(wrap func(http.RoundTripper) http.RoundTripper) Option {
	return func(o *options) { o.wrap = wrap }
}

// WithPartSize sets the size of the parts a multipart upload sends (S3
// requires at least 5 MiB for every part but the last).
func WithPartSize(n int64) Option {
	return func(o *options) { o.partSize = max(n, minPartSize) }
}

// clientConfig is what New builds from Properties: the client and the
// credential source it signs with, for messages.
type clientConfig struct {
	client *s3.Client
	// source names where the credentials come from ("static keys
	// (s3.access-key-id)", "profile analytics", "anonymous", "default
	// chain"), never what they are.
	source string
	creds  aws.CredentialsProvider
}

// newClient builds an S3 client from props: credentials (anonymous, static
// keys, a named profile, or the AWS default chain: environment, shared
// config and credentials files, web identity, container and instance
// metadata), region, endpoint and addressing, retries and one tuned HTTP
// transport shared by all of the client's requests.
func newClient(ctx context.Context, props fileio.Properties, o *options) (*clientConfig, error) {
	anonymous, err := boolProp(props, PropAnonymous)
	if err != nil {
		return nil, err
	}
	tune, err := transportOptions(props)
	if err != nil {
		return nil, err
	}
	loads := []func(*config.LoadOptions) error{
		// A buildable client, so that the SDK can add a CA bundle
		// (AWS_CA_BUNDLE, ca_bundle in a profile) to its transport.
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(tune)),
		config.WithRetryer(awscred.Retryer(o.maxAttempts, o.maxBackoff)),
	}
	// s3.region, s3.access-key-id ... then PyIceberg's client.* names.
	cfg, source, err := awscred.Load(ctx, props, awscred.ClientNames("s3."), anonymous, loads...)
	if err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	// One transport per FileIO, whose idle connections all its requests
	// reuse; wrapped (in tests, to count requests) when asked.
	var rt http.RoundTripper = cfg.HTTPClient.(*awshttp.BuildableClient).GetTransport()
	if o.wrap != nil {
		rt = o.wrap(rt)
	}
	cfg.HTTPClient = &http.Client{Transport: rt}
	if cfg.Region == "" {
		// An S3-compatible store rarely cares, but SigV4 needs a region.
		cfg.Region = "us-east-1"
	}
	endpoint := props.Get(PropEndpoint)
	pathStyle, err := pathStyle(props, endpoint)
	if err != nil {
		return nil, err
	}
	// Checksums only where S3 requires them: S3-compatible stores (MinIO,
	// Ceph, R2, older gateways) reject or ignore the newer default
	// trailers, and Parquet and Avro carry checksums of their own.
	cfg.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	cfg.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if endpoint != "" {
			so.BaseEndpoint = aws.String(endpoint)
		}
		so.UsePathStyle = pathStyle
	})
	return &clientConfig{client: client, source: source, creds: cfg.Credentials}, nil
}

// pathStyle decides the addressing: s3.path-style-access when set, else
// virtual hosts for AWS itself and paths for an endpoint override, as
// PyIceberg (through Arrow's S3 file system) does unless
// s3.force-virtual-addressing says otherwise.
func pathStyle(props fileio.Properties, endpoint string) (bool, error) {
	if _, ok := props[PropPathStyleAccess]; ok {
		return boolProp(props, PropPathStyleAccess)
	}
	virtual, err := boolProp(props, PropForceVirtual)
	if err != nil {
		return false, err
	}
	return endpoint != "" && !virtual, nil
}

// transportOptions returns the tuning of a FileIO's HTTP transport from
// props: connect and response timeouts, and idle connections kept for
// reuse by every request of the FileIO.
func transportOptions(props fileio.Properties) (func(*http.Transport), error) {
	connect, err := secondsProp(props, PropConnectTimeout, 10*time.Second)
	if err != nil {
		return nil, err
	}
	request, err := secondsProp(props, PropRequestTimeout, 30*time.Second)
	if err != nil {
		return nil, err
	}
	return func(t *http.Transport) {
		t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
		t.MaxIdleConns = 4 * maxIdleConnsPerHost
		t.MaxIdleConnsPerHost = maxIdleConnsPerHost
		// A server that accepted a request but never answers is a
		// timeout, which the retryer retries; the body of a large range
		// may take longer than this.
		t.ResponseHeaderTimeout = request
	}, nil
}

func boolProp(props fileio.Properties, name string) (bool, error) {
	v, ok := props[name]
	if !ok || v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("s3: property %s: %q is not true or false", name, v)
	}
	return b, nil
}

// secondsProp reads a duration in seconds (PyIceberg's unit, fractions
// allowed).
func secondsProp(props fileio.Properties, name string, def time.Duration) (time.Duration, error) {
	v, ok := props[name]
	if !ok || v == "" {
		return def, nil
	}
	s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || s <= 0 {
		return 0, fmt.Errorf("s3: property %s: %q is not a positive number of seconds", name, v)
	}
	return time.Duration(s * float64(time.Second)), nil
}
