// Package rest is a client of the Iceberg REST catalog (the Iceberg REST
// OpenAPI, open-api/rest-catalog-open-api.yaml): configuration, nested
// namespaces, listing and loading tables, bearer tokens and OAuth2 client
// credentials, ETag revalidation and vended storage credentials. A Catalog
// implements catalog.Catalog.
package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/iceflight/iceflight/catalog"
	"github.com/iceflight/iceflight/fileio"
)

// FileIOFunc builds the FileIO that reads a table's files from storage
// properties: the catalog's merged configuration, plus a table's vended
// credentials when the catalog sends them.
type FileIOFunc func(ctx context.Context, props fileio.Properties) (fileio.FileIO, error)

// Catalog is an Iceberg REST catalog client.
type Catalog struct {
	name  string
	props fileio.Properties // as configured, before the server's config

	httpc          *http.Client
	requestTimeout time.Duration
	refresh        time.Duration
	pageSize       int
	maxMetadata    int64
	newIO          FileIOFunc
	now            func() time.Time

	auth   *tokenSource
	basic  string       // the Authorization header of rest.auth.type=basic
	signer *sigV4Signer // signs every request when rest.auth.type=sigv4

	// Set once by configure: the merged properties and what follows from
	// them.
	cfgMu      ctxLock
	configured bool
	merged     fileio.Properties
	base       string // "http://host/api/v1/" or ".../v1/{prefix}/", ending in "/"
	root       string // the base without the prefix, for /v1/config and tokens
	separator  string
	headers    http.Header
	io         fileio.FileIO // for tables without vended credentials

	cache tableCache
}

// Option configures a Catalog made by New.
type Option func(*Catalog)

// WithFileIO sets how a table's FileIO is built from storage properties
// (the configured storage registry's constructor). Without it, tables are
// read with the local file system only.
func WithFileIO(f FileIOFunc) Option { return func(c *Catalog) { c.newIO = f } }

// WithHTTPClient sets the HTTP client; its redirect policy is replaced,
// since the REST protocol has no redirects to follow.
func WithHTTPClient(h *http.Client) Option { return func(c *Catalog) { c.httpc = h } }

// WithRequestTimeout bounds each HTTP request whose context has no earlier
// deadline (default 30 s), so a server that hangs fails the call.
func WithRequestTimeout(d time.Duration) Option { return func(c *Catalog) { c.requestTimeout = d } }

// WithRefreshInterval sets how long a loaded table is served without
// asking the server again (default 0: every load is a conditional request,
// which an unchanged table answers with 304 Not Modified).
func WithRefreshInterval(d time.Duration) Option { return func(c *Catalog) { c.refresh = d } }

// WithPageSize asks list calls for pages of n entries (default: the
// server's choice).
func WithPageSize(n int) Option { return func(c *Catalog) { c.pageSize = n } }

// WithMaxMetadataBytes bounds a table's metadata, in a load-table answer
// or a metadata file (default catalog.DefaultMaxMetadataBytes; 0 or less:
// no bound).
func WithMaxMetadataBytes(n int64) Option { return func(c *Catalog) { c.maxMetadata = n } }

// withClock sets the clock, for tests of token and credential expiry.
func withClock(now func() time.Time) Option { return func(c *Catalog) { c.now = now } }

// New returns the REST catalog called name, configured by props in the
// words of PyIceberg's .pyiceberg.yaml: "uri" (required), "warehouse",
// "prefix", "token", "credential" ("client-id:client-secret" or a secret
// alone), "oauth2-server-uri", "scope", "audience", "resource",
// "rest.auth.type" (none, basic, oauth2, sigv4; see configureAuth) with
// "rest.auth.basic.*" or "rest.signing-region", "rest.signing-name" and
// "rest.access-key-id" ...,
// "header.NAME", "snapshot-loading-mode" ("refs" loads only the snapshots
// branches and tags reference: smaller answers, but a scan of any other
// snapshot is then not found) and storage properties ("s3.endpoint" ...). It does no I/O:
// the server's configuration is fetched by the first call, so a catalog
// that is down fails its own calls and nothing else.
func New(ctx context.Context, name string, props fileio.Properties, opts ...Option) (*Catalog, error) {
	uri := strings.TrimRight(props.Get("uri"), "/")
	if uri == "" {
		return nil, fmt.Errorf("rest catalog %q: no uri", name)
	}
	if !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "https://") {
		return nil, fmt.Errorf("rest catalog %q: uri %q is not http(s)", name, uri)
	}
	c := &Catalog{
		name:           name,
		props:          copyProps(props),
		httpc:          &http.Client{},
		requestTimeout: 30 * time.Second,
		maxMetadata:    catalog.DefaultMaxMetadataBytes,
		newIO: func(context.Context, fileio.Properties) (fileio.FileIO, error) {
			return fileio.NewResolver(), nil
		},
		now: time.Now,
	}
	for _, opt := range opts {
		opt(c)
	}
	// Never follow a redirect: it could carry the Authorization header to
	// another host, and the protocol defines none.
	h := *c.httpc
	h.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.httpc = &h
	c.root = uri + "/"
	if err := configureAuth(ctx, c, props); err != nil {
		return nil, fmt.Errorf("rest catalog %q: %w", name, err)
	}
	c.cache.entries = make(map[string]*cacheEntry)
	c.cfgMu = newCtxLock()
	return c, nil
}

// Name is the catalog's name in configuration and messages.
func (c *Catalog) Name() string { return c.name }

// ListTables returns the identifiers of every table in every namespace,
// nested ones included, sorted.
func (c *Catalog) ListTables(ctx context.Context) ([]catalog.Identifier, error) {
	if err := c.configure(ctx); err != nil {
		return nil, err
	}
	var ids []catalog.Identifier
	var walk func(parent []string) error
	walk = func(parent []string) error {
		children, err := c.ListNamespaces(ctx, parent)
		if err != nil {
			return err
		}
		for _, ns := range children {
			tables, err := c.listTablesIn(ctx, ns)
			if err != nil {
				return err
			}
			ids = append(ids, tables...)
			if err := walk(ns); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(nil); err != nil {
		return nil, err
	}
	sortIdentifiers(ids)
	return ids, nil
}

var _ catalog.Catalog = (*Catalog)(nil)

func copyProps(p fileio.Properties) fileio.Properties {
	out := make(fileio.Properties, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}
