package rest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
	"github.com/iceflight/iceflight/fileio/awscred"
)

// The properties that choose how a catalog authenticates, in Iceberg
// Java's names (AuthProperties, AwsProperties), which PyIceberg shares.
const (
	// propAuthType is none, basic, oauth2 or sigv4. Unset, it is oauth2
	// when "token" or "credential" is set and none otherwise, as Java
	// infers it.
	propAuthType = "rest.auth.type"
	// propSigV4Enabled, "true", is the older spelling of
	// rest.auth.type=sigv4, which PyIceberg still reads.
	propSigV4Enabled = "rest.sigv4-enabled"
	// propSigV4Delegate authenticates a request before it is signed (its
	// Authorization header moves to Original-Authorization): oauth2 (the
	// default, which sends a token only when one is configured), basic or
	// none.
	propSigV4Delegate = "rest.auth.sigv4.delegate-auth-type"
	propBasicUser     = "rest.auth.basic.username"
	propBasicPassword = "rest.auth.basic.password"
	// propSigningRegion defaults to client.region, then the AWS default
	// chain's region; propSigningName to execute-api (API Gateway), "glue"
	// for Glue's Iceberg REST endpoint, "s3tables" for S3 Tables.
	propSigningRegion = "rest.signing-region"
	propSigningName   = "rest.signing-name"
)

const defaultSigningName = "execute-api"

// relocatedPrefix is put before a header the signature replaces (the
// delegate's Authorization), as Iceberg Java's RESTSigV4AuthSession does,
// so that a server behind an AWS gateway still sees the bearer token.
const relocatedPrefix = "Original-"

// configureAuth sets how c authenticates its requests from props.
func configureAuth(ctx context.Context, c *Catalog, props fileio.Properties) error {
	kind := strings.ToLower(props.Get(propAuthType))
	if on, _ := strconv.ParseBool(props.Get(propSigV4Enabled)); on {
		kind = "sigv4"
	}
	if kind == "sigv4" {
		delegate := strings.ToLower(props.Get(propSigV4Delegate))
		if delegate == "" {
			delegate = "oauth2"
		}
		if delegate == "sigv4" {
			return fmt.Errorf("%s cannot be sigv4", propSigV4Delegate)
		}
		if err := configureHeaderAuth(c, props, delegate); err != nil {
			return err
		}
		s, err := newSigV4Signer(ctx, props)
		if err != nil {
			return err
		}
		c.signer = s
		return nil
	}
	if kind == "" {
		kind = "none"
		if props.Get("token") != "" || props.Get("credential") != "" {
			kind = "oauth2"
		}
	}
	return configureHeaderAuth(c, props, kind)
}

// configureHeaderAuth sets the Authorization header's kind: none, basic
// or oauth2 (a bearer token).
func configureHeaderAuth(c *Catalog, props fileio.Properties, kind string) error {
	switch kind {
	case "none":
		c.auth = &tokenSource{c: c, mu: newCtxLock()} // sends no token
	case "basic":
		user, password := props.Get(propBasicUser), props.Get(propBasicPassword)
		if user == "" || password == "" {
			return fmt.Errorf("%s=basic needs %s and %s", propAuthType, propBasicUser, propBasicPassword)
		}
		c.auth = &tokenSource{c: c, mu: newCtxLock()}
		c.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	case "oauth2":
		ts, err := newTokenSource(c, props)
		if err != nil {
			return err
		}
		c.auth = ts
	default:
		return fmt.Errorf("%s %q is not one of none, basic, oauth2, sigv4", propAuthType, kind)
	}
	return nil
}

// authorize puts the request's credentials on req, whose body is body: a
// bearer token or basic credentials, then the SigV4 signature when the
// catalog signs.
func (c *Catalog) authorize(ctx context.Context, req *http.Request, body []byte) error {
	switch {
	case c.basic != "":
		req.Header.Set("Authorization", c.basic)
	default:
		tok, err := c.auth.token(ctx)
		if err != nil {
			return err
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	if c.signer == nil {
		return nil
	}
	return c.signer.sign(ctx, req, body, c.now())
}

// sigV4Signer signs requests with AWS Signature Version 4, for REST
// catalogs behind AWS (API Gateway, Glue's and S3 Tables' Iceberg
// endpoints).
type sigV4Signer struct {
	creds   aws.CredentialsProvider
	source  string // where the credentials come from, for messages
	region  string
	service string
	signer  *v4.Signer
}

func newSigV4Signer(ctx context.Context, props fileio.Properties) (*sigV4Signer, error) {
	names := awscred.ClientNames("rest.")
	names.Region = []string{propSigningRegion, awscred.PropClientRegion}
	cfg, source, err := awscred.Load(ctx, props, names, false)
	if err != nil {
		return nil, fmt.Errorf("sigv4: %w", err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("sigv4: no region to sign for: set %s", propSigningRegion)
	}
	service := props.Get(propSigningName)
	if service == "" {
		service = defaultSigningName
	}
	return &sigV4Signer{creds: cfg.Credentials, source: source, region: cfg.Region, service: service,
		// The escaped path is escaped once more in the canonical request,
		// as SigV4 asks of every service but S3 and Java's signer does.
		signer: v4.NewSigner()}, nil
}

// sign signs req, whose body is body, as of now. A delegate's
// Authorization header moves to Original-Authorization and is signed with
// the rest; the payload's SHA-256 goes in X-Amz-Content-Sha256, as Java
// sends it.
func (s *sigV4Signer) sign(ctx context.Context, req *http.Request, body []byte, now time.Time) error {
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("sigv4: credentials from %s: %w: %w", s.source, catalog.ErrCatalogPermissionDenied, err)
	}
	if a := req.Header.Get("Authorization"); a != "" {
		req.Header.Del("Authorization")
		req.Header.Set(relocatedPrefix+"Authorization", a)
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := s.signer.SignHTTP(ctx, creds, req, hash, s.service, s.region, now); err != nil {
		return fmt.Errorf("sigv4: sign: %w", err)
	}
	return nil
}
